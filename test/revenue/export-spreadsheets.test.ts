// "Spreadsheets shift columns" and "XLSX SUM is silently short". A ledger of 29
// rows whose references hold what spreadsheet imports split on (`;`, TAB, space, comma,
// quote, a line break) and whose amounts include an 18-decimal token amount:
// - CSV read back by a quote-aware reader splitting on comma, semicolon and TAB keeps 11
//   columns in every record (default cells, --raw-cells, --excel), and so does LibreOffice's
//   own import (headless, read with openpyxl), whose share column sums, exactly, to the
//   --summary total;
// - XLSX read back with openpyxl: numbers where a number is exact, text where not, a note
//   on stderr and a manifest field saying how many amounts are text and where, and a
//   `totals` sheet with the exact totals, which a --resume after a failure keeps exact.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactSum, sameDecimal } from '../helpers/decimal.js';
import { runMain } from '../helpers/main.js';
import { calcImport, PYTHON, readWorkbooks, SOFFICE, type Sheets, type XCell } from '../helpers/spreadsheet.js';
import { errorBody, json, scriptedServer, type Answer } from '../helpers/server.js';
import { freshDir, ledgerRow, readCsv } from './export-helpers.js';

const DAY = '2026-03-01';
const KEY = 'sk_test_sheets_0001';
const COLUMNS = ['transaction_id', 'merchant_id', 'merchant_reference', 'terminal_id', 'crypto_currency', 'network', 'crypto_amount', 'amount', 'platform_fee', 'share', 'ts'];
const REFERENCES = ['a;b;c', 'tab\there', 'two words', 'comma,inside', 'quote "inside"', 'line\nbreak', '=1+1;2', ' padded ', 'pipe|x'];
const LONG_TOKEN_AMOUNT = '1000.123456789012345678';

const ROWS = Array.from({ length: 29 }, (_, i) => {
  const n = i + 1;
  return ledgerRow(n, `${DAY}T10:${String(n).padStart(2, '0')}:00.000Z`, {
    merchant_reference: REFERENCES[i] ?? `ref-${n}`,
    merchant_id: n === 3 ? 'shop;7' : 'merchant-1',
    crypto_currency: n % 5 === 0 ? 'usdc' : 'usdt',
    // 28 of the 29 crypto amounts fit a spreadsheet number; this one does not.
    crypto_amount: n === 7 ? LONG_TOKEN_AMOUNT : `${n}.535948`,
    amount: n === 4 ? '1234567890123.45' : `${10_000 + n}.00`,
    share: n === 13 ? '-3.83' : `${n * 3}.${String((n * 7) % 100).padStart(2, '0')}`,
  });
});
const SUMMARY = {
  from: `${DAY}T00:00:00.000Z`,
  to: `${DAY}T23:59:59.999Z`,
  transaction_count: ROWS.length,
  total_partner_share: exactSum(ROWS.map((r) => r.share)),
};
const sumOf = (key: 'crypto_amount' | 'amount' | 'platform_fee' | 'share', token?: string) =>
  exactSum(ROWS.filter((r) => token === undefined || r.crypto_currency === token).map((r) => r[key]));

const page = (rows: unknown[], next: string | null, summary: boolean): Answer =>
  json(200, { success: true, data: { data: rows, has_more: next !== null, limit: 100, next_cursor: next, ...(summary ? { summary: SUMMARY } : {}) } });
const whole: Answer = (req, res) => page(ROWS, null, req.url.includes('include_summary=true'))(req, res);

let server: Awaited<ReturnType<typeof scriptedServer>>;
beforeAll(async () => {
  server = await scriptedServer(Array.from({ length: 100 }, () => whole));
});
afterAll(() => server.close());

const exportRun = (args: string[], baseUrl = server.baseUrl) =>
  runMain(['revenue', 'export', '--from', DAY, '--to', DAY, ...args], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: baseUrl } });

/** The --summary table's total share, as printed on stderr. */
function summaryTotal(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('total '));
  expect(line, stderr).toBeDefined();
  // total, ROWS, SHARE, SERVICE
  return line!.trim().split(/ +/)[2]!;
}

