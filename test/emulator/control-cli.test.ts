// The control subcommands of `offramp emulator` (clock advance, reset, fault add/clear,
// state export/import, wait): `main` in process against a started emulator, aimed by
// OFFRAMP_BASE_URL; bad input refused with exit 2 and no request.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { scriptedServer } from '../helpers/server.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor({ apiKeys: [TEST_KEY, 'sk_test_cli_other'] });
});
afterAll(() => emu.close());
afterEach(() => {
  emu.emulator.reset();
});

const H = { 'x-api-key': TEST_KEY, 'content-type': 'application/json' };

async function createTx(key = TEST_KEY): Promise<string> {
  const res = await fetch(`${emu.emulator.url}/transactions`, {
    method: 'POST',
    headers: { ...H, 'x-api-key': key, 'idempotency-key': `k-${Math.random()}` },
    body: JSON.stringify({ fiat_amount: '5000', crypto_currency: 'usdt', network: 'bep20', merchant_reference: `cli-${Math.random()}` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const get = (path: string, key = TEST_KEY) => fetch(`${emu.emulator.url}${path}`, { headers: { ...H, 'x-api-key': key } });

describe('offramp emulator clock advance', () => {
  it('expires what became due, with the webhook, and says so', async () => {
    const id = await createTx();
    const r = await runMain(['emulator', 'clock', 'advance', '31m'], { env: emu.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^clock advanced 31m: emulator time \S+Z \(31m ahead of real time\); 1 transaction expired\n$/);
    expect(((await (await get(`/transactions/${id}`)).json()) as { data: { status: string } }).data.status).toBe('expired');
    const events = ((await (await get(`/webhooks/events?transaction_id=${id}`)).json()) as { data: { data: { event_type: string }[] } }).data.data;
    expect(events.map((e) => e.event_type)).toEqual(['transaction.expired', 'transaction.created']);
    const json = await runMain(['emulator', 'clock', 'advance', '1h', '--json'], { env: emu.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ advanced_ms: 3_600_000, offset_ms: 91 * 60_000, expired_transactions: 0 });
    // The offset in the units the command takes, as a duration flag is written.
    const more = await runMain(['emulator', 'clock', 'advance', '1500ms'], { env: emu.env });
    expect(more.stdout).toMatch(/\(1h31m1s500ms ahead of real time\)/);
  });
});

describe('offramp emulator reset', () => {
  it('forgets one partner with --partner (never printing the key), or everything', async () => {
    const mine = await createTx();
    const theirs = await createTx('sk_test_cli_other');
    const one = await runMain(['emulator', 'reset', '--partner', 'sk_test_cli_other'], { env: emu.env });
    expect(one.code).toBe(0);
    expect(one.stdout + one.stderr).not.toContain('sk_test_cli_other');
    expect((await get(`/transactions/${theirs}`, 'sk_test_cli_other')).status).toBe(404);
    expect((await get(`/transactions/${mine}`)).status).toBe(200);
    const unknown = await runMain(['emulator', 'reset', '--partner', 'sk_test_not_served'], { env: emu.env });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/^error: NOT_FOUND: no partner with that API key/);
    expect(unknown.stderr).not.toContain('sk_test_not_served');
    expect((await runMain(['emulator', 'reset'], { env: emu.env })).code).toBe(0);
    expect((await get(`/transactions/${mine}`)).status).toBe(404);
  });
});

describe('offramp emulator fault add / clear', () => {
  it('--status, --drop-after-commit, --latency and --webhook rules reach the emulator as given', async () => {
    const id = await createTx();
    const status = await runMain(['emulator', 'fault', 'add', '--route', 'GET /transactions/*', '--next', '1', '--status', '503'], { env: emu.env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^fault flt_\d+ added: GET \/transactions\/\*: the next 1 matching requests answer HTTP 503\n$/);
    expect((await get('/transactions')).status).toBe(200);
    expect((await get(`/transactions/${id}`)).status).toBe(503);
    expect((await get(`/transactions/${id}`)).status).toBe(200);

    const drop = await runMain(['emulator', 'fault', 'add', '--route', 'POST /transactions/*/cancel', '--drop-after-commit'], { env: emu.env });
    expect(drop.stdout).toMatch(/POST \/transactions\/\*\/cancel: until cleared matching requests are dropped after commit/);
    // `--latency` belongs to `emulator` too: the rule gets it wherever it stands.
    const latency = await runMain(['emulator', 'fault', 'add', '--route', 'GET /revenue', '--latency', '250', '--json'], { env: emu.env });
    expect(JSON.parse(latency.stdout)).toMatchObject({ kind: 'route', route: 'GET /revenue', latencyMs: 250, remaining: null });
    const hook = await runMain(['emulator', 'fault', 'add', '--webhook', '--event-type', 'deposit.confirmed', '--next', '3', '--status', '500'], { env: emu.env });
    expect(hook.stdout).toMatch(/the next 3 deposit\.confirmed deliveries fail with HTTP 500/);

    const cancel = fetch(`${emu.emulator.url}/transactions/${id}/cancel`, { method: 'POST', headers: { ...H, 'idempotency-key': 'cancel-1' } });
    await expect(cancel).rejects.toThrow();
    expect(((await (await get(`/transactions/${id}`)).json()) as { data: { status: string } }).data.status).toBe('cancelled');

    const cleared = await runMain(['emulator', 'fault', 'clear'], { env: emu.env });
    expect(cleared.stdout).toBe('cleared 3 fault rules\n');
    expect(emu.emulator.faults()).toEqual([]);
  });
});

describe('offramp emulator state export / import', () => {
  it('exports to a 0600 file and imports it into another emulator', async () => {
    const id = await createTx();
    const dir = mkdtempSync(join(tmpdir(), 'offramp-cli-state-'));
    const file = join(dir, 'snapshot.state');
    const out = await runMain(['emulator', 'state', 'export', file], { env: emu.env });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/^state written to .*snapshot\.state \(\d+ bytes\)\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{"k":"header","format":"offramp-emulator-state"/);

    const other = await emulatorFor();
    try {
      const r = await runMain(['emulator', 'state', 'import', file], { env: other.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^state imported: 1 partner, 1 transactions, 1 events, 0 ledger rows \(1 partners kept dormant/);
      const res = await fetch(`${other.emulator.url}/transactions/${id}`, { headers: { 'x-api-key': TEST_KEY } });
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('offramp emulator state export - / import -', () => {
  it('pipes the state through stdout and stdin', async () => {
    const id = await createTx();
    const out = await runMain(['emulator', 'state', 'export', '-'], { env: emu.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^\{"k":"header"/);
    emu.emulator.reset();
    expect((await get(`/transactions/${id}`)).status).toBe(404);
    const back = await runMain(['emulator', 'state', 'import', '-', '--json'], { env: emu.env, stdin: out.stdout });
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ partners: 2, transactions: 1 });
    expect((await get(`/transactions/${id}`)).status).toBe(200);
  });
});

describe('offramp emulator wait', () => {
  it('exits 0 and prints the base URL as soon as the emulator answers', async () => {
    const r = await runMain(['emulator', 'wait'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${emu.emulator.url}\n`);
  });

  it('gives up after --timeout with exit 7 when nothing answers', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    await new Promise<void>((r) => blocker.close(() => r()));
    const r = await runMain(['emulator', 'wait', '--timeout', '300', '--base-url', `http://127.0.0.1:${port}/api/v1/partner`]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^error: TIMEOUT: the emulator at http:\/\/127\.0\.0\.1:\d+ did not answer within 300 ms/);
  });
});

describe('the admin token', () => {
  it('is required when the emulator has one, read from OFFRAMP_EMULATOR_ADMIN_TOKEN, never printed', async () => {
    const guarded = await emulatorFor({ adminToken: 'cli-admin-token-1234' });
    try {
      const refused = await runMain(['emulator', 'wait'], { env: guarded.env });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/hint: give the admin token the emulator was started with: OFFRAMP_EMULATOR_ADMIN_TOKEN=/);
      const ok = await runMain(['emulator', 'clock', 'advance', '1m', '--verbose'], { env: { ...guarded.env, OFFRAMP_EMULATOR_ADMIN_TOKEN: 'cli-admin-token-1234' } });
      expect(ok.code).toBe(0);
      expect(ok.stdout + ok.stderr).not.toContain('cli-admin-token-1234');
    } finally {
      await guarded.close();
    }
  });
});

describe('one command, a server and its subcommands', () => {
  it('--help shows the server’s options and the subcommands; each subcommand has its own', async () => {
    const help = await runMain(['emulator', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: offramp emulator \[options\]\n {7}offramp emulator clock\|reset\|fault\|state\|webhooks\|wait \.\.\.\n/);
    for (const flag of ['--port <port>', '--state <file>', '--ready-file <path>', '--webhook-chaos <spec>', '--admin-token <token>']) expect(help.stdout).toContain(flag);
    for (const sub of ['clock', 'reset [options]', 'fault', 'state', 'wait']) expect(help.stdout).toMatch(new RegExp(`^  ${sub.replace(/[[\]]/g, '\\$&')} `, 'm'));
    const add = await runMain(['emulator', 'fault', 'add', '--help']);
    expect(add.stdout).toMatch(/^Usage: offramp emulator fault add \[options\]/);
    expect(add.stdout).toContain('--drop-after-commit');
  });

  it('`emulator --port 0` starts the server; `emulator clock advance 5m` is the subcommand, not the server', async () => {
    const server = await scriptedServer([
      (req, res) => {
        expect(req.method).toBe('POST');
        expect(req.url).toBe('/__emulator/clock');
        expect(JSON.parse(req.body)).toEqual({ advance_ms: 300_000 });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { now: '2026-01-01T00:05:00.000Z', advanced_ms: 300_000, offset_ms: 300_000, expired_transactions: 0 } }));
      },
    ]);
    try {
      const r = await runMain(['emulator', 'clock', 'advance', '5m', '--port', '0'], { env: { OFFRAMP_BASE_URL: server.baseUrl } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('bad input', () => {
  it.each([
    [['clock', 'advance', '30'], /not a duration/],
    [['clock', 'advance', '5 minutes'], /not a duration/],
    [['fault', 'add', '--route', 'GET transactions', '--status', '500'], /must start with \//],
    [['fault', 'add', '--route', 'GET /transactions'], /exactly one of --status CODE, --drop-after-commit and --latency DURATION/],
    [['fault', 'add', '--route', 'GET /transactions', '--status', '503', '--drop-after-commit'], /exactly one/],
    [['fault', 'add', '--route', 'GET /transactions', '--status', '200'], /error status from 400 to 599/],
    [['fault', 'add', '--route', 'GET /transactions', '--status', 'x'], /--status must be a whole number/],
    [['fault', 'add', '--route', 'GET /transactions', '--status', '500', '--next', '0'], /--next must be a whole number, 1 to/],
    [['fault', 'add', '--webhook', '--status', '204'], /300 to 599/],
    [['fault', 'add', '--webhook'], /--webhook needs --status/],
    [['fault', 'add', '--webhook', '--status', '500', '--event-type', 'tx.made'], /event type "tx\.made"/],
    [['fault', 'add', '--status', '500'], /give --route/],
    [['reset', '--partner', ''], /--partner/],
    [['state', 'import', '/nonexistent/file.state'], /cannot read \/nonexistent\/file\.state: ENOENT/],
    [['bogus'], /unknown command 'bogus' for 'offramp emulator'/],
  ])('emulator %j → exit 2, one line, no request', async (args, message) => {
    const server = await scriptedServer([]);
    try {
      const r = await runMain(['emulator', ...args], { env: { OFFRAMP_BASE_URL: server.baseUrl } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: USAGE: /);
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a file that is not a state, and a profile that is not local, are refused before any request', async () => {
    const server = await scriptedServer([]);
    const dir = mkdtempSync(join(tmpdir(), 'offramp-cli-state-'));
    writeFileSync(join(dir, 'not.state'), '{"transactions":[]}\n');
    try {
      const notState = await runMain(['emulator', 'state', 'import', join(dir, 'not.state')], { env: { OFFRAMP_BASE_URL: server.baseUrl } });
      expect(notState.code).toBe(2);
      expect(notState.stderr).toMatch(/is not an emulator state/);
      const home = { OFFRAMP_CONFIG_DIR: join(dir, 'config') };
      const added = await runMain(['profile', 'add', 'stg', '--env', 'staging', '--base-url', server.baseUrl, '--api-key-stdin'], { env: home, stdin: 'sk_live_like_key_123\n' });
      expect(added.code).toBe(0);
      const refused = await runMain(['emulator', 'reset', '--profile', 'stg'], { env: home });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/profile "stg" is a staging profile, not the emulator; nothing was sent/);
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
