// A certificate the CLI refuses is a refusal: a real https server on 127.0.0.1 with
// certificates made by openssl (untrusted, for another host, expired, not yet valid).
// Each fails at once with no retry, names the certificate's problem with a hint that fits
// it, and nothing reaches the server: no request, so no key; a create there is NOT_SENT
// with no recovery. The same for `webhooks resend --to` and in `doctor`, which says every
// refusal's hint (`webhooks listen --forward-to`: test/webhooks/forward.test.ts). The built
// binary, because NODE_EXTRA_CA_CERTS (how the test's CA is trusted, as a user trusts a
// private CA) is read only when a process starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateAuthority, haveOpenssl, type Pem } from '../helpers/certificates.js';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { KEY, ok, snapshot, TX_ID } from '../tx/fixtures.js';
import { formatStoredLine } from '../../src/lib/webhooks/store.js';

const openssl = haveOpenssl();
const servers: Server[] = [];
let ca: ReturnType<typeof certificateAuthority>;

beforeAll(() => {
  if (openssl) ca = certificateAuthority();
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** An https server on 127.0.0.1 presenting `pem`, answering every request with a transaction. */
async function serve(pem: Pem) {
  const requests: IncomingMessage[] = [];
  const server = createServer({ key: pem.key, cert: pem.cert }, (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ok(snapshot())));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/partner`, requests };
}

function cli(args: string[], baseUrl: string) {
  return runCli([...args, '--verbose', '--retries', '3'], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: baseUrl, NODE_EXTRA_CA_CERTS: ca.certPath } });
}

const createArgs = ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', 'cert-1'];

/**
 * `tx get` and `tx create` against a server presenting `pem`: both exit 7 after one
 * attempt, with `code`; the server received no request. Returns their stderr's error lines.
 */
async function refused(pem: Pem, code: string) {
  const server = await serve(pem);
  const [get, create] = await Promise.all([cli(['tx', 'get', TX_ID], server.baseUrl), cli(createArgs, server.baseUrl)]);
  expect(get.code, get.stderr).toBe(7);
  expect(get.stderr).not.toContain('(retry 1)');
  expect(create.code, create.stderr).toBe(7);
  expect(create.stderr).toContain('error: NOT_SENT: transaction "cert-1" was not created: ');
  expect(create.stderr).toContain(`(${code})`);
  // No recovery: no lookup by reference, no second create.
  expect(create.stderr).not.toContain('looking up reference');
  expect(create.stderr).not.toContain('(retry 1)');
  expect(server.requests).toEqual([]);
  const line = (stderr: string, prefix: string) => stderr.split('\n').filter((l) => l.startsWith(prefix));
  return { get: [...line(get.stderr, 'error: '), ...line(get.stderr, 'hint: ')], create: line(create.stderr, 'hint: ') };
}

describe.skipIf(!openssl)('a certificate the CLI refuses', () => {
  it('a good one, from the CA NODE_EXTRA_CA_CERTS names, is taken (the servers below differ only in their certificate)', async () => {
    const server = await serve(ca.leaf('127.0.0.1', 'IP:127.0.0.1', '20200101000000Z', '20991231000000Z'));
    const r = await cli(['tx', 'get', TX_ID], server.baseUrl);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('untrusted (self-signed): named as such, the hint is NODE_EXTRA_CA_CERTS', async () => {
    const r = await refused(ca.selfSigned('127.0.0.1', 'IP:127.0.0.1'), 'DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(r.get[0]).toMatch(/^error: CERTIFICATE: GET https:\/\/127\.0\.0\.1:\d+\/\S+: the server's certificate is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
    expect(r.get[1]).toContain('NODE_EXTRA_CA_CERTS');
    expect(r.create[0]).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('the control plane keeps the refusal hint: emulator wait against an emulator behind an untrusted certificate', async () => {
    const server = await serve(ca.selfSigned('127.0.0.1', 'IP:127.0.0.1'));
    const r = await runMain(['emulator', 'wait', '--timeout', '5s', '--base-url', server.baseUrl]);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/^error: CERTIFICATE: .*\(DEPTH_ZERO_SELF_SIGNED_CERT\)\nhint: .*NODE_EXTRA_CA_CERTS/);
    expect(r.stderr).not.toContain('is the emulator running there?');
    expect(server.requests).toEqual([]);
  });

  it('for another host: names the host asked and the names the certificate was issued for', async () => {
    const r = await refused(ca.leaf('api.example.test', 'DNS:api.example.test,DNS:*.example.test', '20200101000000Z', '20991231000000Z'), 'ERR_TLS_CERT_ALTNAME_INVALID');
    expect(r.get[0]).toMatch(/: the server's certificate is not for 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\)$/);
    expect(r.get[1]).toBe('hint: it was issued for api.example.test, *.example.test: check the host in the base URL');
    expect(r.create[0]).toContain('it was issued for api.example.test, *.example.test');
  });

  it('expired: says when, and the dates it was valid', async () => {
    const r = await refused(ca.leaf('127.0.0.1', 'IP:127.0.0.1', '20200101000000Z', '20200201000000Z'), 'CERT_HAS_EXPIRED');
    expect(r.get[0]).toMatch(/: the server's certificate expired on 2020-02-01 \(CERT_HAS_EXPIRED\)$/);
    expect(r.get[1]).toMatch(/^hint: it was valid from 2020-01-01T00:00:00Z to 2020-02-01T00:00:00Z; the service must renew it \(or this machine's clock is wrong: it reads \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/);
  });

  it('not yet valid: says from when', async () => {
    const r = await refused(ca.leaf('127.0.0.1', 'IP:127.0.0.1', '20900101000000Z', '20991231000000Z'), 'CERT_NOT_YET_VALID');
    expect(r.get[0]).toMatch(/: the server's certificate is not valid before 2090-01-01 \(CERT_NOT_YET_VALID\)$/);
    expect(r.get[1]).toMatch(/^hint: it is valid from 2090-01-01T00:00:00Z to 2099-12-31T00:00:00Z; check this machine's clock \(it reads \d{4}-/);
  });
});

describe.skipIf(!openssl)('a refused certificate elsewhere: the same refusal', () => {
  const otherHost = () => ca.leaf('api.example.test', 'DNS:api.example.test', '20200101000000Z', '20991231000000Z');

  it('webhooks resend --to: exit 7 at the first delivery, nothing more sent, the hint names --to', async () => {
    const server = await serve(otherHost());
    const store = join(mkdtempSync(join(tmpdir(), 'offramp-cert-resend-')), 'events.ndjson');
    const lines = ['e-1', 'e-2', 'e-3'].map((id) => {
      const body = JSON.stringify({ id, type: 'transaction.created', data: {} });
      return formatStoredLine({ body: Buffer.from(body), receivedAt: new Date('2026-11-20T10:00:00Z'), scheme: 'hmac-sha256-hex', signature: 'x', id, type: 'transaction.created' });
    });
    writeFileSync(store, `${lines.join('\n')}\n`, { mode: 0o600 });
    const to = server.baseUrl.replace(/\/api\/v1\/partner$/, '/hooks');
    const r = await runCli(['webhooks', 'resend', '--from-store', store, '--to', to, '--secret', 'whsec_cert'], { env: { NODE_EXTRA_CA_CERTS: ca.certPath } });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(
      /^error: CERTIFICATE: POST https:\/\/127\.0\.0\.1:\d+\/hooks: the server's certificate is not for 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\); not retried: 3 of 3 deliveries not sent$/m,
    );
    expect(r.stderr).toContain('hint: it was issued for api.example.test: check the host in --to');
    expect(server.requests).toEqual([]);
  });

  it('doctor: reachable fails with the refusal and its hint, whatever the refusal', async () => {
    for (const [pem, hint] of [
      [otherHost(), 'it was issued for api.example.test: check the host in the base URL'],
      [ca.leaf('127.0.0.1', 'IP:127.0.0.1', '20200101000000Z', '20200201000000Z'), 'it was valid from 2020-01-01T00:00:00Z to 2020-02-01T00:00:00Z; the service must renew it'],
    ] as const) {
      const server = await serve(pem);
      const r = await runCli(['doctor'], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl, NODE_EXTRA_CA_CERTS: ca.certPath } });
      expect(r.code, r.stderr).toBe(8);
      const reachable = r.stdout.split('\n').find((l) => l.includes('reachable'));
      expect(reachable).toMatch(/fail {2}reachable +GET https:\/\/127\.0\.0\.1:\d+\/\S+: the server's certificate (is not for 127\.0\.0\.1|expired on 2020-02-01) \(\w+\) — /);
      expect(reachable).toContain(hint);
      expect(server.requests).toEqual([]);
    }
  });
});

describe.skipIf(!openssl)('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment', () => {
  // Node's switch turns off every check a caller leaves to its default: the CLI states its own.
  const env = (baseUrl: string) => ({ OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: baseUrl, NODE_EXTRA_CA_CERTS: ca.certPath, NODE_TLS_REJECT_UNAUTHORIZED: '0' });

  it('changes nothing: a certificate for another host is still refused, and no key reaches the server', async () => {
    const server = await serve(ca.leaf('api.example.test', 'DNS:api.example.test', '20200101000000Z', '20991231000000Z'));
    const r = await runCli(['tx', 'get', TX_ID, '--retries', '0'], { env: env(server.baseUrl) });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/^error: CERTIFICATE: GET https:\/\/127\.0\.0\.1:\d+\/\S+: the server's certificate is not for 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\)$/m);
    expect(server.requests).toEqual([]);
    const untrusted = await serve(ca.selfSigned('127.0.0.1', 'IP:127.0.0.1'));
    const u = await runCli(['tx', 'get', TX_ID, '--retries', '0'], { env: env(untrusted.baseUrl) });
    expect(u.code, u.stderr).toBe(7);
    expect(u.stderr).toMatch(/^hint: .*NODE_EXTRA_CA_CERTS/m);
    expect(untrusted.requests).toEqual([]);
  });

  it('doctor names the variable and what it means, and its reachable check still fails', async () => {
    const server = await serve(ca.selfSigned('127.0.0.1', 'IP:127.0.0.1'));
    const r = await runCli(['doctor'], { env: env(server.baseUrl) });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stdout).toMatch(/! warn {2}certificates +NODE_TLS_REJECT_UNAUTHORIZED=0 is set: offramp still checks certificates, but other Node programs here accept any certificate; unset it, and trust a private CA with NODE_EXTRA_CA_CERTS$/m);
    expect(r.stdout).toMatch(/fail {2}reachable .*DEPTH_ZERO_SELF_SIGNED_CERT/);
    expect(server.requests).toEqual([]);
  });
});
