// Webhook signature schemes end to end, in process: `webhooks listen` accepting every
// scheme of the catalogue (and only the pinned one with --scheme or a profile's setting),
// keeping scheme, time and header with each stored event; `webhooks verify` plain, --detect
// and --from-store; `offramp emulator --signature-scheme`. Every signature
// here is made by the test with node:crypto, never by the code under test.
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as runEmulator } from '../../src/commands/emulator/serve.js';
import { createManualClock, startEmulator } from '../../src/emulator/index.js';
import { IO } from '../../src/lib/io.js';
import { tempHome } from '../helpers/cli.js';
import { killListeners, listenInProcess } from '../helpers/listener.js';
import { runMain } from '../helpers/main.js';

const SECRET = 'whsec_schemes_e2e_77a1';
const TX = '0b6f6a4e-6d2b-4c57-9a57-2a3f1f0e9a91';

const hmac = (alg: 'sha256' | 'sha512', data: string | Buffer, secret = SECRET) => createHmac(alg, secret).update(data).digest();
const nowSec = () => Math.floor(Date.now() / 1000);
const stamped = (body: string, t = nowSec(), secret = SECRET) => `t=${t},v1=${hmac('sha256', `${t}.${body}`, secret).toString('hex')}`;

/** One header per scheme, each as a signer of that scheme would send it. */
const SIGNERS: Record<string, (body: string) => string> = {
  'hmac-sha256-hex': (b) => hmac('sha256', b).toString('hex'),
  'hmac-sha256-base64': (b) => hmac('sha256', b).toString('base64'),
  'hmac-sha512-hex': (b) => hmac('sha512', b).toString('hex'),
  'hmac-sha512-base64': (b) => hmac('sha512', b).toString('base64url'),
  'prefixed-sha256-hex': (b) => `sha256=${hmac('sha256', b).toString('hex')}`,
  'prefixed-sha512-hex': (b) => `sha512=${hmac('sha512', b).toString('hex')}`,
  'timestamped-sha256': (b) => stamped(b),
};

const event = (id: string, type = 'transaction.created') => JSON.stringify({ id, type, data: { id: TX, status: 'awaiting_deposit' } });

const post = (url: string, body: string, signature: string) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-webhook-signature': signature } }).then((r) => r.status);

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  killListeners();
  for (const c of closers.splice(0)) await c();
});

/** `offramp webhooks listen` with the test's secret. */
const listen = (args: string[], env: Record<string, string> = {}) => listenInProcess(args, { OFFRAMP_WEBHOOK_SECRET: SECRET, ...env });

const storeFile = () => join(mkdtempSync(join(tmpdir(), 'offramp-schemes-')), 'events.ndjson');
const storedLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);

/** A home whose current profile `p` holds a webhook secret and, optionally, a pinned scheme. */
function homeWithProfile(secret: string, signatureScheme?: string) {
  const home = tempHome();
  mkdirSync(home.configDir, { recursive: true });
  const profile = { env: 'local', baseUrl: 'http://127.0.0.1:4010/api/v1/partner', webhookSecret: secret, ...(signatureScheme ? { service: { signatureScheme } } : {}) };
  writeFileSync(join(home.configDir, 'config.json'), JSON.stringify({ current: 'p', profiles: { p: profile } }), { mode: 0o600 });
  return home;
}