describe('CSV that spreadsheets read right', () => {
  it.each([
    ['default cells', [] as string[]],
    ['--raw-cells', ['--raw-cells']],
    ['--excel', ['--excel']],
  ])('%s: split on comma, semicolon and TAB, every record has the 11 columns, every cell its value', async (_name, flags) => {
    const r = await exportRun([...flags, '--summary']);
    expect(r.code, r.stderr).toBe(0);
    const records = readCsv(r.stdout.replace(/^\uFEFF/, ''), [',', ';', '\t']);
    expect(records[0]).toEqual(COLUMNS);
    expect(records.map((rec) => rec.length)).toEqual(records.map(() => COLUMNS.length));
    const body = records.slice(1);
    expect(body).toHaveLength(ROWS.length);
    const guarded = (text: string) => (flags.includes('--raw-cells') || !/^[=+\-@\t\r]/.test(text) ? text : `'${text}`);
    expect(body.map((rec) => rec[2])).toEqual(ROWS.map((row) => guarded(row.merchant_reference)));
    expect(body.map((rec) => rec[6])).toEqual(ROWS.map((row) => row.crypto_amount));
    // The amounts stay under their headers: the share column sums to the checked total.
    expect(exactSum(body.map((rec) => rec[9]!))).toBe(SUMMARY.total_partner_share);
    expect(sameDecimal(summaryTotal(r.stderr), SUMMARY.total_partner_share)).toBe(true);
  });
});

if (!SOFFICE || !PYTHON) it.skip('LibreOffice import: needs soffice and python3 with openpyxl (apt-get install -y libreoffice-calc-nogui python3-openpyxl)', () => undefined);

describe.skipIf(!SOFFICE || !PYTHON)('CSV through LibreOffice’s own import (headless), read back with openpyxl', () => {
  it('comma, semicolon and TAB as separators: 11 columns in every row, the share column sums to the --summary total', { timeout: 180_000 }, async () => {
    const dir = freshDir('offramp-calc-');
    const cases = [
      ['plain.csv', []],
      ['raw.csv', ['--raw-cells']],
      ['excel.csv', ['--excel']],
    ] as const;
    const totals: string[] = [];
    for (const [name, flags] of cases) {
      const r = await exportRun([...flags, '--summary', '--out', join(dir, name)]);
      expect(r.code, r.stderr).toBe(0);
      totals.push(summaryTotal(r.stderr));
    }
    calcImport(dir, cases.map(([name]) => join(dir, name)));
    const books = readWorkbooks(dir, cases.map(([name]) => join(dir, 'calc', name.replace('.csv', '.xlsx'))));
    for (const [i, [name]] of cases.entries()) {
      const sheet = Object.values(books[join(dir, 'calc', name.replace('.csv', '.xlsx'))]!)[0]!;
      expect(sheet.max_column, name).toBe(COLUMNS.length);
      expect(sheet.rows[0]!.map((c) => c.value), name).toEqual(COLUMNS);
      const body = sheet.rows.slice(1);
      expect(body, name).toHaveLength(ROWS.length);
      // Every row has its ts in the last column: nothing shifted right or left.
      for (const [j, row] of body.entries()) expect(row[10]!.value, `${name} row ${j + 1}`).not.toBeNull();
      for (const ref of ['a;b;c', 'tab\there', 'two words', 'comma,inside', 'quote "inside"', 'line\nbreak', ' padded ']) {
        expect(body.map((row) => row[2]!.value), name).toContain(ref);
      }
      // Shares are numbers of two decimals: a spreadsheet holds them exactly, so their sum, as decimals, is the total.
      expect(body.every((row) => row[9]!.type === 'n'), name).toBe(true);
      expect(exactSum(body.map((row) => String(row[9]!.value))), name).toSatisfy((sum: string) => sameDecimal(sum, totals[i]!));
    }
  });
});

if (!PYTHON) it.skip('XLSX read-back: no python3 with openpyxl here (apt-get install -y python3-openpyxl)', () => undefined);

/** The totals sheet as label → the cells after it (the first column labels each row). */
function byLabel(rows: XCell[][]): Map<string, XCell[]> {
  return new Map(rows.filter((row) => typeof row[0]?.value === 'string').map((row) => [row[0]!.value as string, row.slice(1)]));
}

/** A totals cell: a number equal to the exact total, or (beyond 15 significant digits) the total as text. */
function expectTotal(cell: XCell | undefined, want: string, label: string) {
  const digits = want.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;
  if (digits > 15) expect(cell, label).toMatchObject({ type: 's', value: want });
  else {
    expect(cell?.type, label).toBe('n');
    expect(sameDecimal(String(cell!.value), want), `${label}: ${cell!.value} vs ${want}`).toBe(true);
  }
}

