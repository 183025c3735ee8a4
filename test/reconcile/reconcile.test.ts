// `offramp reconcile`: against the emulator (events its endpoint refused → the printed
// replay command fixes them → clean), and against a fake partner API holding the
// inconsistencies the emulator never produces (one transaction per kind).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { runInPty } from '../helpers/pty.js';
import { partner } from '../tx/partner.js';

const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('reconcile against the emulator', { timeout: 60_000 }, () => {
  it('reports undelivered events with the replay command that fixes them; after running it, clean', async () => {
    let accept = false;
    const hook: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(accept ? 200 : 503).end();
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => hook.close(r)));
    const emu = await emulatorFor({ webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, webhookRetry: { maxAttempts: 1, baseDelayMs: 5 } });
    closers.push(() => emu.close());
    const api = partner(emu.emulator.url, TEST_KEY);
    const done = await api.create('rec-done', '45000');
    for (const e of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) await api.simulate(done.id, e);
    const waiting = await api.create('rec-waiting', '12000');
    const allEvents = async () => (await api.get('/webhooks/events?limit=100')).data as { event_id: string; delivery_status: string }[];
    await vi.waitUntil(async () => (await allEvents()).every((e) => e.delivery_status === 'failed'), { timeout: 10_000 });

    const window = ['--from', new Date(Date.now() - 3_600_000).toISOString(), '--to', new Date(Date.now() + 3_600_000).toISOString()];
    const cli = (args: string[]) => runMain(args, { env: emu.env });
    const dirty = await cli(['reconcile', ...window]);
    expect(dirty.code).toBe(8);
    const rows = dirty.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^TRANSACTION +REFERENCE +PROBLEM +DETAIL +FIX$/);
    expect(rows.slice(1)).toHaveLength(5);
    for (const e of await allEvents()) {
      expect(dirty.stdout).toMatch(new RegExp(`event not delivered .* is failed after 1 attempt \\(endpoint answered HTTP 503\\) +offramp webhooks replay ${e.event_id}$`, 'm'));
    }
    expect(dirty.stdout).toContain(`${waiting.id}  rec-waiting`);
    expect(dirty.stderr).toMatch(/^error: CHECK_FAILED: 5 discrepancies in 2 transactions \(checked 2 transactions, 1 ledger row and 5 webhook events/m);
    const fix = /^Redeliver every undelivered event: offramp (webhooks replay .+)$/m.exec(dirty.stderr)![1]!;

    accept = true;
    const replayed = await cli(fix.split(' '));
    expect(replayed.code, replayed.stderr).toBe(0);
    await vi.waitUntil(async () => (await allEvents()).every((e) => e.delivery_status === 'delivered'), { timeout: 10_000 });
    const clean = await cli(['reconcile', ...window, '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ clean: true, checked: { transactions: 2, ledger_rows: 1, events: 5 }, discrepancies: [], replay_command: null });
    expect(clean.stderr).toMatch(/^Clean: 2 transactions, 1 ledger row and 5 webhook events .*agree/m);
  });
});

describe('reconcile on a terminal', { timeout: 60_000 }, () => {
  it('shows a spinner on stderr while it reads; without a terminal, stderr has only the verdict', async () => {
    const emu = await emulatorFor();
    closers.push(() => emu.close());
    const window = ['--from', '2026-01-01', '--to', '2026-01-31'];
    const s = runInPty(['reconcile', ...window], emu.env);
    const r = await s.done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reading transactions/);
    expect(r.output).toMatch(/Clean: 0 transactions/);

    const piped = await runMain(['reconcile', ...window], { env: emu.env });
    expect(piped).toMatchObject({ code: 0, stdout: '' });
    expect(piped.stderr).toMatch(/^Clean: 0 transactions, 0 ledger rows and 0 webhook events \(read 0 rows and 0 events\) agree for .*\.\n$/);
  });
});

// ---------------------------------------------------------------- a partner API with planted inconsistencies

