// `webhooks resend` (main in process) delivering a store's events to a receiving app that
// checks every signature with node:crypto: duplicated and shuffled on request, each event
// with its own id, signed under the chosen scheme; exit 8 when the app refuses any.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { formatStoredLine } from '../../src/lib/webhooks/store.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { killListeners, listenInProcess } from '../helpers/listener.js';
import { partner } from '../tx/partner.js';

const SECRET = 'whsec_resend_0b77';
const TYPES = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed'];

/** A store as `webhooks listen` writes it: one v2 line per event (signed by the service with another secret). */
function storeOf(ids: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'offramp-resend-')), 'events.ndjson');
  const lines = ids.map((id, i) => {
    const body = JSON.stringify({ id, type: TYPES[i % TYPES.length], data: { id: 'tx-resend', n: i } });
    return formatStoredLine({ body: Buffer.from(body), receivedAt: new Date('2026-11-20T10:00:00Z'), scheme: 'hmac-sha256-hex', signature: sign(body, 'service-secret'), id, type: TYPES[i % TYPES.length]! });
  });
  writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return path;
}

type Got = { id: string; headerId: string | undefined; valid: boolean; scheme: 'hex' | 'prefixed' | 'timestamped' | 'none'; body: string };

/** What a partner's consumer checks: the HMAC of the raw body (or of "t.body"), in constant time. */
function check(body: Buffer, header: string): Got['scheme'] | undefined {
  const equal = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
  const ts = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (ts) {
    const mac = createHmac('sha256', SECRET).update(`${ts[1]}.`).update(body).digest();
    const fresh = Math.abs(Date.now() / 1000 - Number(ts[1])) <= 300;
    return equal(mac, Buffer.from(ts[2]!, 'hex')) && fresh ? 'timestamped' : undefined;
  }
  const prefixed = header.startsWith('sha256=');
  return equal(createHmac('sha256', SECRET).update(body).digest(), Buffer.from(header.replace(/^sha256=/, ''), 'hex')) ? (prefixed ? 'prefixed' : 'hex') : undefined;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function app(answer: (id: string) => number = () => 200) {
  const got: Got[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const scheme = check(body, String(req.headers['x-svc-webhook-signature'] ?? ''));
    const id = JSON.parse(body.toString()).id as string;
    got.push({ id, headerId: req.headers['x-svc-webhook-id'] as string | undefined, valid: scheme !== undefined, scheme: scheme ?? 'none', body: body.toString() });
    res.writeHead(scheme ? answer(id) : 401).end(scheme ? '' : 'bad signature');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, got };
}

describe('webhooks resend', { timeout: 20_000 }, () => {
  it('re-signs every stored event, duplicated and shuffled, each with its own id; the app verifies them all', async () => {
    const ids = ['r-1', 'r-2', 'r-3', 'r-4', 'r-5'];
    const store = storeOf(ids);
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--duplicate', '2', '--shuffle', '--scheme', 'timestamped-sha256', '--secret', SECRET]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Resending 15 deliveries of 5 events to ${a.url} under timestamped-sha256, shuffled`);
    expect(r.stderr).toContain('Sent 15: 15 answered 2xx, 0 non-2xx, 0 no answer.');
    expect(a.got).toHaveLength(15);
    expect(a.got.every((g) => g.valid && g.scheme === 'timestamped' && g.headerId === g.id)).toBe(true);
    // Each event three times, its body exactly as stored.
    for (const id of ids) expect(a.got.filter((g) => g.id === id)).toHaveLength(3);
    expect(new Set(a.got.map((g) => g.body)).size).toBe(5);
    // Shuffled: not store order with the copies side by side (1 chance in ~10^10 of a false failure).
    const unshuffled = ids.flatMap((id) => [id, id, id]);
    expect(a.got.map((g) => g.id)).not.toEqual(unshuffled);
    // One line per answer, on stdout.
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(15);
    expect(lines[0]).toMatch(/^200 {2}\S+ +r-\d {2}copy [123]\/3 {2}\d+ ms$/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('signs with the default scheme and the secret from the environment; --events and --delay; -o ndjson', async () => {
    const store = storeOf(['e-1', 'e-2', 'e-3', 'e-4']);
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--events', 'deposit.*', '--delay', '1-3ms', '-o', 'ndjson'], {
      env: { OFFRAMP_WEBHOOK_SECRET: SECRET },
    });
    expect(r.code).toBe(0);
    // In store order without --shuffle; only the deposit.* events (the 2nd and 3rd).
    expect(a.got.map((g) => [g.id, g.scheme])).toEqual([
      ['e-2', 'hex'],
      ['e-3', 'hex'],
    ]);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { id: 'e-2', type: 'deposit.detected', copy: 1, copies: 1, status: 200, ok: true, ms: expect.any(Number) },
      { id: 'e-3', type: 'deposit.confirmed', copy: 1, copies: 1, status: 200, ok: true, ms: expect.any(Number) },
    ]);
  });

  it("signs with the profile's secret under the profile's pinned scheme", async () => {
    const home = tempHome();
    mkdirSync(home.configDir, { recursive: true });
    const profile = { env: 'local', baseUrl: 'http://127.0.0.1:4010/api/v1/partner', webhookSecret: SECRET, service: { signatureScheme: 'prefixed-sha256-hex' } };
    writeFileSync(join(home.configDir, 'config.json'), JSON.stringify({ current: 'p', profiles: { p: profile } }), { mode: 0o600 });
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--from-store', storeOf(['p-1']), '--to', a.url], { env: home.env });
    expect(r.code).toBe(0);
    expect(a.got.map((g) => [g.id, g.scheme])).toEqual([['p-1', 'prefixed']]);
  });

  it('exits 8 when the app answers non-2xx to any delivery, printing each answer', async () => {
    const store = storeOf(['n-1', 'n-2', 'n-3']);
    const a = await app((id) => (id === 'n-2' ? 500 : 204));
    const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--duplicate', '1'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(r.code).toBe(8);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('500'))).toHaveLength(2);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('204'))).toHaveLength(4);
    expect(r.stderr).toContain('error: CHECK_FAILED: the app answered non-2xx to 2 of 6 deliveries');
    // A wrong secret: every delivery refused by the app (401).
    const wrong = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--secret', 'not-it']);
    expect(wrong.code).toBe(8);
    expect(wrong.stdout).toMatch(/^401 {2}transaction\.created +n-1 {2}\d+ ms {2}bad signature$/m);
  });

  it('exit 7 when nothing answers; usage errors before sending', async () => {
    const store = storeOf(['u-1']);
    const none = await runMain(['webhooks', 'resend', '--from-store', store, '--to', 'http://127.0.0.1:9/'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(none.code).toBe(7);
    expect(none.stdout).toMatch(/^no answer {2}transaction\.created +u-1/);
    const env = { OFFRAMP_WEBHOOK_SECRET: SECRET };
    const usage = async (args: string[]) => (await runMain(['webhooks', 'resend', ...args], { env })).stderr;
    expect(await usage(['--from-store', store])).toContain('error: USAGE: --to is required');
    expect(await usage(['--from-store', ' ', '--to', 'http://127.0.0.1:9/'])).toContain('error: USAGE: --from-store: give a file name');
    expect(await usage(['--from-store', store, '--to', 'http://127.0.0.1:9/', '--scheme', 'any'])).toContain('--scheme any: resend signs, so it needs one scheme');
    expect(await usage(['--from-store', store, '--to', 'http://127.0.0.1:9/', '--delay', '9-3ms'])).toContain('--delay: "9-3ms" runs backwards');
    expect(await usage(['--from-store', store, '--to', 'http://127.0.0.1:9/', '--events', 'payout.settled'])).toContain('no events of payout.settled in it');
    expect(await usage(['--from-store', join(tmpdir(), 'nope.ndjson'), '--to', 'http://127.0.0.1:9/'])).toContain('no such file');
  });

  it('--event ID (repeatable) resends just those; nothing is sent when one is not in the store (exit 4, as a prefix matching none)', async () => {
    const store = storeOf(['p-1', 'p-2', 'p-3', 'p-4']);
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--event', 'p-3', '--event', 'p-1', '--secret', SECRET]);
    expect(r.code, r.stderr).toBe(0);
    // In store order, each once.
    expect(a.got.map((g) => [g.id, g.valid])).toEqual([
      ['p-1', true],
      ['p-3', true],
    ]);
    const missing = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--event', 'p-2', '--event', 'p-9', '--secret', SECRET]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`error: NOT_FOUND: --from-store ${store}: no event p-9 in it; nothing was sent`);
    expect(a.got).toHaveLength(2);
  });

  it('--event takes the 8-hex prefix a list shows, in resend and in verify --from-store, as get and replay do', async () => {
    const ids = ['43a52e42-5d0e-4a2b-9c1e-2a7d5e9b1c91', '91aa03c4-0b6f-4c1e-8d2a-4f519c1e2a7d', '91aa03c4-77aa-4c1e-8d2a-4f519c1e2a7d'];
    const store = storeOf(ids);
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--event', '43a52e42', '--secret', SECRET]);
    expect(r.code, r.stderr).toBe(0);
    expect(a.got.map((g) => [g.id, g.valid])).toEqual([[ids[0], true]]);
    const verified = await runMain(['webhooks', 'verify', '--from-store', store, '--event', '91AA03C4-77', '--json'], { env: { OFFRAMP_WEBHOOK_SECRET: 'service-secret' } });
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, id: ids[2] });
    const both = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url, '--event', '91aa03c4', '--secret', SECRET]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`error: USAGE: 91aa03c4 matches 2 stored events: ${ids[1]} (deposit.detected, received 2026-11-20T10:00:00.000Z), ${ids[2]}`);
    const none = await runMain(['webhooks', 'verify', '--from-store', store, '--event', 'deadbeef'], { env: { OFFRAMP_WEBHOOK_SECRET: 'service-secret' } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain(`error: NOT_FOUND: no stored event id starting with deadbeef among any of the 3 stored events in ${store}`);
    expect(a.got).toHaveLength(1);
  });

  it('signs as listen verified: against the emulator, its own secret, for resend, verify and verify --detect alike', async () => {
    const emu = await emulatorFor({ webhookSecret: SECRET });
    try {
      const home = tempHome();
      const env = { ...home.env, OFFRAMP_BASE_URL: emu.emulator.url };
      const store = join(home.dir, 'events.ndjson');
      const listener = listenInProcess(['--store', store, '-o', 'ndjson'], env);
      await listener.url;
      await partner(emu.emulator.url, TEST_KEY).create('secret-rule-1');
      expect(JSON.parse((await listener.lines(1))[0]!)).toMatchObject({ verified: true, type: 'transaction.created' });
      await listener.stop();

      const a = await app();
      const r = await runMain(['webhooks', 'resend', '--from-store', store, '--to', a.url], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(a.got.map((g) => [g.scheme, g.valid])).toEqual([['hex', true]]);
      const plain = await runMain(['webhooks', 'verify', '--from-store', store], { env });
      expect(plain.code, plain.stderr).toBe(0);
      const detected = await runMain(['webhooks', 'verify', '--from-store', store, '--detect'], { env });
      expect(detected.code, detected.stderr).toBe(0);
      expect(detected.stdout).toBe(`hmac-sha256-hex  secret from the emulator at ${emu.emulator.origin}\n`);
      expect(r.stdout + r.stderr + detected.stdout + detected.stderr).not.toContain(SECRET);
    } finally {
      killListeners();
      await emu.close();
    }
  });

  it("reads listen's default store when --from-store is not given", async () => {
    const home = tempHome();
    const state = join(home.dir, 'state');
    mkdirSync(join(state, 'offramp'), { recursive: true, mode: 0o700 });
    writeFileSync(join(state, 'offramp', 'webhooks.ndjson'), readFileSync(storeOf(['d-1', 'd-2']), 'utf8'), { mode: 0o600 });
    const a = await app();
    const r = await runMain(['webhooks', 'resend', '--to', a.url, '--event', 'd-2'], { env: { ...home.env, XDG_STATE_HOME: state, OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(r.code, r.stderr).toBe(0);
    expect(a.got.map((g) => [g.id, g.valid])).toEqual([['d-2', true]]);
    const empty = tempHome();
    const none = await runMain(['webhooks', 'resend', '--to', a.url], { env: { ...empty.env, OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`error: USAGE: ${join(empty.dir, '.local', 'state', 'offramp', 'webhooks.ndjson')} (the store \`webhooks listen\` writes by default): no such file`);
    expect(none.stderr).toContain('hint: run `offramp webhooks listen` first, or name a store with --from-store FILE');
    // conform --store, bare, reads the same default.
    const conform = await runMain(['conform', '--store'], { env: { ...empty.env, OFFRAMP_WEBHOOK_SECRET: SECRET, OFFRAMP_API_KEY: 'sk_test_resend_1', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(conform.code).toBe(2);
    expect(conform.stderr).toContain(`${join(empty.dir, '.local', 'state', 'offramp', 'webhooks.ndjson')}: ENOENT`);
  });
});