function expectTotalsSheet(sheets: Sheets, lastDay = DAY) {
  expect(Object.keys(sheets)).toEqual(['revenue', 'totals', 'by month']);
  expectByMonthSheet(sheets);
  const labels = byLabel(sheets.totals!.rows);
  expect(labels.get('window from (UTC)')![0]!.value).toBe(`${DAY}T00:00:00.000Z`);
  expect(labels.get('window to (UTC)')![0]!.value).toBe(`${lastDay}T23:59:59.999Z`);
  expect(labels.get('rows')![0]!.value).toBe(ROWS.length);
  expect(labels.get('amounts written as text')!.slice(0, 2).map((c) => c.value)).toEqual([1, 'crypto_amount: 1']);
  expect(labels.get('token')!.map((c) => c.value).slice(0, 5)).toEqual(['rows', 'crypto_amount', 'amount', 'platform_fee', 'share']);
  for (const token of ['usdc', 'usdt']) {
    const [rows, crypto, amount, fee, share] = labels.get(token)!;
    expect(rows!.value).toBe(ROWS.filter((r) => r.crypto_currency === token).length);
    expectTotal(crypto, sumOf('crypto_amount', token), `${token} crypto_amount`);
    expectTotal(amount, sumOf('amount', token), `${token} amount`);
    expectTotal(fee, sumOf('platform_fee', token), `${token} platform_fee`);
    expectTotal(share, sumOf('share', token), `${token} share`);
  }
  const [rows, , amount, fee, share] = labels.get('all tokens (NGN)')!;
  expect(rows!.value).toBe(ROWS.length);
  expectTotal(amount, sumOf('amount'), 'NGN amount');
  expectTotal(fee, sumOf('platform_fee'), 'NGN platform_fee');
  expectTotal(share, SUMMARY.total_partner_share, 'NGN share');
}

/** The `by month` sheet: one row per month and token whose columns add up, exactly, to the `totals` sheet's figures. */
function expectByMonthSheet(sheets: Sheets) {
  const [header, ...body] = sheets['by month']!.rows;
  expect(header!.map((c) => c.value)).toEqual(['month (UTC)', 'token', 'rows', 'crypto_amount', 'amount', 'platform_fee', 'share']);
  const all = body.pop()!;
  expect(all[0]!.value).toBe('all months (NGN)');
  const totals = byLabel(sheets.totals!.rows);
  const text = (c: XCell | undefined) => String(c?.value ?? '0');
  for (const token of ['usdc', 'usdt']) {
    const mine = body.filter((row) => row[1]!.value === token);
    expect(mine.length, token).toBeGreaterThan(0);
    expect(mine.reduce((n, row) => n + Number(row[2]!.value), 0)).toBe(totals.get(token)![0]!.value);
    ['crypto_amount', 'amount', 'platform_fee', 'share'].forEach((column, i) => {
      expect(sameDecimal(exactSum(mine.map((row) => text(row[3 + i]))), text(totals.get(token)![1 + i])), `${token} ${column}`).toBe(true);
    });
  }
  const ngn = totals.get('all tokens (NGN)')!;
  expect(all[2]!.value).toBe(ngn[0]!.value);
  for (const i of [4, 5, 6]) expect(sameDecimal(text(all[i]), text(ngn[i - 2])), `all months column ${i}`).toBe(true);
}

const NOTE = (out: string) =>
  `note: 1 amount is a text cell in ${out} (crypto_amount: 1): more than the 15 significant digits a spreadsheet number holds, kept exactly as text, which SUM() skips; the exact totals are on the "totals" sheet`;

