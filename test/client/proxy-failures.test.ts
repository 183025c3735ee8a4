// Proxies that fail, named as such: one that never answers the CONNECT, one that closes
// every CONNECT, one that refuses (403), one that wants credentials (407), one that is
// down; then Debian's squid and tinyproxy at their shipped rules (CONNECT only to port
// 443) and with open rules. Each run is bounded by --timeout and --retries, names the
// proxy (never the service) and, for `tx create`, says NOT_SENT when the tunnel never
// opened; the emulator behind the proxy confirms what it received.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { closedPort, failingProxy, realProxy, SQUID, TINYPROXY } from '../helpers/faulty.js';
import { runMain } from '../helpers/main.js';
import { partner } from '../tx/partner.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
let servicePort: string;
beforeAll(async () => {
  emu = await emulatorFor();
  servicePort = new URL(emu.emulator.url).port;
});
afterAll(() => emu.close());

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A command through `proxy` (http_proxy: the emulator is plain http on loopback), timed. */
async function through(proxy: string, args: string[], env: Record<string, string> = {}) {
  const started = Date.now();
  const r = await runMain(args, { env: { ...emu.env, http_proxy: proxy, ...env } });
  return { ...r, ms: Date.now() - started };
}

const createArgs = (ref: string) => ['tx', 'create', '--fiat-amount', '5000', '--token', 'usdt', '--network', 'bep20', '--ref', ref];
const transactionsWithRef = async (ref: string) => (await partner(emu.emulator.url, TEST_KEY).all()).filter((t) => t.merchant_reference === ref);

describe('a proxy that fails the CONNECT', () => {
  it('never answers: the attempt ends at --timeout, naming the proxy; doctor ends too', async () => {
    const proxy = await failingProxy('silent');
    closers.push(proxy.close);
    const r = await through(proxy.url, ['tx', 'list', '--timeout', '500', '--retries', '0']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: PROXY: GET http://127.0.0.1:${servicePort}/api/v1/partner/transactions?limit=20: proxy ${proxy.url} did not open a tunnel to 127.0.0.1:${servicePort} within 500 ms`);
    expect(r.stderr).toMatch(/hint: .*NO_PROXY/);
    expect(r.stderr).not.toContain('is the service');
    expect(r.ms).toBeGreaterThanOrEqual(450);
    expect(r.ms).toBeLessThan(500 + 5000);

    const doctor = await through(proxy.url, ['doctor', '--json', '--timeout', '500', '--retries', '0']);
    expect(doctor.code).toBe(8);
    const checks = JSON.parse(doctor.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === 'proxy')).toMatchObject({ status: 'pass', detail: `${proxy.url} (from http_proxy)` });
    expect(checks.find((c) => c.name === 'reachable')).toMatchObject({ status: 'fail', detail: expect.stringContaining(`proxy ${proxy.url} did not open a tunnel`) });
    expect(doctor.ms).toBeLessThan(500 + 5000);
  });

  it('closes every CONNECT: one CONNECT per attempt, --retries bounds them, with backoff between', async () => {
    const proxy = await failingProxy('close');
    closers.push(proxy.close);
    const r = await through(proxy.url, ['tx', 'list', '--timeout', '3000', '--retries', '2']);
    expect(r.code).toBe(7);
    expect(proxy.connects()).toBe(3);
    expect(r.stderr).toContain(`proxy ${proxy.url} closed the connection without opening a tunnel to 127.0.0.1:${servicePort}`);
    const none = await failingProxy('close');
    closers.push(none.close);
    expect((await through(none.url, ['tx', 'list', '--retries', '0'])).code).toBe(7);
    expect(none.connects()).toBe(1);
  });

  it('refuses (403): the proxy refused the tunnel, most allow CONNECT only to 443; not retried', async () => {
    const proxy = await failingProxy(403);
    closers.push(proxy.close);
    const r = await through(proxy.url, ['tx', 'list', '--retries', '3']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: PROXY: GET http://127.0.0.1:${servicePort}/api/v1/partner/transactions?limit=20: proxy ${proxy.url} refused the tunnel to 127.0.0.1:${servicePort} (HTTP 403)`);
    expect(r.stderr).toContain("hint: many proxies allow CONNECT only to port 443; ask the proxy's administrator to allow");
    expect(r.stderr).toContain('or add 127.0.0.1 to NO_PROXY to go direct');
    expect(proxy.connects()).toBe(1);
  });

  it('wants credentials (407): says how to give them; with wrong ones says they were refused, never showing them', async () => {
    const proxy = await failingProxy(407);
    closers.push(proxy.close);
    const r = await through(proxy.url, ['tx', 'list', '--retries', '0']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`proxy ${proxy.url} wants credentials (HTTP 407)`);
    expect(r.stderr).toContain(`hint: give them in the proxy URL: http_proxy=http://USER:PASSWORD@127.0.0.1:${proxy.port}`);
    const wrong = await through(proxy.url.replace('http://', 'http://ops:pr0xy-s3cret@'), ['tx', 'list', '--retries', '0']);
    expect(wrong.stderr).toContain(`proxy ${proxy.url} did not accept the credentials in http_proxy (HTTP 407)`);
    expect(wrong.stderr).not.toContain('pr0xy-s3cret');
  });

  it('is down: the proxy refused the connection, not the service', async () => {
    const port = await closedPort();
    const r = await through(`127.0.0.1:${port}`, ['tx', 'list', '--retries', '1']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`proxy http://127.0.0.1:${port} refused the connection (ECONNREFUSED)`);
    expect(r.stderr).toContain('hint: is the proxy running? check http_proxy, or add 127.0.0.1 to NO_PROXY to go direct');
    expect(r.stderr).not.toContain('is the service');
  });

  it('tx create whose tunnel was refused or never opened is NOT_SENT, and the service has nothing', async () => {
    for (const behaviour of [403, 'silent', 'close'] as const) {
      const proxy = await failingProxy(behaviour);
      closers.push(proxy.close);
      const ref = `proxy-refused-${behaviour}`;
      const r = await through(proxy.url, [...createArgs(ref), '--timeout', '500', '--retries', '1']);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(/error: NOT_SENT: transaction "proxy-refused-\S+" was not created: .*proxy http:\/\/127\.0\.0\.1:\d+ .*; nothing was sent/);
      expect(r.stderr).not.toContain('OUTCOME_UNKNOWN');
      expect(await transactionsWithRef(ref)).toEqual([]);
    }
  });
});

describe('a proxy variable that cannot be read', () => {
  it('is a one-line usage error naming the variable, nothing sent; doctor reports it as a failed check', async () => {
    const r = await through('http://[::1', ['tx', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')[0]).toBe('error: USAGE: http_proxy is not a proxy URL ("http://[::1")');
    const doctor = await through('http://[::1', ['doctor', '--json']);
    expect(doctor.code).toBe(8);
    const checks = JSON.parse(doctor.stdout) as { name: string; status: string; detail: string }[];
    expect(checks.find((c) => c.name === 'proxy')).toMatchObject({ status: 'fail', detail: expect.stringContaining('http_proxy is not a proxy URL') });
    expect(checks.find((c) => c.name === 'reachable')).toBeUndefined();
  });

  it('host:port with no scheme is an http proxy; NO_PROXY takes a CIDR range; an empty http_proxy beside HTTP_PROXY is direct, as doctor says', async () => {
    const proxy = await failingProxy(403);
    closers.push(proxy.close);
    const hostPort = await through(`127.0.0.1:${proxy.port}`, ['tx', 'list', '--retries', '0']);
    expect(hostPort.stderr).toContain(`proxy ${proxy.url} refused the tunnel`);
    const cidr = await through(proxy.url, ['tx', 'list', '--json'], { NO_PROXY: '10.0.0.0/8,127.0.0.0/8' });
    expect(cidr.code, cidr.stderr).toBe(0);
    const empty = await runMain(['tx', 'list', '--json'], { env: { ...emu.env, http_proxy: '', HTTP_PROXY: proxy.url } });
    expect(empty.code, empty.stderr).toBe(0);
    const doctor = await runMain(['doctor', '--json'], { env: { ...emu.env, http_proxy: '', HTTP_PROXY: proxy.url } });
    const check = (JSON.parse(doctor.stdout) as { name: string; status: string; detail: string }[]).find((c) => c.name === 'proxy');
    expect(check).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^none: HTTP_PROXY set but not read for an http URL/) });
    expect(proxy.connects()).toBe(1);
  });
});