const WINDOW = { from: '2026-10-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999Z' };
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function tx(n: number, status: string, created = '2026-10-10T10:00:00.000Z') {
  const deposited = ['deposit_confirming', 'selling_crypto', 'completed'].includes(status);
  return {
    id: uuid(n),
    deposit_address: '0xdeposit',
    network: 'bep20',
    expires_at: '2026-10-10T10:30:00.000Z',
    status,
    crypto_currency: 'usdt',
    crypto_amount: '65.359477',
    rate: '1530.00',
    amount: '100000.00',
    deposit_status: deposited ? 'confirmed' : null,
    created_at: created,
    updated_at: '2026-10-10T10:10:00.000Z',
    confirmations: null,
    confirmed_at: ['selling_crypto', 'completed'].includes(status) ? '2026-10-10T10:05:00.000Z' : null,
    deposit_id: deposited ? `dep_${n}` : null,
    merchant_id: null,
    merchant_reference: `plant-${n}`,
    received_at: deposited ? '2026-10-10T10:02:00.000Z' : null,
    required_confirmations: null,
    terminal_id: null,
  };
}
const ledgerRow = (t: ReturnType<typeof tx>, extra: Record<string, string> = {}) => ({
  transaction_id: t.id,
  merchant_id: null,
  merchant_reference: t.merchant_reference,
  terminal_id: null,
  crypto_currency: 'usdt',
  network: 'bep20',
  crypto_amount: t.crypto_amount,
  amount: t.amount,
  platform_fee: '1000.00',
  share: '250.00',
  ts: '2026-10-10T10:10:00.000Z',
  ...extra,
});
let seq = 0;
const eventsOf = (t: ReturnType<typeof tx>, types: string[], status = 'delivered') =>
  types.map((type) => ({
    event_id: uuid(5000 + ++seq),
    aggregate_id: t.id,
    event_type: type,
    delivery_status: status,
    attempts: status === 'delivered' ? 1 : 6,
    last_error: status === 'delivered' ? null : 'endpoint answered HTTP 500',
    created_at: t.created_at,
    updated_at: t.updated_at,
  }));
const LIFECYCLE = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed'];