describe.skipIf(!PYTHON)('XLSX whose SUM is never silently the only total, read back with openpyxl', () => {
  let dir: string;
  let out: string;
  let stderr: string;
  let manifest: { xlsx: unknown; totals: { tokens: Record<string, { crypto_amount: string }> } };
  let sheets: Sheets;
  beforeAll(async () => {
    dir = freshDir('offramp-sheets-');
    out = join(dir, 'march.xlsx');
    // No -o: a file named .xlsx is a workbook.
    const r = await exportRun(['--out', out, '--manifest', join(dir, 'march.json'), '--summary']);
    expect(r.code, r.stderr).toBe(0);
    stderr = r.stderr;
    manifest = JSON.parse(readFileSync(join(dir, 'march.json'), 'utf8'));
    sheets = readWorkbooks(dir, [out])[out]!;
  }, 60_000);

  it('amount cells: numbers where a number is exact, the one 18-decimal amount as text, digit for digit', () => {
    const body = sheets.revenue!.rows.slice(1);
    expect(body).toHaveLength(ROWS.length);
    for (const [i, row] of ROWS.entries()) {
      const cell = body[i]![6]!;
      if (row.crypto_amount === LONG_TOKEN_AMOUNT) expect(cell).toMatchObject({ type: 's', value: LONG_TOKEN_AMOUNT });
      else expect(cell.type, row.crypto_amount).toBe('n');
    }
    expect(body[3]![7]).toMatchObject({ type: 'n', value: '1234567890123.45' });
  });

  it('says so on stderr and in the manifest: how many amounts are text, in which columns', () => {
    expect(stderr).toContain(NOTE(out));
    expect(manifest.xlsx).toEqual({ sheets: ['revenue', 'totals', 'by month'], amounts_as_text: { cells: 1, columns: { crypto_amount: 1 } } });
    expect(manifest.totals.tokens.usdt!.crypto_amount).toBe(sumOf('crypto_amount', 'usdt'));
  });

  it('a second sheet, `totals`: the window, the row count, the text count and the exact totals', () => {
    expectTotalsSheet(sheets);
  });

  it('a workbook without long amounts says nothing on stderr, and its manifest counts 0', async () => {
    const short = await scriptedServer([page(ROWS.filter((r) => r.crypto_amount !== LONG_TOKEN_AMOUNT), null, false)]);
    try {
      const file = join(dir, 'short.xlsx');
      const r = await exportRun(['-o', 'xlsx', '--out', file, '--manifest', join(dir, 'short.json')], short.baseUrl);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('note:');
      expect(JSON.parse(readFileSync(join(dir, 'short.json'), 'utf8')).xlsx.amounts_as_text).toEqual({ cells: 0, columns: {} });
    } finally {
      await short.close();
    }
  });

  it('--resume after a failure midway: the totals sheet, the note and the manifest cover every row, exactly', { timeout: 60_000 }, async () => {
    // Two days, two slices: the first is read whole, the second fails; --resume reads only the second.
    const NEXT = '2026-03-02';
    const first = ROWS.slice(0, 15);
    const second = ROWS.slice(15).map((row) => ({ ...row, ts: row.ts.replace(DAY, NEXT) }));
    let failed = false;
    const ledger: Answer = (req, res) => {
      if (new URL(req.url, 'http://x').searchParams.get('from')!.startsWith(DAY)) return page(first, null, false)(req, res);
      if (!failed) return (failed = true), json(503, errorBody('UNAVAILABLE', 'try later'))(req, res);
      return page(second, null, false)(req, res);
    };
    const flaky = await scriptedServer([ledger, ledger, ledger]);
    try {
      const file = join(dir, 'resumed.xlsx');
      const args = ['revenue', 'export', '--from', DAY, '--to', NEXT, '-o', 'xlsx', '--out', file, '--manifest', join(dir, 'resumed.json'), '--resume', '--retries', '0', '--concurrency', '1'];
      const env = { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: flaky.baseUrl } };
      const stopped = await runMain(args, env);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain(`hint: continue it with: offramp revenue export --from ${DAY}T00:00:00.000Z --to ${NEXT}T23:59:59.999Z --out ${file} --manifest ${join(dir, 'resumed.json')} --resume\n`);
      const again = await runMain(args, env);
      expect(again.code, again.stderr).toBe(0);
      expect(flaky.requests.map((q) => new URL(q.url, 'http://x').searchParams.get('from')!.slice(0, 10))).toEqual([DAY, NEXT, NEXT]);
      expect(again.stderr).toContain('15 of them from the checkpoint');
      expect(again.stderr).toContain(NOTE(file));
      const m = JSON.parse(readFileSync(join(dir, 'resumed.json'), 'utf8'));
      expect(m.xlsx.amounts_as_text).toEqual({ cells: 1, columns: { crypto_amount: 1 } });
      expect(m.totals.tokens.usdt.crypto_amount).toBe(sumOf('crypto_amount', 'usdt'));
      expect(m.totals.fiat.share).toBe(SUMMARY.total_partner_share);
      expectTotalsSheet(readWorkbooks(dir, [file])[file]!, NEXT);
    } finally {
      await flaky.close();
    }
  });
});