describe.each([
  ['squid', SQUID],
  ['tinyproxy', TINYPROXY],
] as const)('%s', (kind, binary) => {
  // Started once for both cases: one port at the shipped rules, one open.
  let proxy: Awaited<ReturnType<typeof realProxy>> | undefined;
  beforeAll(async () => {
    if (existsSync(binary)) proxy = await realProxy(kind);
  });
  afterAll(() => proxy?.close());

  it.skipIf(!existsSync(binary))('at its shipped rules refuses the tunnel to a port other than 443: named, and tx create is NOT_SENT', async () => {
    const url = proxy!.shipped;
    const r = await through(url, ['tx', 'list', '--timeout', '3000', '--retries', '0']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`proxy ${url} refused the tunnel to 127.0.0.1:${servicePort} (HTTP 403)`);
    expect(r.stderr).toContain('many proxies allow CONNECT only to port 443');
    expect(r.ms).toBeLessThan(3000 + 5000);
    const ref = `${kind}-refused`;
    const create = await through(url, [...createArgs(ref), '--timeout', '3000', '--retries', '0']);
    expect(create.code).toBe(7);
    expect(create.stderr).toContain('error: NOT_SENT: ');
    expect(await transactionsWithRef(ref)).toEqual([]);
  });

  it.skipIf(!existsSync(binary))('with open rules carries the requests: tx create makes exactly one transaction', async () => {
    const url = proxy!.open;
    const list = await through(url, ['tx', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const ref = `${kind}-open`;
    const create = await through(url, [...createArgs(ref), '--json']);
    expect(create.code, create.stderr).toBe(0);
    expect(JSON.parse(create.stdout)).toMatchObject({ merchant_reference: ref });
    expect(await transactionsWithRef(ref)).toHaveLength(1);
  });
});
