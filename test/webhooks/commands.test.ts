// webhooks list / get / replay against the emulator, whose webhook endpoint first refuses
// every delivery (so events end `failed`) and then accepts: replay --failed redelivers them
// under the same ids. Then replay's edge cases (429 + Retry-After, partial failures, the
// production guard) against a scripted server, and `webhooks verify` offline.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sign } from '../../src/lib/webhooks/signature.js';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { errorBody, json, scriptedServer } from '../helpers/server.js';
import { partner } from '../tx/partner.js';

const SECRET = 'whsec_commands_test_5c1d';

/** A webhook endpoint that refuses (503) until told to accept; records what it accepted. */
async function endpoint() {
  const state = { accept: false, received: [] as { body: string; signature: string }[] };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!state.accept) return void res.writeHead(503).end('not now');
    state.received.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['x-svc-webhook-signature']) });
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise((r) => server.close(r)) };
}

describe('webhooks list, get and replay against the emulator', { timeout: 60_000 }, () => {
  let emu: Awaited<ReturnType<typeof emulatorFor>>;
  let hook: Awaited<ReturnType<typeof endpoint>>;
  let api: ReturnType<typeof partner>;
  let txId: string;
  type Telemetry = { event_id: string; event_type: string; delivery_status: string; attempts: number; aggregate_id: string };
  const events = async () => (await api.get(`/webhooks/events?transaction_id=${txId}&limit=100`)).data as Telemetry[];

  beforeAll(async () => {
    hook = await endpoint();
    emu = await emulatorFor({ webhookUrl: hook.url, webhookSecret: SECRET, webhookRetry: { maxAttempts: 2, baseDelayMs: 5 } });
    api = partner(emu.emulator.url, TEST_KEY);
    txId = (await api.create('hooks-1', '20000')).id;
    for (const e of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await api.simulate(txId, e);
    await vi.waitUntil(async () => (await events()).every((e) => e.delivery_status === 'failed'), { timeout: 10_000 });
  });
  afterAll(async () => {
    await emu.close();
    await hook.close();
  });
  const cli = (args: string[]) => runMain(args, { env: emu.env });

  it('lists with filters, pages, and prints the API data with --json', async () => {
    const failed = await cli(['webhooks', 'list', '--status', 'failed', '--tx', txId, '--all', '--json']);
    expect(failed.code, failed.stderr).toBe(0);
    const all = (JSON.parse(failed.stdout) as { data: Telemetry[] }).data;
    expect(all.map((e) => e.event_type)).toEqual(['transaction.completed', 'deposit.confirmed', 'deposit.detected', 'transaction.created']);
    expect(all).toEqual(await events());

    const one = await cli(['webhooks', 'list', '--tx', txId, '--limit', '2']);
    expect(one.code).toBe(0);
    expect(one.stdout.split('\n')[0]).toMatch(/^EVENT ID +TYPE +TRANSACTION +DELIVERY +ATTEMPTS +CREATED +LAST ERROR$/);
    expect(one.stdout.trim().split('\n')).toHaveLength(3);
    expect(one.stdout).toMatch(/transaction\.completed .* failed +2 .*endpoint answered HTTP 503$/m);
    expect(one.stderr).toMatch(new RegExp(`^more: offramp webhooks list --tx ${txId} --limit 2 --cursor \\S+ \\(or --all\\)$`, 'm'));
    const page = JSON.parse((await cli(['webhooks', 'list', '--tx', txId, '--limit', '2', '--json'])).stdout);
    expect(page).toMatchObject({ has_more: true, limit: 2, next_cursor: expect.any(String) });

    const typed = await cli(['webhooks', 'list', '--tx', txId, '--type', 'deposit.confirmed', '-o', 'ndjson']);
    expect(typed.stdout.trim().split('\n').map((l) => JSON.parse(l).event_type)).toEqual(['deposit.confirmed']);
    const csv = await cli(['webhooks', 'list', '--tx', txId, '--all', '-o', 'csv']);
    expect(csv.stdout.split('\r\n')[0]).toBe('event_id,aggregate_id,event_type,delivery_status,attempts,last_error,created_at,updated_at');
    expect(csv.stdout.split('\r\n')).toHaveLength(6);

    for (const bad of [['--type', 'transaction.done'], ['--status', 'faild'], ['--tx', 'not-a-uuid'], ['--limit', '101'], ['--from', '2026-13-01']]) {
      const r = await cli(['webhooks', 'list', ...bad]);
      expect(r.code, bad.join(' ')).toBe(2);
    }
  });

  it('get shows the telemetry, says there is no payload, and 404s an unknown id', async () => {
    const first = (await events()).at(-1);
    const r = await cli(['webhooks', 'get', first!.event_id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Webhook event [0-9a-f-]{36}\n {2}type +transaction\.created$/m);
    expect(r.stderr).toMatch(/keeps delivery telemetry only, not the payload/);
    expect(JSON.parse((await cli(['webhooks', 'get', first!.event_id, '--json'])).stdout)).toEqual(first);
    const missing = await cli(['webhooks', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(4);
    expect((await cli(['webhooks', 'get', 'abc'])).code).toBe(2);
  });

  it('replay --failed redelivers each failed event once, same id and bytes, once the endpoint accepts', async () => {
    hook.state.accept = true;
    const before = await events();
    const r = await cli(['webhooks', 'replay', '--failed', '--tx', txId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^EVENT ID +TYPE +TRANSACTION +ATTEMPTS +PUBLISH STATUS$/);
    expect(r.stdout.match(/ pending$/gm)).toHaveLength(4);
    expect(r.stderr).toContain('Replay scheduled for 4 events.');
    const after = await vi.waitUntil(
      async () => {
        const now = await events();
        return now.every((e) => e.delivery_status === 'delivered') ? now : undefined;
      },
      { timeout: 10_000 },
    );
    expect(after.map((e) => e.event_id)).toEqual(before.map((e) => e.event_id));
    expect(hook.state.received.map((d) => JSON.parse(d.body).id).sort()).toEqual(before.map((e) => e.event_id).sort());
    for (const d of hook.state.received) expect(d.signature).toBe(sign(d.body, SECRET));
    // Nothing failed is left: a second --failed has nothing to do.
    const again = await cli(['webhooks', 'replay', '--failed', '--tx', txId, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
    expect(again.stderr).toContain('No events with delivery_status "failed" match; nothing to replay.');
    // Without --failed, a window no event is in leaves nothing to do either, and says so plainly.
    const none = await cli(['webhooks', 'replay', '--tx', txId, '--from', '2099-01-01', '--json']);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr).toContain('No events match; nothing to replay.');
  });

  it('replay by id: a partial failure names what did not replay and exits with its code', async () => {
    const first = (await events()).at(-1);
    const ghost = '00000000-0000-4000-8000-00000000dead';
    const r = await cli(['webhooks', 'replay', first!.event_id, ghost]);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(new RegExp(`^${ghost} .* not replayed: NOT_FOUND: `, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${first!.event_id} +transaction\\.created .* pending$`, 'm'));
    expect(r.stderr).toContain(`error: NOT_FOUND: 1 of 2 events did not replay: ${ghost} (NOT_FOUND:`);
    expect(r.stderr).toContain(`hint: the others were scheduled; retry just these with: offramp webhooks replay ${ghost}`);
  });

  it('replay takes a short event id, and --failed narrows by --ref as list does', async () => {
    // The replay of the test before settles first: this transaction's events all delivered.
    await vi.waitUntil(async () => (await events()).every((e) => e.delivery_status === 'delivered'), { timeout: 10_000 });
    hook.state.accept = false;
    const other = (await api.create('hooks-2', '20000')).id;
    const failedOf = async (id: string) => ((await api.get(`/webhooks/events?transaction_id=${id}&limit=100`)).data as Telemetry[]).filter((e) => e.delivery_status === 'failed');
    await vi.waitUntil(async () => (await failedOf(other)).length === 1, { timeout: 10_000 });
    const none = await cli(['webhooks', 'replay', '--failed', '--ref', 'hooks-1', '--json']);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    const byRef = await cli(['webhooks', 'replay', '--failed', '--ref', 'hooks-2', '--json']);
    expect(byRef.code, byRef.stderr).toBe(0);
    expect((JSON.parse(byRef.stdout) as { aggregate_id: string }[]).map((r) => r.aggregate_id)).toEqual([other]);
    const byShortTx = await cli(['webhooks', 'replay', '--failed', '--tx', other.slice(0, 8), '--json']);
    expect(byShortTx.code, byShortTx.stderr).toBe(0);
    hook.state.accept = true;

    // --ref alone: every event of that transaction, whatever its delivery status.
    const allOfRef = await cli(['webhooks', 'replay', '--ref', 'hooks-2', '--json']);
    expect(allOfRef.code, allOfRef.stderr).toBe(0);
    const otherEvents = (await api.get(`/webhooks/events?transaction_id=${other}&limit=100`)).data as Telemetry[];
    expect((JSON.parse(allOfRef.stdout) as { event_id: string }[]).map((r) => r.event_id).sort()).toEqual(otherEvents.map((e) => e.event_id).sort());

    const first = (await events()).at(-1)!;
    const short = await cli(['webhooks', 'replay', first.event_id.slice(0, 8)]);
    expect(short.code, short.stderr).toBe(0);
    expect(short.stdout).toMatch(new RegExp(`^${first.event_id} +transaction\\.created .* pending$`, 'm'));
  });

  it('replay refuses unclear input before any request', async () => {
    for (const args of [[], ['--failed', 'x'], ['--from', '2026-11-01'], ['--ref', 'hooks-1', '--failed-status', 'failed'], ['--ref', 'hooks-1', '00000000-0000-4000-8000-000000000000'], ['nope'], ['5d0e'], ['--failed', '--tx', '0b6f3c1e', '--ref', 'r'], ['--failed', '--concurrency', '0']]) {
      const r = await cli(['webhooks', 'replay', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});

describe('webhooks list against a scripted server', () => {
  it('an empty --cursor is refused as tx list refuses it, before any request', async () => {
    const server = await scriptedServer([]);
    const r = await runMain(['webhooks', 'list', '--cursor', ' '], { env: { OFFRAMP_API_KEY: 'sk_test_list_cursor_0001', OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: USAGE: --cursor must not be empty\nhint: pass the next_cursor a previous page printed\n');
    expect(server.requests).toHaveLength(0);
  });
});

describe('webhooks replay against a scripted server', () => {
  const KEY = 'sk_test_replay_scripted_77aa';
  const ID_A = '11111111-1111-4111-8111-111111111111';
  const ID_B = '22222222-2222-4222-8222-222222222222';
  const result = (id: string) =>
    json(200, { success: true, message: 'Webhook replay scheduled', data: { event_id: id, aggregate_id: ID_B, event_type: 'deposit.detected', attempts: 3, publish_status: 'pending', replay_scheduled_at: '2026-11-22T10:00:00.000Z' } });

  it('waits out a 429 for its Retry-After, then replays', async () => {
    const server = await scriptedServer([json(429, errorBody('RATE_LIMITED', 'slow down'), { 'retry-after': '0.3' }), result(ID_A)]);
    const r = await runMain(['webhooks', 'replay', ID_A], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => q.url)).toEqual([`/api/v1/partner/webhooks/events/${ID_A}/replay`, `/api/v1/partner/webhooks/events/${ID_A}/replay`]);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(280);
    expect(r.stdout).toMatch(new RegExp(`^${ID_A} +deposit\\.detected +${ID_B} +3 +pending$`, 'm'));
  });

  it('failures of different kinds exit 1', async () => {
    const server = await scriptedServer([json(404, errorBody('NOT_FOUND', 'no such event')), json(409, errorBody('CONFLICT', 'busy'))]);
    const r = await runMain(['webhooks', 'replay', ID_A, ID_B, '--concurrency', '1'], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });
    await server.close();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: REPLAY_FAILED: 2 of 2 events did not replay: ${ID_A} (NOT_FOUND: no such event), ${ID_B} (CONFLICT: busy)`);
  });

  it('asks on a production profile: without a terminal and --yes it refuses before sending', async () => {
    const server = await scriptedServer([result(ID_A)]);
    const home = tempHome();
    const configDir = home.env.OFFRAMP_CONFIG_DIR!;
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ current: 'live', profiles: { live: { env: 'production', baseUrl: server.baseUrl, apiKey: KEY } } }),
    );
    const refused = await runMain(['webhooks', 'replay', ID_A], { env: home.env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('error: PRODUCTION: refusing to replay 1 webhook event on PRODUCTION (profile live) without confirmation; nothing was sent');
    expect(server.requests).toHaveLength(0);
    const confirmed = await runMain(['webhooks', 'replay', ID_A, '--yes'], { env: home.env });
    await server.close();
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

/** `webhooks verify` with a body on stdin; no run may print the secret. */
async function verifyCli(args: string[], stdin: string | Buffer, env: Record<string, string> = {}) {
  const r = await runMain(['webhooks', 'verify', ...args], { stdin, env });
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  return r;
}

describe('webhooks verify', () => {
  const body = JSON.stringify({ id: '5d0e0000-0000-4000-8000-00000000007a', type: 'deposit.detected', data: { id: 'x' } });
  const signature = sign(body, SECRET);

  it('a secret given (--secret, OFFRAMP_WEBHOOK_SECRET) asks nothing of the emulator the run points at', async () => {
    const server = await scriptedServer([]);
    try {
      for (const [args, env] of [[['--secret', SECRET], {}], [[], { OFFRAMP_WEBHOOK_SECRET: SECRET }]] as const) {
        const r = await verifyCli([...args, '--signature', signature], body, { ...env, OFFRAMP_BASE_URL: server.baseUrl });
        expect(r.code, r.stderr).toBe(0);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('exit 0 for a valid signature (stdin, --file, env secret), 8 for an invalid one', async () => {
    const ok = await verifyCli(['--secret', SECRET, '--signature', signature], body);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(`valid: the signature matches the ${body.length}-byte body under hmac-sha256-hex (event 5d0e0000-0000-4000-8000-00000000007a, deposit.detected)\n`);
    const file = join(mkdtempSync(join(tmpdir(), 'offramp-verify-')), 'body.json');
    writeFileSync(file, body);
    const fromFile = await verifyCli(['--signature', signature.toUpperCase(), '--file', file, '--json'], '', { OFFRAMP_WEBHOOK_SECRET: SECRET });
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toEqual({ valid: true, scheme: 'hmac-sha256-hex', bytes: body.length, id: '5d0e0000-0000-4000-8000-00000000007a', type: 'deposit.detected' });

    const tampered = await verifyCli(['--secret', SECRET, '--signature', signature], body.replace('deposit', 'Deposit'));
    expect(tampered.code).toBe(8);
    expect(tampered.stderr).toMatch(/^error: CHECK_FAILED: invalid: the signature does not match the \d+-byte body$/m);
    const wrongKey = await verifyCli(['--secret', 'whsec_other', '--signature', signature], body);
    expect(wrongKey.code).toBe(8);
  });

  it('names a trailing newline (echo) as the likely cause', async () => {
    const r = await verifyCli(['--secret', SECRET, '--signature', signature], `${body}\n`);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/hint: it matches the body without its trailing newline/);
  });

  it('bad input is exit 2; a signature of no known form is a failed check (8)', async () => {
    expect((await verifyCli(['--secret', SECRET], body)).code).toBe(2);
    expect((await verifyCli(['--secret', SECRET, '--signature', '  '], body)).code).toBe(2);
    // Other schemes look different, so the form is not a usage error: it just does not verify.
    const odd = await verifyCli(['--secret', SECRET, '--signature', 'abc'], body);
    expect(odd.code).toBe(8);
    expect(odd.stderr).toMatch(/error: CHECK_FAILED: invalid: the signature has the form of no scheme of the catalogue/);
    const noSecret = (await verifyCli(['--signature', signature], body)).stderr;
    expect(noSecret).toMatch(/error: USAGE: no webhook secret/);
    // The profile is not the store (docs/development.md, "Words"): the hint says to save the secret there.
    expect(noSecret).toContain('or save one in the profile (--webhook-secret-stdin)');
    expect((await verifyCli(['--secret', SECRET, '--signature', signature, '--file', '/nonexistent/body'], '')).code).toBe(2);
  });
});
