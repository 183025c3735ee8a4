// Issue 21, "totals are rounded": the totals an auditor files (the manifest), the
// --summary check and `revenue summary` are exact whatever the digits the service sends;
// and the --summary table fits an 80-column terminal. In process, against a scripted
// service and the emulator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactSum } from '../helpers/decimal.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer, type Answer } from '../helpers/server.js';
import { day, freshDir, ledgerRow } from './export-helpers.js';
import { parseWindow } from '../../src/lib/input/dates.js';
import { periodsIn } from '../../src/lib/revenue/periods.js';

const KEY = 'sk_test_money_0001';
const DAY = '2026-03-01';
const WINDOW = { from: `${DAY}T00:00:00.000Z`, to: `${DAY}T23:59:59.999Z` };
const at = (n: number) => `${DAY}T10:${String(n).padStart(2, '0')}:00.000Z`;

type Row = ReturnType<typeof ledgerRow>;
const summaryOf = (rows: Row[], share = exactSum(rows.map((r) => r.share))) => ({ ...WINDOW, transaction_count: rows.length, total_partner_share: share });

/** A service that answers every page with `rows`, and its summary (`share` when given) when asked. */
function ledgerOf(rows: Row[], share?: string): Answer {
  return (req, res) => {
    // The summary of the window asked for, as a service that reads from/to gives it.
    const q = new URL(req.url, 'http://x').searchParams;
    const window = { from: q.get('from') ?? WINDOW.from, to: q.get('to') ?? WINDOW.to };
    const summary = q.get('include_summary') === 'true' ? { summary: { ...summaryOf(rows, share), ...window } } : {};
    return json(200, { success: true, data: { data: rows, has_more: false, limit: 100, next_cursor: null, ...summary } })(req, res);
  };
}

async function against(answer: Answer, args: string[], columns?: number) {
  const server = await scriptedServer(Array.from({ length: 40 }, () => answer));
  try {
    return await runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl }, ...(columns ? { columns } : {}) });
  } finally {
    await server.close();
  }
}

// The two manifests: two 18-decimal token amounts, and two large ones.
const ROWS = [
  ledgerRow(1, at(1), { crypto_amount: '1752.398878555055555555' }),
  ledgerRow(2, at(2), { crypto_amount: '1752.398878555055555555' }),
  ledgerRow(3, at(3), { crypto_currency: 'usdc', crypto_amount: '100000000000000000000.000000000000000001', amount: '99999999999999999999.99', share: '0.000000000000000000000001' }),
  ledgerRow(4, at(4), { crypto_currency: 'usdc', crypto_amount: '23456789012228296700.579214789012345678', amount: '0.01', share: '12345678901234567890.12' }),
];

describe('exact totals', () => {
  it("the manifest's totals are the exact sums (the issue's two exports)", async () => {
    const dir = freshDir('offramp-money-');
    const r = await against(ledgerOf(ROWS), ['revenue', 'export', '--from', DAY, '--to', DAY, '--out', join(dir, 'm.csv'), '--manifest', join(dir, 'm.json'), '--summary']);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));
    expect(m.totals.tokens.usdt.crypto_amount).toBe('3504.797757110111111110');
    expect(m.totals.tokens.usdc.crypto_amount).toBe('123456789012228296700.579214789012345679');
    expect(m.totals.tokens.usdc.amount).toBe('100000000000000000000.00');
    expect(m.totals.fiat).toEqual({ currency: 'NGN', amount: '100000000000000020000.00', platform_fee: '400.00', share: '12345678901234567940.120000000000000000000001' });
    expect(m.service_summary.total).toMatchObject({ ok: true, share: m.totals.fiat.share, service_share: m.totals.fiat.share });
  });

  it('--summary: a service total that differs in the 24th decimal is a mismatch (exit 8), an equal one passes', async () => {
    const args = ['revenue', 'export', '--from', DAY, '--to', DAY, '-o', 'ndjson', '--summary'];
    const off = await against(ledgerOf(ROWS, '12345678901234567940.120000000000000000000002'), args);
    expect(off.code).toBe(8);
    expect(off.stderr).toContain('share sums to 12345678901234567940.120000000000000000000001, the service says 12345678901234567940.120000000000000000000002');
    const same = await against(ledgerOf(ROWS, '12345678901234567940.120000000000000000000001000'), args);
    expect(same.code, same.stderr).toBe(0);
  });

  it('revenue summary adds the slices’ totals exactly', async () => {
    const shares = ['9999999999999999999.99', '0.000000000000000000000001', '1000.01'];
    let i = 0;
    const answer: Answer = (req, res) => {
      const q = new URL(req.url, 'http://x').searchParams;
      const summary = { from: q.get('from'), to: q.get('to'), transaction_count: 1, total_partner_share: shares[i++ % 3] };
      return json(200, { success: true, data: { data: [], has_more: false, limit: 1, next_cursor: null, summary } })(req, res);
    };
    // 200 days: three slices of at most 90.
    const r = await against(answer, ['revenue', 'summary', '--from', '2026-01-01', '--to', '2026-07-19', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.slices).toHaveLength(3);
    expect(out.total_partner_share).toBe(exactSum(shares));
    expect(out.total_partner_share).toBe('10000000000000001000.000000000000000000000001');
  });
});

