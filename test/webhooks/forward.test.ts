// Forwarding that retries (webhooks listen in process): events the app did not take are retried
// until it takes them; the store records what it took, so a restarted listener forwards
// what is still owed; --events narrows what is shown and forwarded (all is stored);
// https apps with --forward-ca or --forward-insecure; the exit tally, --strict, /healthz.
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { certificateAuthority, haveOpenssl } from '../helpers/certificates.js';
import { killListeners, listenInProcess } from '../helpers/listener.js';

const SECRET = 'whsec_forward_9e02';
// Retries a few ms apart: the schedule's shape, not its pace, is what is tested.
const env = { OFFRAMP_WEBHOOK_SECRET: SECRET, OFFRAMP_RETRY_BASE_MS: '10' };

const event = (id: string, type: string) => JSON.stringify({ id, type, data: { id: 'tx-forward' } });
const post = async (url: string, body: string) => {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': sign(body, SECRET) } });
  await res.arrayBuffer();
  return res.status;
};

type Received = { id: string; path: string; valid: boolean; status: number };

/** The partner's app: answers `answer(n)` to its n-th request (from 1), and checks each signature. */
function appHandler(received: Received[], answer: (n: number) => number) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const expected = createHmac('sha256', SECRET).update(body).digest();
    const given = Buffer.from(String(req.headers['x-svc-webhook-signature'] ?? ''), 'hex');
    const status = answer(received.length + 1);
    received.push({ id: JSON.parse(body.toString()).id, path: req.url ?? '', valid: given.length === expected.length && timingSafeEqual(given, expected), status });
    res.writeHead(status).end(status >= 300 ? 'not now' : '');
  };
}

