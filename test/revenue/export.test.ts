// `revenue export` and `revenue summary` end to end against the emulator with thousands of
// seeded ledger rows: windows of 10, 90, 91 and 200 days, every row once and in ledger
// order, rows exactly on slice borders and on the inclusive --from/--to, and the summary
// check. The runs are in process (main(argv)); the endings of an export (signals, a closed
// pipe, a full disk, a kill) are in export-endings.test.ts and temp-files.test.ts.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, parseWindow } from '../../src/lib/input/dates.js';
import { periodsIn } from '../../src/lib/revenue/periods.js';
import { planSlices } from '../../src/lib/revenue/slices.js';
import { DecimalSum } from '../../src/lib/money.js';
import type { RevenueRow } from '../../src/lib/schemas.js';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';

const SEEDED = 12_000;
type Emu = Awaited<ReturnType<typeof emulatorFor>>;
let emu: Emu;
/** Every seeded row, read page by page straight from the emulator (not through the CLI). */
let ledger: RevenueRow[];

async function readLedger(baseUrl: string, from: number, to: number): Promise<RevenueRow[]> {
  const rows: RevenueRow[] = [];
  for (let start = from; start <= to; start += 90 * DAY_MS) {
    const end = Math.min(to, start + 90 * DAY_MS - 1);
    let cursor = '';
    for (;;) {
      const url = `${baseUrl}/revenue?from=${new Date(start).toISOString()}&to=${new Date(end).toISOString()}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = ((await (await fetch(url, { headers: { 'x-api-key': TEST_KEY } })).json()) as { data: { data: RevenueRow[]; has_more: boolean; next_cursor: string } }).data;
      rows.push(...page.data);
      if (!page.has_more) break;
      cursor = encodeURIComponent(page.next_cursor);
    }
  }
  return rows;
}

beforeAll(async () => {
  emu = await emulatorFor({ seedRevenue: SEEDED, seed: 42 });
  ledger = await readLedger(emu.emulator.url, Date.now() - 182 * DAY_MS, Date.now() + DAY_MS);
  expect(ledger).toHaveLength(SEEDED);
});
afterAll(() => emu.close());

const cli = (args: string[]) => runMain(args, { env: emu.env });
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();
const between = (from: string, to: string) => {
  const w = parseWindow(from, to);
  return ledger.filter((r) => Date.parse(r.ts) >= w.from.getTime() && Date.parse(r.ts) <= w.to.getTime());
};
const ids = (rows: { transaction_id: string }[]) => rows.map((r) => r.transaction_id);
/** How long the slices of a window of `days` days are (the plan depends on the window's length alone). */
const sliceLength = (days: number) => {
  const [first] = planSlices({ from: new Date(0), to: new Date(days * DAY_MS - 1) });
  return first!.to.getTime() - first!.from.getTime() + 1;
};
const ndjson = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as RevenueRow);

function expectSameRows(got: RevenueRow[], want: RevenueRow[]) {
  expect(got.length).toBe(want.length);
  expect(new Set(ids(got)).size).toBe(got.length);
  expect(ids(got)).toEqual(ids(want));
  expect(got).toEqual(want);
}

describe('revenue export against the emulator', { timeout: 60_000 }, () => {
  it('10 days as CSV (default): header in spec order, CRLF, rows verbatim in ledger order', async () => {
    const [from, to] = [day(-40), day(-31)];
    const r = await cli(['revenue', 'export', '--from', from, '--to', to]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe('transaction_id,merchant_id,merchant_reference,terminal_id,crypto_currency,network,crypto_amount,amount,platform_fee,share,ts');
    const want = between(from, to);
    expect(want.length).toBeGreaterThan(400);
    const cols = lines[0]!.split(',') as (keyof RevenueRow)[];
    expect(lines.slice(1, -1)).toEqual(want.map((row) => cols.map((c) => row[c] ?? '').join(',')));
  });

  it('90 days with --summary: every slice checked against the service, shown by month, and the total', async () => {
    const [from, to] = [day(-120), day(-31)];
    const r = await cli(['revenue', 'export', '--from', from, '--to', to, '-o', 'ndjson', '--concurrency', '1', '--summary']);
    expect(r.code, r.stderr).toBe(0);
    const want = between(from, to);
    expectSameRows(ndjson(r.stdout), want);
    const share = new DecimalSum();
    want.forEach((row) => share.add(row.share));
    const slices = planSlices(parseWindow(from, to));
    expect(slices.length).toBeGreaterThan(1);
    // A row per calendar month, each `ok`: every slice in it matched the service's count and share.
    const months = periodsIn(parseWindow(from, to), 'month', 'UTC');
    expect(r.stderr).toMatch(new RegExp(`^${months[0]} +\\d+ +[\\d.]+ +ok$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^total +${want.length} +${share} +ok$`, 'm'));
    expect(r.stderr.match(/ ok$/gm)).toHaveLength(months.length + 1);
    expect(r.stderr).not.toMatch(/^1 /m);
    expect(r.stderr).toMatch(new RegExp(`Exported [\\d,]+ rows \\(${slices.length} slices, \\d+ pages\\) in [\\d.]+ s; totals match the service`));
  });

  it('91 days: a row on the last millisecond of the first slice and the next row land once each', async () => {
    // Align the window so that a seeded row sits exactly on the end of the first slice,
    // which must keep it, and the second must not repeat it.
    const pivot = ledger[Math.floor(SEEDED / 2)]!;
    const start = Date.parse(pivot.ts) + 1 - sliceLength(91);
    const [from, to] = [iso(start), iso(start + 91 * DAY_MS - 1)];
    const slices = planSlices(parseWindow(from, to));
    expect(slices[0]!.to.toISOString()).toBe(pivot.ts);
    const r = await cli(['revenue', 'export', '--from', from, '--to', to, '--concurrency', '1', '--summary', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as RevenueRow[];
    expectSameRows(got, between(from, to));
    expect(got.filter((row) => row.transaction_id === pivot.transaction_id)).toHaveLength(1);
    // --json makes --summary's check one JSON line on stderr (its last: a window that
    // reaches into today is first warned about).
    const check = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(check.ok).toBe(true);
    expect(check.slices.map((s: { rows: number }) => s.rows).reduce((a: number, b: number) => a + b)).toBe(got.length);
  });

  it('200 days to a file: a row on the first millisecond of a slice, summary per month', async () => {
    const pivot = ledger[Math.floor(SEEDED / 3)]!;
    const start = Date.parse(pivot.ts) - 3 * sliceLength(200); // the fourth slice starts on the pivot
    const [from, to] = [iso(start), iso(start + 200 * DAY_MS - 1)];
    const slices = planSlices(parseWindow(from, to));
    expect(slices[3]!.from.toISOString()).toBe(pivot.ts);
    const out = join(mkdtempSync(join(tmpdir(), 'offramp-export-')), 'ledger.csv');
    const r = await cli(['revenue', 'export', '--from', from, '--to', to, '--out', out, '--summary']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const body = readFileSync(out, 'utf8').split('\r\n').slice(1, -1);
    const want = between(from, to);
    expect(body.map((line) => line.split(',')[0])).toEqual(ids(want));
    expect(r.stderr.match(/ ok$/gm)).toHaveLength(periodsIn(parseWindow(from, to), 'month', 'UTC').length + 1); // every month and the total
    expect(r.stderr).toContain(`Exported ${want.length.toLocaleString('en-US')} rows (${slices.length} slices,`);
    expect(readdirSync(join(out, '..'))).toEqual(['ledger.csv']);
  });

  it('inclusive bounds: rows stamped exactly at --from and --to are exported (concurrency 3, JSON array)', async () => {
    const first = ledger[1000]!;
    const last = ledger[1000 + 2500]!;
    const r = await cli(['revenue', 'export', '--from', first.ts, '--to', last.ts, '--concurrency', '3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as RevenueRow[];
    expectSameRows(got, ledger.slice(1000, 3501));
  });

  it('--token and --network filter; an unknown token exports just the header', async () => {
    const r = await cli(['revenue', 'export', '--from', day(-20), '--to', day(-11), '--token', 'USDT', '--network', 'bep20', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expectSameRows(ndjson(r.stdout), between(day(-20), day(-11)).filter((row) => row.crypto_currency === 'usdt' && row.network === 'bep20'));
    const none = await cli(['revenue', 'export', '--from', day(-20), '--to', day(-11), '--token', 'nope']);
    expect(none.stdout.split('\r\n')).toHaveLength(2);
  });

  it('revenue summary: one line for the window; the same JSON shape (the requests as slices) for any window', async () => {
    const [from, to] = [day(-185), day(0)];
    const want = between(from, to);
    const share = new DecimalSum();
    want.forEach((row) => share.add(row.share));
    const json = await cli(['revenue', 'summary', '--from', from, '--to', to, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const s = JSON.parse(json.stdout);
    expect(s).toMatchObject({ from: `${from}T00:00:00.000Z`, to: `${to}T23:59:59.999Z`, transaction_count: want.length, total_partner_share: share.toString() });
    expect(s.slices).toHaveLength(3);
    const table = await cli(['revenue', 'summary', '--from', from, '--to', to]);
    // The API's 90-day windows are requests, never rows: one line for the window.
    expect(table.stdout).not.toMatch(/slice/);
    expect(table.stdout).toMatch(new RegExp(`^${from} +${to} +${want.length} +${share.toString().replace('.', '\\.')}$`, 'm'));
    const short = JSON.parse((await cli(['revenue', 'summary', '--from', day(-5), '--to', day(-5), '--json'])).stdout);
    expect(short.slices).toHaveLength(1);
  });
});