/** The --summary table's lines on stderr: from its header to its total. */
function tableLines(stderr: string): string[] {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => l.startsWith('MONTH'));
  const end = lines.findIndex((l) => l.startsWith('total'));
  expect(start, stderr).toBeGreaterThanOrEqual(0);
  return lines.slice(start, end + 1);
}

describe('the --summary table fits 80 columns', () => {
  let emu: Awaited<ReturnType<typeof emulatorFor>>;
  beforeAll(async () => {
    emu = await emulatorFor({ seedRevenue: 4000, seed: 11 });
  });
  afterAll(() => emu.close());

  it.each([
    ['30 days (one-day slices)', -29],
    ['200 days (several-day slices)', -199],
  ])('%s of a seeded ledger: a row per calendar month, ok for the service', async (_name, from) => {
    const dir = freshDir('offramp-table-');
    const r = await runMain(['revenue', 'export', '--from', day(from), '--to', day(0), '--summary', '--out', join(dir, 'x.csv')], { env: emu.env, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = tableLines(r.stderr);
    expect(lines[0]).toMatch(/^MONTH +ROWS +SHARE +SERVICE$/);
    // One row per calendar month the window reaches into, never the export's slices.
    expect(lines.slice(1, -1).map((l) => l.split(' ')[0])).toEqual(periodsIn(parseWindow(day(from), day(0)), 'month', 'UTC'));
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^\d{4}-\d\d +\d+ +\d+(\.\d+)? +ok$/);
    expect(lines.at(-1)).toMatch(/^total +\d+ +\d+\.\d\d +ok$/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('a mismatch shows the service’s figures in its row; a service that ignored a filter adds RECEIVED', async () => {
    const rows = [ledgerRow(1, at(1), { share: '1530.25' }), ledgerRow(2, at(2), { share: '98765.43', crypto_currency: 'usdc' })];
    const mismatch = await against(ledgerOf(rows, '99999.99'), ['revenue', 'export', '--from', DAY, '--to', DAY, '--summary', '-o', 'ndjson'], 80);
    expect(mismatch.code).toBe(8);
    const off = tableLines(mismatch.stderr);
    expect(off[1]).toMatch(/^2026-03 +2 +100295\.68 +MISMATCH$/);
    expect(off[2]).toMatch(/^total +2 +100295\.68 +MISMATCH: 2 rows, 99999\.99$/);
    for (const line of off) expect(line.length, line).toBeLessThanOrEqual(80);

    const ignored = await against(ledgerOf(rows), ['revenue', 'export', '--from', DAY, '--to', DAY, '--summary', '--token', 'usdt', '-o', 'ndjson'], 80);
    expect(ignored.code, ignored.stderr).toBe(0);
    const kept = tableLines(ignored.stderr);
    expect(kept[0]).toMatch(/^MONTH +ROWS +SHARE +RECEIVED +SERVICE$/);
    expect(kept[1]).toMatch(/^2026-03 +1 +1530\.25 +ok$/);
    expect(kept[2]).toMatch(/^total +1 +1530\.25 +2 rows, 100295\.68 +ok$/);
    for (const line of kept) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('a window within a day is its month', async () => {
    const rows = [ledgerRow(1, '2026-03-01T10:30:00.000Z')];
    const r = await against(ledgerOf(rows), ['revenue', 'export', '--from', '2026-03-01T10:00:00Z', '--to', '2026-03-01T11:59:59Z', '--summary', '-o', 'ndjson'], 80);
    expect(r.code, r.stderr).toBe(0);
    const lines = tableLines(r.stderr);
    expect(lines[1]).toMatch(/^2026-03 +1 +25\.00 +ok$/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});
