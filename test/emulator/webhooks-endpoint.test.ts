// Where a running emulator delivers webhooks, changed without a restart: the control plane's
// /__emulator/webhooks, `offramp emulator webhooks set-url | clear`, and `webhooks listen`
// registering itself with an emulator started without --webhook-url, then leaving it as it
// found it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verify } from '../../src/lib/webhooks/signature.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { killListeners, listenInProcess, startListener } from '../helpers/listener.js';
import { runMain } from '../helpers/main.js';
import { tempHome } from '../helpers/cli.js';
import { partner } from '../tx/partner.js';
import { eventually, webhookReceiver } from './helpers.js';
import { breakingProxy } from '../sandbox/breaking-proxy.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killListeners();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function emulator(options: Parameters<typeof emulatorFor>[0] = {}) {
  const emu = await emulatorFor(options);
  cleanups.push(emu.close);
  const endpoint = async () => ((await (await fetch(`${emu.emulator.controlUrl}/webhooks`)).json()) as { data: { url: string | null; secret: string; signature_scheme: string; registered_by: unknown } }).data;
  return { ...emu, endpoint, api: partner(emu.emulator.url, TEST_KEY) };
}

/** A store of its own for each listener: the default would be ./webhooks.ndjson, in the repository. */
const store = () => `${tempHome().dir}/events.ndjson`;

async function receiver() {
  const hooks = await webhookReceiver();
  cleanups.push(hooks.close);
  return hooks;
}