describe('webhooks listen and the signature catalogue', { timeout: 60_000 }, () => {
  it('accepts every scheme by default, shows which matched, and stores it with the header and the time', async () => {
    const store = storeFile();
    const l = listen(['--store', store]);
    const url = await l.url;
    expect(l.stderr()).toContain('Accepting any signature scheme of the catalogue (timestamps within 300 s)');
    const sent: { scheme: string; body: string; header: string }[] = [];
    for (const [i, [scheme, signer]] of Object.entries(SIGNERS).entries()) {
      const body = event(`evt-${i}-${scheme}`);
      const header = signer(body);
      sent.push({ scheme, body, header });
      expect(await post(url, body, header), scheme).toBe(200);
    }
    const shown = await l.lines(sent.length);
    for (const [i, s] of sent.entries()) {
      expect(shown[i]).toMatch(new RegExp(`  200  transaction\\.created +evt-${i}-${s.scheme}  tx ${TX}  awaiting_deposit  ${s.scheme}$`));
    }
    const stopped = await l.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stdout + stopped.stderr).not.toContain(SECRET);
    const stored = storedLines(store);
    expect(stored.map((s) => [s.id, s.scheme, s.signature, s.body])).toEqual(sent.map((s, i) => [`evt-${i}-${s.scheme}`, s.scheme, s.header, s.body]));
    for (const s of stored) expect(Date.now() - Date.parse(s.received_at!)).toBeLessThan(60_000);
  });

  it('--scheme pins one: a timestamped delivery is refused (401) and not stored; -o ndjson carries the scheme', async () => {
    const store = storeFile();
    const l = listen(['--store', store, '--scheme', 'hmac-sha256-hex', '-o', 'ndjson']);
    const url = await l.url;
    expect(l.stderr()).toContain('Accepting only hmac-sha256-hex signatures (--scheme)');
    const refused = event('evt-ts');
    expect(await post(url, refused, stamped(refused))).toBe(401);
    const accepted = event('evt-hex');
    expect(await post(url, accepted, SIGNERS['hmac-sha256-hex']!(accepted))).toBe(200);
    const [first, second] = (await l.lines(2)).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ outcome: 'rejected', http_status: 401, scheme: null, error: 'signed with timestamped-sha256, but only hmac-sha256-hex is accepted' });
    expect(second).toMatchObject({ outcome: 'accepted', http_status: 200, id: 'evt-hex', scheme: 'hmac-sha256-hex' });
    await l.stop();
    expect(storedLines(store).map((s) => s.id)).toEqual(['evt-hex']);
  });

  it('refuses a timestamp outside the tolerance (configurable), saying so', async () => {
    const store = storeFile();
    const l = listen(['--store', store, '--tolerance', '10']);
    const url = await l.url;
    const stale = event('evt-stale');
    expect(await post(url, stale, stamped(stale, nowSec() - 60))).toBe(401);
    const future = event('evt-future');
    expect(await post(url, future, stamped(future, nowSec() + 60))).toBe(401);
    const fresh = event('evt-fresh');
    expect(await post(url, fresh, stamped(fresh, nowSec() - 2))).toBe(200);
    const shown = await l.lines(3);
    expect(shown[0]).toMatch(/401  bad signature, not stored  \(claims id evt-stale\)  the timestamped signature matches, but its timestamp \(t=\d+\) is \d+ s old, outside the tolerance of 10 s$/);
    expect(shown[1]).toMatch(/s in the future, outside the tolerance of 10 s$/);
    await l.stop();
    expect(storedLines(store).map((s) => s.id)).toEqual(['evt-fresh']);
  });

  it("takes the pin from the profile's setting, which --scheme any lifts", async () => {
    const home = homeWithProfile(SECRET, 'timestamped-sha256');
    const body = event('evt-profile');
    const pinned = listen(['--store', storeFile()], { ...home.env, OFFRAMP_WEBHOOK_SECRET: '' });
    const url = await pinned.url;
    expect(pinned.stderr()).toContain("Accepting only timestamped-sha256 signatures (the profile's setting");
    expect(await post(url, body, SIGNERS['hmac-sha256-hex']!(body))).toBe(401);
    expect(await post(url, body, stamped(body))).toBe(200);
    await pinned.stop();
    const open = listen(['--store', storeFile(), '--scheme', 'any'], { ...home.env, OFFRAMP_WEBHOOK_SECRET: '' });
    expect(await post(await open.url, body, SIGNERS['hmac-sha256-hex']!(body))).toBe(200);
    await open.stop();
  });

  it('an unknown scheme is a usage error naming the catalogue, before listening', async () => {
    const r = await runMain(['webhooks', 'listen', '--port', '0', '--scheme', 'hmac-md5'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: USAGE: --scheme: unknown signature scheme "hmac-md5"');
    expect(r.stderr).toContain('hmac-sha256-hex, hmac-sha256-base64, hmac-sha512-hex, hmac-sha512-base64, prefixed-sha256-hex, prefixed-sha512-hex, timestamped-sha256');
    expect(r.stderr).not.toContain('Listening');
    const bad = await runMain(['webhooks', 'listen', '--port', '0', '--tolerance', '-5'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(bad.code).toBe(2);
  });
});

describe('webhooks verify and the catalogue', { timeout: 60_000 }, () => {
  const body = JSON.stringify({ id: '5d0e0000-0000-4000-8000-00000000007a', type: 'deposit.detected', data: { id: TX } });

  it('says which scheme verified; exit 8 with the reason otherwise', async () => {
    for (const [scheme, signer] of Object.entries(SIGNERS)) {
      const r = await runMain(['webhooks', 'verify', '--signature', signer(body), '--json'], { stdin: body, env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
      expect(r.code, `${scheme}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ valid: true, scheme, bytes: body.length, id: '5d0e0000-0000-4000-8000-00000000007a', type: 'deposit.detected' });
    }
    const text = await runMain(['webhooks', 'verify', '--secret', SECRET, '--signature', SIGNERS['prefixed-sha512-hex']!(body)], { stdin: body });
    expect(text.stdout).toBe(`valid: the signature matches the ${body.length}-byte body under prefixed-sha512-hex (event 5d0e0000-0000-4000-8000-00000000007a, deposit.detected)\n`);

    const pinned = await runMain(['webhooks', 'verify', '--secret', SECRET, '--scheme', 'hmac-sha256-hex', '--signature', stamped(body)], { stdin: body });
    expect(pinned.code).toBe(8);
    expect(pinned.stderr).toContain('error: CHECK_FAILED: invalid: signed with timestamped-sha256, but only hmac-sha256-hex is accepted');
    const stale = await runMain(['webhooks', 'verify', '--secret', SECRET, '--signature', stamped(body, nowSec() - 400)], { stdin: body });
    expect(stale.code).toBe(8);
    expect(stale.stderr).toMatch(/is 4\d\d s old, outside the tolerance of 300 s/);
    const wider = await runMain(['webhooks', 'verify', '--secret', SECRET, '--tolerance', '600', '--signature', stamped(body, nowSec() - 400)], { stdin: body });
    expect(wider.code).toBe(0);
    const forged = await runMain(['webhooks', 'verify', '--secret', SECRET, '--signature', SIGNERS['hmac-sha512-base64']!(`${body} `)], { stdin: body });
    expect(forged.code).toBe(8);
    expect(forged.stderr).toMatch(/error: CHECK_FAILED: invalid: the signature does not match the \d+-byte body/);
    const newline = await runMain(['webhooks', 'verify', '--secret', SECRET, '--signature', stamped(body)], { stdin: `${body}\n` });
    expect(newline.stderr).toMatch(/hint: it matches the body without its trailing newline/);
    const unknown = await runMain(['webhooks', 'verify', '--secret', SECRET, '--scheme', 'nope', '--signature', 'x'], { stdin: body });
    expect(unknown.code).toBe(2);
    for (const r of [text, pinned, stale, forged, newline, unknown]) expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('--detect tries every secret at hand and names the matches by where the secret came from', async () => {
    const home = homeWithProfile('whsec_profile_secret_x1');
    const header = SIGNERS['hmac-sha256-base64']!(body);
    const r = await runMain(['webhooks', 'verify', '--detect', '--secret', 'whsec_flag_secret_y2', '--signature', header, '--json'], {
      stdin: body,
      env: { ...home.env, OFFRAMP_WEBHOOK_SECRET: SECRET },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      matches: [{ scheme: 'hmac-sha256-base64', secret: 'OFFRAMP_WEBHOOK_SECRET' }],
      bytes: body.length,
      id: '5d0e0000-0000-4000-8000-00000000007a',
      type: 'deposit.detected',
    });
    // The profile's secret is tried too, labelled with the profile's name.
    const byProfile = await runMain(['webhooks', 'verify', '--detect', '--secret', 'whsec_flag_secret_y2', '--signature', `sha256=${hmac('sha256', body, 'whsec_nobody').toString('hex')}`], {
      stdin: body,
      env: { ...home.env },
    });
    expect(byProfile.code).toBe(8);
    expect(byProfile.stderr).toContain('with any of 2 secrets (--secret, profile p)');
    const profileSigned = `sha256=${hmac('sha256', body, 'whsec_profile_secret_x1').toString('hex')}`;
    const text = await runMain(['webhooks', 'verify', '--detect', '--secret', 'whsec_flag_secret_y2', '--signature', profileSigned], { stdin: body, env: home.env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('prefixed-sha256-hex  secret from profile p\nhmac-sha256-hex  secret from profile p\n');
    // None matches: exit 8, and with --json the empty list is still printed.
    const none = await runMain(['webhooks', 'verify', '--detect', '--secret', 'whsec_flag_secret_y2', '--signature', header, '--json'], { stdin: body });
    expect(none.code).toBe(8);
    expect(JSON.parse(none.stdout)).toMatchObject({ matches: [] });
    for (const x of [r, byProfile, text, none]) {
      for (const s of [SECRET, 'whsec_flag_secret_y2', 'whsec_profile_secret_x1']) expect(x.stdout + x.stderr).not.toContain(s);
    }
  });

  it('--from-store re-verifies the exact bytes a listener stored (last event, or --event); an old line is a usage error', async () => {
    const store = storeFile();
    const l = listen(['--store', store]);
    const url = await l.url;
    const a = `${JSON.stringify({ id: 'evt-a', type: 'transaction.created', data: { id: TX } }, null, 2)}\n`;
    const b = event('evt-b', 'deposit.detected');
    expect(await post(url, a, stamped(a))).toBe(200);
    expect(await post(url, b, SIGNERS['hmac-sha512-hex']!(b))).toBe(200);
    await l.lines(2);
    await l.stop();

    const last = await runMain(['webhooks', 'verify', '--from-store', store, '--json'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(last.code, last.stderr).toBe(0);
    expect(JSON.parse(last.stdout)).toEqual({ valid: true, scheme: 'hmac-sha512-hex', bytes: Buffer.byteLength(b), id: 'evt-b', type: 'deposit.detected' });
    // A timestamped one is judged at the time it was received, however long ago that is.
    const byId = await runMain(['webhooks', 'verify', '--from-store', store, '--event', 'evt-a'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toBe(`valid: the signature matches the ${Buffer.byteLength(a)}-byte body under timestamped-sha256 (event evt-a, transaction.created)\n`);
    const detected = await runMain(['webhooks', 'verify', '--from-store', store, '--event', 'evt-a', '--detect', '--json'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(JSON.parse(detected.stdout).matches).toEqual([{ scheme: 'timestamped-sha256', secret: 'OFFRAMP_WEBHOOK_SECRET' }]);
    const wrongSecret = await runMain(['webhooks', 'verify', '--from-store', store, '--secret', 'whsec_not_it'], {});
    expect(wrongSecret.code).toBe(8);
    expect(wrongSecret.stderr).toContain('(stored event evt-b)');
    const missing = await runMain(['webhooks', 'verify', '--from-store', store, '--event', 'nope'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('error: NOT_FOUND: ');
    expect(missing.stderr).toContain('no event nope in it');

    // Received long ago: the timestamp is judged against received_at, not today's clock.
    const longAgo = Date.parse('2026-01-05T09:30:00.000Z');
    const tOld = Math.floor(longAgo / 1000);
    const archived = join(mkdtempSync(join(tmpdir(), 'offramp-archived-')), 'archived.ndjson');
    const line = { v: 2, id: 'evt-old-ts', type: 'transaction.created', received_at: new Date(longAgo + 2000).toISOString(), scheme: 'timestamped-sha256', signature: stamped(b, tOld), body: b };
    writeFileSync(archived, `${JSON.stringify(line)}\n`);
    const archivedOk = await runMain(['webhooks', 'verify', '--from-store', archived], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(archivedOk.code, archivedOk.stderr).toBe(0);
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'offramp-body-')), 'body.json');
    writeFileSync(bodyFile, b);
    const today = await runMain(['webhooks', 'verify', '--file', bodyFile, '--signature', stamped(b, tOld)], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(today.code).toBe(8);
    expect(today.stderr).toContain('outside the tolerance of 300 s');

    const both = await runMain(['webhooks', 'verify', '--from-store', store, '--signature', 'abc'], { env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(both.code).toBe(2);
    const eventAlone = await runMain(['webhooks', 'verify', '--event', 'evt-a', '--signature', 'abc'], { stdin: b, env: { OFFRAMP_WEBHOOK_SECRET: SECRET } });
    expect(eventAlone.code).toBe(2);
  });
});

/** A webhook endpoint recording each delivery's body and headers; answers `status()` (200 by default). */
async function endpoint(status: (n: number) => number = () => 200) {
  const received: { raw: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
    res.writeHead(status(received.length)).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/** Checks a timestamped header with the test's own HMAC; answers its t. */
function checkStamped(header: string | string[] | undefined, raw: string, secret: string): number {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  expect(m, String(header)).not.toBeNull();
  expect(m![2]).toBe(hmac('sha256', `${m![1]}.${raw}`, secret).toString('hex'));
  return Number(m![1]);
}

describe('the emulator signs with any scheme', { timeout: 60_000 }, () => {
  it('`offramp emulator --signature-scheme timestamped-sha256` delivers t=<now>,v1=HMAC(t.body)', async () => {
    const hook = await endpoint();
    // The command in process, stopped by its abort signal as Ctrl-C would.
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const stop = new AbortController();
    const done = runEmulator(
      { port: '0', webhookUrl: hook.url, webhookSecret: SECRET, signatureScheme: 'timestamped-sha256' },
      { io: new IO({ stdin: new PassThrough(), stdout, stderr, env: {} }), env: {}, signal: stop.signal },
    );
    closers.push(() => (stop.abort(), done));
    const base = await vi.waitUntil(() => (err.includes('press Ctrl-C to stop') ? /^(http:\/\/\S+)\n/.exec(out)?.[1] : undefined), { timeout: 10_000 });
    expect(err).toContain('(timestamped-sha256)');
    const res = await fetch(`${base}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_emulator', 'content-type': 'application/json', 'idempotency-key': 'schemes-e2e-1' },
      body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'schemes-1' }),
    });
    expect(res.status).toBe(201);
    const d = await vi.waitUntil(() => hook.received[0], { timeout: 10_000 });
    const t = checkStamped(d.headers['x-svc-webhook-signature'], d.raw, SECRET);
    expect(Math.abs(t - nowSec())).toBeLessThanOrEqual(5);
    expect(JSON.parse(d.raw)).toMatchObject({ type: 'transaction.created' });
    stop.abort();
    expect(await done).toBe(0);
    expect(out + err).not.toContain(SECRET);
  });

  it('an unknown --signature-scheme is a usage error naming the catalogue', async () => {
    const r = await runMain(['emulator', '--port', '0', '--signature-scheme', 'rot13']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--signature-scheme: unknown scheme "rot13"');
    expect(r.stderr).toContain('timestamped-sha256');
  });

  it("re-signs each attempt with the emulator's clock at that attempt; the body bytes stay the same", async () => {
    const clock = createManualClock(new Date('2026-11-23T12:00:00.000Z'));
    // The first attempt is refused, and the clock moves a minute before the retry.
    const hook = await endpoint((n) => {
      if (n === 1) clock.advance(60_000);
      return n === 1 ? 500 : 200;
    });
    const emu = await startEmulator({ port: 0, clock, webhookUrl: hook.url, webhookSecret: SECRET, signatureScheme: 'timestamped-sha256', webhookRetry: { maxAttempts: 3, baseDelayMs: 5 } });
    closers.push(() => emu.close());
    const res = await fetch(`${emu.url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_emulator', 'content-type': 'application/json', 'idempotency-key': 'schemes-e2e-2' },
      body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: 'schemes-2' }),
    });
    expect(res.status).toBe(201);
    const [first, second] = await vi.waitUntil(() => (hook.received.length >= 2 ? hook.received : undefined), { timeout: 10_000 });
    expect(second!.raw).toBe(first!.raw);
    const t1 = checkStamped(first!.headers['x-svc-webhook-signature'], first!.raw, SECRET);
    const t2 = checkStamped(second!.headers['x-svc-webhook-signature'], second!.raw, SECRET);
    expect(t1).toBe(Date.parse('2026-11-23T12:00:00.000Z') / 1000);
    expect(t2).toBe(t1 + 60);
  });

  it.each([
    ['hmac-sha512-base64', (raw: string) => hmac('sha512', raw).toString('base64')],
    ['prefixed-sha256-hex', (raw: string) => `sha256=${hmac('sha256', raw).toString('hex')}`],
    [undefined, (raw: string) => hmac('sha256', raw).toString('hex')],
  ] as const)('startEmulator({ signatureScheme: %s }) signs as the catalogue says', async (signatureScheme, expected) => {
    const hook = await endpoint();
    const emu = await startEmulator({ port: 0, webhookUrl: hook.url, webhookSecret: SECRET, ...(signatureScheme ? { signatureScheme } : {}) });
    closers.push(() => emu.close());
    await fetch(`${emu.url}/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk_test_emulator', 'content-type': 'application/json', 'idempotency-key': `schemes-${signatureScheme}` },
      body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `ref-${signatureScheme}` }),
    });
    const d = await vi.waitUntil(() => hook.received[0], { timeout: 10_000 });
    expect(d.headers['x-svc-webhook-signature']).toBe(expected(d.raw));
  });

  it('startEmulator refuses an unknown signatureScheme', async () => {
    await expect(startEmulator({ port: 0, signatureScheme: 'md5' })).rejects.toThrow(/signatureScheme: unknown scheme "md5" \(the catalogue: .*timestamped-sha256\)/);
  });
});