const servers: Server[] = [];
afterEach(async () => {
  killListeners();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listenOn(server: Server, scheme = 'http'): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port with nothing listening: the app is down. */
async function deadUrl(): Promise<string> {
  const s = createHttpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/hooks`;
}

const health = async (url: string) => (await fetch(`${url}healthz`)).json() as Promise<Record<string, number>>;
const tmpStore = () => join(mkdtempSync(join(tmpdir(), 'offramp-forward-')), 'events.ndjson');
const forwardedIds = (store: string) => readFileSync(`${store}.forwarded`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id as string);

describe('webhooks listen --forward-to', { timeout: 20_000 }, () => {
  it('retries what the app refused until it takes everything; records it; tallies it; /healthz agrees', async () => {
    const received: Received[] = [];
    const app = await listenOn(createHttpServer(appHandler(received, (n) => (n <= 3 ? 503 : 202))));
    const store = tmpStore();
    const listener = listenInProcess(['--store', store, '--forward-to', `${app}/hooks?source=offramp`], env);
    const url = await listener.url;
    const ids = ['f-1', 'f-2', 'f-3', 'f-4'];
    for (const id of ids) expect(await post(url, event(id, 'transaction.created'))).toBe(200);

    await expect.poll(() => new Set(received.filter((r) => r.status === 202).map((r) => r.id)).size, { timeout: 10_000 }).toBe(4);
    expect(received.every((r) => r.valid && r.path === '/hooks?source=offramp')).toBe(true);
    expect(received.filter((r) => r.status === 503)).toHaveLength(3);
    await expect.poll(() => health(url)).toMatchObject({ received: 4, stored: 4, duplicates: 0, rejected: 0, forwarded: 4, owed: 0, forwardFailures: 3 });

    const stopped = await listener.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('Stopped (SIGINT). received 4, stored 4, duplicates 0, rejected 0, forwarded 4, still owed 0; 3 forward attempts not taken.');
    // The app's answer is shown with the event id: refusals first (with the next try), then 202s.
    expect(stopped.stdout).toMatch(/ {2}→ f-\d {2}503 from http:\/\/127\.0\.0\.1:\d+\/hooks\?source=offramp in \d+ ms: not now; still owed, next try in \d+\.\d s/);
    for (const id of ids) expect(stopped.stdout).toMatch(new RegExp(`  → ${id}  202 from `));
    expect(forwardedIds(store).sort()).toEqual(ids);
  });

  it('a restart forwards what is still owed; --events narrows what is shown and forwarded; --strict fails while owed', async () => {
    const store = tmpStore();
    const down = listenInProcess(['--store', store, '--forward-to', await deadUrl(), '--events', 'transaction.*', '--strict', '-o', 'ndjson'], env);
    const url = await down.url;
    expect(await post(url, event('o-1', 'transaction.created'))).toBe(200);
    expect(await post(url, event('o-2', 'deposit.detected'))).toBe(200);
    expect(await post(url, event('o-3', 'transaction.completed'))).toBe(200);
    await expect.poll(async () => (await health(url)).forwardFailures).toBeGreaterThan(0);
    const first = await down.stop();
    // Still owed, and --strict: a check failed.
    expect(first.code).toBe(8);
    expect(first.stderr).toContain('received 3, stored 3, duplicates 0, rejected 0, forwarded 0, still owed 2; ');
    expect(first.stderr).toContain('1 not shown (--events)');
    expect(first.stderr).toMatch(/error: CHECK_FAILED: 2 event\(s\) still owed to http:\/\/127\.0\.0\.1:\d+\/hooks \(--strict\)/);
    const shown = first.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: string; forward?: { id: string; ok: boolean; retry_in_ms?: number } });
    expect(shown.filter((l) => l.id).map((l) => l.id)).toEqual(['o-1', 'o-3']);
    expect(shown.find((l) => l.forward)?.forward).toMatchObject({ ok: false, retry_in_ms: expect.any(Number) });
    // Every verified event is stored, the one not forwarded included.
    expect(readFileSync(store, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(['o-1', 'o-2', 'o-3']);

    // The app is up now (at another address); a restart owes it o-1 and o-3, never o-2.
    const received: Received[] = [];
    const app = await listenOn(createHttpServer(appHandler(received, () => 200)));
    const again = listenInProcess(['--store', store, '--forward-to', `${app}/in`, '--strict'], env);
    await again.url;
    expect(again.stderr()).toContain('2 event(s) still owed to the app from an earlier run: forwarding them now');
    await expect.poll(() => received.map((r) => r.id).sort()).toEqual(['o-1', 'o-3']);
    expect(received.every((r) => r.valid)).toBe(true);
    const second = await again.stop();
    expect(second.code).toBe(130);
    expect(second.stderr).toContain('received 0, stored 0, duplicates 0, rejected 0, forwarded 2, still owed 0.');
    expect(forwardedIds(store).sort()).toEqual(['o-1', 'o-3']);

    // Nothing is owed any more: a third run forwards nothing.
    const third = listenInProcess(['--store', store, '--forward-to', `${app}/in`], env);
    await third.url;
    expect(third.stderr()).not.toContain('still owed');
    expect((await third.stop()).stderr).toContain('forwarded 0, still owed 0.');
    expect(received).toHaveLength(2);
  });

  it('forwards to an https app with a self-signed certificate: --forward-ca trusts it, --forward-insecure skips the check', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
    } catch {
      ctx.skip('openssl is needed to make a self-signed certificate');
    }
    const received: Received[] = [];
    const app = await listenOn(createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, appHandler(received, () => 200)), 'https');

    const withCa = listenInProcess(['--store', tmpStore(), '--forward-to', `${app}/tls`, '--forward-ca', cert], env);
    expect(await post(await withCa.url, event('tls-1', 'transaction.created'))).toBe(200);
    await expect.poll(() => received.map((r) => r.id)).toEqual(['tls-1']);
    expect((await withCa.stop()).stdout).toMatch(/→ tls-1 {2}200 from https:\/\/127\.0\.0\.1:\d+\/tls in \d+ ms/);

    const insecure = listenInProcess(['--store', tmpStore(), '--forward-to', `${app}/tls`, '--forward-insecure'], env);
    await insecure.url;
    expect(insecure.stderr()).toContain("warning: --forward-insecure: the app's certificate is not checked");
    expect(await post(await insecure.url, event('tls-2', 'transaction.created'))).toBe(200);
    await expect.poll(() => received.map((r) => r.id)).toEqual(['tls-1', 'tls-2']);
    await insecure.stop();

    // Without either, the self-signed certificate is refused and the event stays owed.
    const strict = listenInProcess(['--store', tmpStore(), '--forward-to', `${app}/tls`], env);
    const url = await strict.url;
    expect(await post(url, event('tls-3', 'transaction.created'))).toBe(200);
    await expect.poll(async () => (await health(url)).forwardFailures).toBeGreaterThan(0);
    const refused = await strict.stop();
    expect(refused.stdout).toMatch(
      /→ tls-3 {2}no answer from https:\/\/127\.0\.0\.1:\d+\/tls: the server's certificate is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\) — trust the app's certificate, or its CA, with --forward-ca FILE \(a PEM file\); not retried/,
    );
    expect(refused.stderr).toContain('still owed 1');
    expect(received).toHaveLength(2);
  });

  it.skipIf(!haveOpenssl())('a refused certificate is not retried: one line with its hint, nothing more sent, every event still owed', async () => {
    const ca = certificateAuthority();
    const pem = ca.leaf('app.example.test', 'DNS:app.example.test', '20200101000000Z', '20991231000000Z');
    const received: Received[] = [];
    const app = await listenOn(createHttpsServer({ key: pem.key, cert: pem.cert }, appHandler(received, () => 200)), 'https');
    // The CA is trusted: only the host is wrong.
    const listener = listenInProcess(['--store', tmpStore(), '--forward-to', `${app}/hooks`, '--forward-ca', ca.certPath], env);
    const url = await listener.url;
    expect(await post(url, event('cert-1', 'transaction.created'))).toBe(200);
    await expect.poll(async () => (await health(url)).forwardFailures).toBe(1);
    expect(await post(url, event('cert-2', 'transaction.created'))).toBe(200);
    await expect.poll(async () => (await health(url)).owed).toBe(2);
    const stopped = await listener.stop();
    const lines = stopped.stdout.split('\n').filter((l) => l.includes('→'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /→ cert-1 {2}no answer from https:\/\/127\.0\.0\.1:\d+\/hooks: the server's certificate is not for 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\) — it was issued for app\.example\.test: check the host in --forward-to; not retried, and nothing more is forwarded in this run \(the events stay owed\)$/,
    );
    expect(stopped.stderr).toContain('still owed 2');
    expect(received).toEqual([]);
  });
});