describe('offramp emulator webhooks set-url / clear', () => {
  it('points a running emulator at a URL with a new secret, then at nothing, keeping its data', async () => {
    const emu = await emulator();
    const hooks = await receiver();
    const before = await emu.api.create('hooks-set-1');
    const set = await runMain(['emulator', 'webhooks', 'set-url', hooks.url, '--secret', 'whsec_set_at_runtime'], { env: emu.env });
    // A secret typed as a flag is visible to other processes: the one line on stderr says so.
    expect(set.stderr).toMatch(/^warning: --secret is visible to other processes[^\n]*\n$/);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`webhooks: delivered to ${hooks.url}, signed with the given secret (hmac-sha256-hex); was none\n`);
    expect(set.stdout).not.toContain('whsec_set_at_runtime');

    const tx = await emu.api.create('hooks-set-2');
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    const d = hooks.deliveries[0]!;
    expect(d.body).toMatchObject({ type: 'transaction.created', data: { id: tx.id } });
    expect(verify(d.raw, 'whsec_set_at_runtime', d.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
    // What was there before the change is still there.
    expect(await emu.api.get(`/transactions/${before.id}`)).toMatchObject({ id: before.id });

    const cleared = await runMain(['emulator', 'webhooks', 'clear', '--json'], { env: emu.env });
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ url: null, signature_scheme: 'hmac-sha256-hex', previous_url: hooks.url });
    await emu.api.create('hooks-set-3');
    const failed = await eventually(async () => {
      const list = (await emu.api.get('/webhooks/events?delivery_status=failed')).data as { last_error: string }[];
      expect(list.length).toBeGreaterThan(1);
      return list;
    });
    expect(failed[0]!.last_error).toMatch(/^no webhook endpoint configured \(offramp emulator webhooks set-url URL/);
    expect(hooks.deliveries).toHaveLength(1);
    expect((await emu.endpoint()).secret).toBe('whsec_set_at_runtime');
  });

  it('refuses a URL that is not http(s) before sending anything', async () => {
    const emu = await emulator();
    for (const bad of ['not a url', 'ftp://127.0.0.1/x']) {
      const r = await runMain(['emulator', 'webhooks', 'set-url', bad], { env: emu.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: USAGE: URL: ("[^"]+" is not a URL|must be an http:\/\/ or https:\/\/ URL)/);
    }
    expect((await emu.endpoint()).url).toBeNull();
  });

  it('the control plane refuses a stale expect_url (409) and unknown fields (400)', async () => {
    const emu = await emulator({ webhookUrl: 'http://127.0.0.1:9/first' });
    const put = (body: unknown) => fetch(`${emu.emulator.controlUrl}/webhooks`, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect((await put({ url: 'http://127.0.0.1:9/second', expect_url: 'http://127.0.0.1:9/other' })).status).toBe(409);
    expect((await emu.endpoint()).url).toBe('http://127.0.0.1:9/first');
    expect((await put({ url: 'http://127.0.0.1:9/second', expect_url: 'http://127.0.0.1:9/first' })).status).toBe(200);
    expect((await put({ url: 'http://127.0.0.1:9/x', sceret: 'typo' })).status).toBe(400);
    expect((await emu.endpoint()).url).toBe('http://127.0.0.1:9/second');
  });
});

describe('webhooks listen registers with the emulator', { timeout: 30_000 }, () => {
  it('receives from an emulator started without --webhook-url, verified with its secret, and leaves it as it found it', async () => {
    const emu = await emulator();
    expect(await emu.endpoint()).toMatchObject({ url: null });
    const home = tempHome();
    // No secret given anywhere: the emulator's own is used.
    const listener = listenInProcess(['--store', `${home.dir}/events.ndjson`, '-o', 'ndjson'], { ...home.env, OFFRAMP_BASE_URL: emu.emulator.url });
    const url = await listener.url;
    expect(listener.stderr()).toContain(`The emulator at ${emu.emulator.origin} now delivers here, signed with its own secret (hmac-sha256-hex); it records only again when this stops`);
    expect((await emu.endpoint()).url).toBe(url);

    const tx = await emu.api.create('listen-register-1');
    await emu.api.simulate(tx.id, 'deposit.detected');
    const lines = (await listener.lines(2)).map((l) => JSON.parse(l) as { http_status: number; verified: boolean; type: string; transaction_id: string });
    expect(lines.map((l) => [l.http_status, l.verified, l.type, l.transaction_id]).sort()).toEqual([
      [200, true, 'deposit.detected', tx.id],
      [200, true, 'transaction.created', tx.id],
    ]);
    const stopped = await listener.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('The emulator records webhooks only again, as before.');
    expect(await emu.endpoint()).toMatchObject({ url: null, secret: 'whsec_test_emulator' });
    expect(stopped.stdout + stopped.stderr).not.toContain('whsec_test_emulator');
  });

  it('with OFFRAMP_WEBHOOK_SECRET, sets that secret on the emulator, so its deliveries verify, and puts its own back', async () => {
    const emu = await emulator({ webhookSecret: 'whsec_emulator_own_1' });
    const home = tempHome();
    const listener = listenInProcess(['--store', `${home.dir}/events.ndjson`, '-o', 'ndjson'], { ...home.env, OFFRAMP_BASE_URL: emu.emulator.url, OFFRAMP_WEBHOOK_SECRET: 'whsec_from_env_22' });
    await listener.url;
    expect(listener.stderr()).toContain('now delivers here, signed with the given secret');
    expect((await emu.endpoint()).secret).toBe('whsec_from_env_22');
    await emu.api.create('listen-env-secret-1');
    const [line] = (await listener.lines(1)).map((l) => JSON.parse(l) as { http_status: number; verified: boolean });
    expect(line).toMatchObject({ http_status: 200, verified: true });
    await listener.stop();
    expect((await emu.endpoint()).secret).toBe('whsec_emulator_own_1');
  });

  it('the built binary, stopped by a real Ctrl-C, puts the emulator back', async () => {
    const app = await receiver();
    const emu = await emulator({ webhookUrl: app.url });
    const listener = startListener(['--store', store()], { OFFRAMP_BASE_URL: emu.emulator.url });
    const url = await listener.url;
    expect((await emu.endpoint()).url).toBe(url);
    const stopped = await listener.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`The emulator delivers to ${app.url} again, as before.`);
    expect((await emu.endpoint()).url).toBe(app.url);
  });

  it('after a listener killed with SIGKILL, the next one puts back the URL set before the first (the built binary)', async () => {
    const app = await receiver();
    const emu = await emulator({ webhookUrl: app.url });
    const first = startListener(['--store', store()], { OFFRAMP_BASE_URL: emu.emulator.url });
    const firstUrl = await first.url;
    expect(await emu.endpoint()).toMatchObject({ url: firstUrl, registered_by: { pid: first.pid, command: 'webhooks listen', previous_url: app.url } });
    const shown = await runMain(['emulator', 'webhooks', 'show', '--json'], { env: emu.env });
    expect(JSON.parse(shown.stdout)).toEqual({ url: firstUrl, signature_scheme: 'hmac-sha256-hex', registered_by: { pid: first.pid, command: 'webhooks listen', previous_url: app.url, running: true } });
    expect((await first.kill()).code).toBeNull();

    // Bare, it says the registration is stale; the secret is never shown.
    const bare = await runMain(['emulator', 'webhooks'], { env: emu.env });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toMatch(new RegExp(`^  url +${firstUrl}$`, 'm'));
    expect(bare.stdout).toMatch(/^ {2}signature +hmac-sha256-hex, with the emulator's secret$/m);
    expect(bare.stdout).toContain(`\`webhooks listen\`, pid ${first.pid}, no longer running: stale; the next listener will put back ${app.url}`);
    expect(bare.stdout).not.toContain('whsec_');

    const second = startListener(['--store', store()], { OFFRAMP_BASE_URL: emu.emulator.url });
    await second.url;
    expect(second.stderr()).toContain(`note: the emulator delivered to ${firstUrl}, a stale registration (\`webhooks listen\` (pid ${first.pid}) set it and no longer runs): not put back`);
    expect(second.stderr()).toContain(`its URL ${app.url} is put back when this stops`);
    const stopped = await second.stop();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`The emulator delivers to ${app.url} again, as before the listener that stopped without putting it back.`);
    expect(await emu.endpoint()).toMatchObject({ url: app.url, registered_by: null });

    // A URL a person set, where nothing answers now (their app is down a moment): theirs, put back.
    expect((await runMain(['emulator', 'webhooks', 'set-url', 'http://127.0.0.1:9/gone'], { env: emu.env })).code).toBe(0);
    const third = listenInProcess(['--store', store()], { ...tempHome().env, OFFRAMP_BASE_URL: emu.emulator.url });
    await third.url;
    expect(third.stderr()).not.toContain('stale registration');
    expect(third.stderr()).toContain('its URL http://127.0.0.1:9/gone is put back when this stops');
    await third.stop();
    expect((await emu.endpoint()).url).toBe('http://127.0.0.1:9/gone');
    const kept = await runMain(['emulator', 'webhooks', 'show'], { env: emu.env });
    expect(kept.stdout).toMatch(/^ {2}url +http:\/\/127\.0\.0\.1:9\/gone$/m);
    expect(kept.stdout).toMatch(/^ {2}registered by +no listener/m);
  });

  it('an emulator that answers no registration mark (an older image) is registered as before, without one', async () => {
    const emu = await emulator();
    const older = await breakingProxy(emu.emulator.origin, {
      answer: (req, body) =>
        req.method === 'PUT' && req.path === '/__emulator/webhooks' && 'registered_by' in (JSON.parse(body) as object)
          ? { status: 400, body: { error: { code: 'BAD_REQUEST', message: 'unknown field: registered_by', timestamp: new Date().toISOString() } } }
          : undefined,
      rewrite: (req, body) => (req.path === '/__emulator/webhooks' ? { ...body, data: { ...body.data, registered_by: undefined } } : undefined),
    });
    cleanups.push(older.close);
    const listener = listenInProcess(['--store', store()], { ...tempHome().env, OFFRAMP_BASE_URL: older.baseUrl });
    const url = await listener.url;
    expect((await emu.endpoint()).url).toBe(url);
    expect((await listener.stop()).stderr).toContain('The emulator records webhooks only again, as before.');
    expect(await emu.endpoint()).toMatchObject({ url: null, registered_by: null });
  });

  it('puts back the URL and secret it found; leaves one set by someone else meanwhile', async () => {
    const app = await receiver();
    const emu = await emulator({ webhookUrl: app.url, webhookSecret: 'whsec_app_secret_1' });
    const env = { ...tempHome().env, OFFRAMP_BASE_URL: emu.emulator.url };
    const first = listenInProcess(['--store', store(), '--secret', 'whsec_listener_own'], env);
    await first.url;
    expect((await emu.endpoint()).secret).toBe('whsec_listener_own');
    const back = await first.stop();
    expect(back.stderr).toContain(`The emulator delivers to ${app.url} again, as before.`);
    expect(await emu.endpoint()).toMatchObject({ url: app.url, secret: 'whsec_app_secret_1' });

    const second = listenInProcess(['--store', store()], env);
    await second.url;
    expect((await runMain(['emulator', 'webhooks', 'set-url', 'http://127.0.0.1:9/other'], { env: emu.env })).code).toBe(0);
    const left = await second.stop();
    expect(left.stderr).toContain('changed by someone else meanwhile: left as it is');
    expect((await emu.endpoint()).url).toBe('http://127.0.0.1:9/other');
  });

  it('--no-register leaves the emulator alone; a production profile is told what to configure, nothing sent', async () => {
    const emu = await emulator();
    const alone = listenInProcess(['--store', store(), '--no-register', '--secret', 'whsec_x_12345'], { ...tempHome().env, OFFRAMP_BASE_URL: emu.emulator.url });
    const url = await alone.url;
    expect(alone.stderr()).toContain(`Give the service this URL. To an emulator: offramp emulator webhooks set-url ${url}`);
    expect((await emu.endpoint()).url).toBeNull();
    await alone.stop();

    // An emulator on another host could not reach the listener's 127.0.0.1: nothing is asked of it.
    const remote = listenInProcess(['--store', store(), '--secret', 'whsec_x_12345'], { ...tempHome().env, OFFRAMP_BASE_URL: 'http://192.0.2.10:4010/api/v1/partner' });
    const remoteUrl = await remote.url;
    expect(remote.stderr()).toContain(`Give the service this URL (the emulator at http://192.0.2.10:4010 is on another machine and cannot reach 127.0.0.1; nothing registered). To an emulator: offramp emulator webhooks set-url ${remoteUrl}`);
    await remote.stop();

    // A loopback server that answers 200 but is no emulator: listened to as to any other (no INTERNAL).
    const plain = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: { hello: 'world' } }));
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => plain.close(() => r())));
    const origin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const stranger = listenInProcess(['--store', store(), '--secret', 'whsec_x_12345'], { ...tempHome().env, OFFRAMP_BASE_URL: `${origin}/api/v1/partner` });
    const strangerUrl = await stranger.url;
    expect(stranger.stderr()).toContain(`Give the service this URL (${origin} does not look like an offramp emulator; nothing registered). To an emulator: offramp emulator webhooks set-url ${strangerUrl}`);
    expect((await stranger.stop()).stderr).not.toContain('INTERNAL');
    const cleared = await runMain(['emulator', 'webhooks', 'clear', '--base-url', origin]);
    expect(cleared.code).toBe(1);
    expect(cleared.stderr).toContain(`error: BAD_RESPONSE: ${origin} answered its webhook endpoint in a shape no offramp emulator sends`);

    const home = tempHome();
    const added = await runMain(['profile', 'add', 'live', '--env', 'production', '--base-url', 'https://partner.example.invalid/api/v1/partner', '--api-key-stdin', '--webhook-secret-stdin'], { env: home.env, stdin: 'sk_live_abcdef123456\nwhsec_live_abcdef\n' });
    expect(added.code, added.stderr).toBe(0);
    const prod = listenInProcess(['--store', store()], home.env);
    await prod.url;
    expect(prod.stderr()).toMatch(/A production service cannot reach 127\.0\.0\.1: expose this listener .*set that public URL as the webhook endpoint/);
    await prod.stop();
  });
});