async function plantedApi() {
  const good = tx(1, 'completed');
  const noRow = tx(2, 'completed');
  const notCompleted = tx(3, 'selling_crypto');
  const mismatch = tx(4, 'completed');
  const missingEvents = tx(5, 'completed');
  const undelivered = tx(6, 'awaiting_deposit');
  const earlier = tx(7, 'failed', '2026-09-20T10:00:00.000Z');
  const outside = tx(8, 'completed', '2026-11-05T10:00:00.000Z');
  const transactions = [good, noRow, notCompleted, mismatch, missingEvents, undelivered, outside];
  const ledger = [
    ledgerRow(good),
    ledgerRow(notCompleted),
    ledgerRow(mismatch, { amount: '100000.50' }),
    ledgerRow(missingEvents),
    ledgerRow(earlier, { ts: '2026-10-02T00:00:00.000Z' }),
    { ...ledgerRow(tx(9, 'completed'), { ts: '2026-10-03T00:00:00.000Z' }), merchant_reference: 'orphan' },
  ];
  const events = [
    ...eventsOf(good, [...LIFECYCLE, 'payout.settled']),
    ...eventsOf(noRow, LIFECYCLE),
    ...eventsOf(notCompleted, LIFECYCLE.slice(0, 3)),
    ...eventsOf(mismatch, LIFECYCLE),
    ...eventsOf(missingEvents, ['transaction.created', 'transaction.completed']),
    ...eventsOf(undelivered, ['transaction.created'], 'failed'),
  ];
  const seen: string[] = [];
  /** The limit each list request asked for. */
  const limits: (string | null)[] = [];
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const page = (data: unknown[]) => ({ success: true, data: { data, has_more: false, limit: 100, next_cursor: null } });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push(`${req.method} ${url.pathname}`);
    const q = (name: string) => url.searchParams.get(name);
    const path = url.pathname.replace('/api/v1/partner', '');
    if (req.method !== 'GET') return send(res, 405, {});
    if (['/transactions', '/revenue', '/webhooks/events'].includes(path)) limits.push(q('limit'));
    if (path === '/transactions') return send(res, 200, page(transactions)); // ignores from/to: the CLI filters too
    const byId = /^\/transactions\/([^/]+)$/.exec(path);
    if (byId) {
      const found = [...transactions, earlier].find((t) => t.id === byId[1]);
      return found ? send(res, 200, { success: true, data: found }) : send(res, 404, { error: { code: 'NOT_FOUND', message: 'Transaction not found', timestamp: WINDOW.from } });
    }
    if (path === '/revenue') return send(res, 200, page(ledger.filter((r) => r.ts >= q('from')! && r.ts <= q('to')!)));
    if (path === '/webhooks/events') return send(res, 200, page(events.filter((e) => e.created_at >= q('from')!)));
    return send(res, 404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/partner`, seen, limits, undeliveredEvent: events.at(-1)! };
}

describe('reconcile finds each planted discrepancy', () => {
  it('one transaction per kind, with fixes where replay fixes it; reads only', async () => {
    const api = await plantedApi();
    const env = { OFFRAMP_API_KEY: 'sk_test_reconcile_plant', OFFRAMP_BASE_URL: api.baseUrl };
    const report = await runMain(['reconcile', '--from', '2026-10-01', '--to', '2026-10-31', '--json'], { env });
    expect(report.code).toBe(8);
    const body = JSON.parse(report.stdout);
    const kinds = body.discrepancies.map((d: { merchant_reference: string; kind: string }) => `${d.merchant_reference} ${d.kind}`);
    expect(kinds).toEqual([
      'plant-2 completed_without_ledger_row',
      'plant-3 ledger_row_not_completed',
      'plant-4 amount_mismatch',
      'plant-5 event_missing',
      'plant-6 event_not_delivered',
      'plant-7 ledger_row_not_completed',
      'orphan ledger_row_without_transaction',
    ]);
    expect(body).toMatchObject({ clean: false, checked: { transactions: 8, ledger_rows: 6, events: 19 }, replay_command: `offramp webhooks replay ${api.undeliveredEvent.event_id}` });
    const byKind = (kind: string) => body.discrepancies.find((d: { kind: string }) => d.kind === kind);
    expect(byKind('amount_mismatch').detail).toBe('amount 100000.50 in the ledger, 100000.00 on the transaction');
    expect(byKind('event_missing').detail).toMatch(/^status completed but no deposit\.detected, deposit\.confirmed event/);
    expect(byKind('event_not_delivered')).toMatchObject({ event_id: api.undeliveredEvent.event_id, fix: `offramp webhooks replay ${api.undeliveredEvent.event_id}` });
    expect(report.stderr).toMatch(/^\{"error":\{"code":"CHECK_FAILED","message":"7 discrepancies in 7 transactions/m);
    expect(api.seen.every((line) => line.startsWith('GET '))).toBe(true);
    expect(api.seen).toContain(`GET /api/v1/partner/transactions/${uuid(7)}`);
    // Every list read asks for the largest page the spec allows.
    expect(api.limits.length).toBeGreaterThanOrEqual(3);
    expect(new Set(api.limits)).toEqual(new Set(['100']));

    const table = await runMain(['reconcile', '--from', '2026-10-01', '--to', '2026-10-31'], { env });
    expect(table.code).toBe(8);
    expect(table.stdout).toMatch(/^0{8}-0000-4000-8000-000000000006 +plant-6 +event not delivered +transaction\.created is failed after 6 attempts \(endpoint answered HTTP 500\) +offramp webhooks replay /m);
    expect(table.stderr).toContain('error: CHECK_FAILED: 7 discrepancies in 7 transactions');
  });
});
