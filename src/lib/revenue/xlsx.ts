// `revenue export -o xlsx` (docs/finance.md, "XLSX"): exceljs's streaming WorkbookWriter
// commits each row as it arrives, so memory stays flat whatever the row count.
//
// An amount a spreadsheet number cannot hold exactly (over 15 significant digits) is a text
// cell, and SUM() skips text cells without a word: hence the `totals` sheet of exact decimal
// totals. A resumed export gives the writer every row again (from the finished slices'
// spools), so the totals are those of the file whatever stopped an earlier run.
import { Duplex, PassThrough, Writable } from 'node:stream';
import type { Workbook, Worksheet } from 'exceljs';
import type { RevenueFilters } from '../client/api.js';
import type { Window } from '../input/dates.js';
import { Decimal } from '../money.js';
import { REVENUE_COLUMNS } from '../schemas.js';
import { PLAIN_DECIMAL } from '../output/csv.js';
import { AMOUNT_COLUMNS } from './row-format.js';
import type { Grouping } from './groups.js';

/** Excel keeps 15 significant digits of a number; a longer amount becomes text. */
export const MAX_NUMBER_DIGITS = 15;

export const SHEETS = { rows: 'revenue', totals: 'totals', byMonth: 'by month' } as const;

/** Amount cells written as text (so a spreadsheet SUM skips them): how many, and per column. */
export type TextAmounts = { cells: number; columns: Record<string, number> };

/**
 * What the totals sheets say the rows are: the export's window and filters, and the rows
 * summed by month of --tz and token, which the caller feeds as they pass (tapRows) and
 * which is whole once the last row is in.
 */
export type XlsxScope = { window: Window; filters: RevenueFilters; sums: Grouping };

const TS_FORMAT = 'yyyy-mm-dd hh:mm:ss.000';

const WIDTHS: Record<string, number> = {
  transaction_id: 38,
  merchant_id: 20,
  merchant_reference: 24,
  terminal_id: 14,
  crypto_currency: 10,
  network: 10,
  crypto_amount: 16,
  amount: 16,
  platform_fee: 14,
  share: 14,
  ts: 24,
};

/** Rows between two yields to the event loop, so compression keeps up with the rows. */
const ROWS_PER_YIELD = 100;

type Cell = { value: string | number | Date | null; numFmt?: string };

/**
 * An amount cell: a number when a spreadsheet holds it exactly, else the text itself.
 * The JavaScript number only carries the value into the file (exceljs writes numbers as
 * their shortest decimal form): a decimal of at most 15 significant digits survives the
 * trip, and the comparison proves it for each one.
 */
export function amountCell(value: unknown): Cell {
  if (value === null || value === undefined) return { value: null };
  const text = String(value);
  if (!PLAIN_DECIMAL.test(text)) return { value: text };
  const exact = new Decimal(text);
  if (exact.sd() > MAX_NUMBER_DIGITS) return { value: text };
  const carried = exact.toNumber();
  if (!Number.isFinite(carried) || !new Decimal(carried).eq(exact)) return { value: text };
  const dot = text.indexOf('.');
  const scale = dot < 0 ? 0 : Math.min(30, text.length - dot - 1);
  return { value: carried, numFmt: scale > 0 ? `0.${'0'.repeat(scale)}` : '0' };
}

function timeCell(value: unknown): Cell {
  if (value === null || value === undefined) return { value: null };
  const ms = Date.parse(String(value));
  return Number.isNaN(ms) ? { value: String(value) } : { value: new Date(ms), numFmt: TS_FORMAT };
}

function textCell(value: unknown): Cell {
  return { value: value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value) };
}

function cellsOf(row: Record<string, unknown>): Cell[] {
  return REVENUE_COLUMNS.map((column) => {
    const value = row[column];
    if (column === 'ts') return timeCell(value);
    if (AMOUNT_COLUMNS.includes(column)) return amountCell(value);
    return textCell(value);
  });
}

/** One row of cells, committed (written out): a streamed sheet keeps none. */
function addCells(sheet: Worksheet, cells: Cell[], bold = false): void {
  const row = sheet.addRow(cells.map((c) => c.value));
  cells.forEach((c, i) => {
    if (c.numFmt) row.getCell(i + 1).numFmt = c.numFmt;
  });
  if (bold) row.font = { bold: true };
  row.commit();
}

/**
 * The stage writing rows into a workbook: rows in, the XLSX file's bytes out, the `totals`
 * sheet last, once every row is in. Its `textAmounts` (amount cells of the rows sheet written
 * as text) are known once the workbook is written.
 */
export async function xlsxStage(created: Date, scope: XlsxScope) {
  // exceljs is a CommonJS package, loaded only when an XLSX is asked for.
  const mod = await import('exceljs');
  const Excel = (mod as unknown as { default?: typeof import('exceljs') }).default ?? mod;
  const zip = new PassThrough();
  // archiver-utils (bundled with exceljs) still calls the deprecated Buffer constructor, and
  // Node warns about it because bundled code no longer sits under node_modules/: a warning
  // a user can do nothing about. Node shows it once, on the first call (here), if at all.
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  let workbook;
  try {
    workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: zip, useStyles: true, useSharedStrings: false });
  } finally {
    process.noDeprecation = quiet;
  }
  workbook.creator = 'offramp-cli';
  workbook.created = created;
  workbook.modified = created;
  const sheet = workbook.addWorksheet(SHEETS.rows, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = REVENUE_COLUMNS.map((key) => ({ key, width: WIDTHS[key] ?? 14 }));
  addCells(sheet, REVENUE_COLUMNS.map(textCell), true);

  const textAmounts: TextAmounts = { cells: 0, columns: {} };
  let rows = 0;
  const rowsIn = new Writable({
    objectMode: true,
    write(row: Record<string, unknown>, _encoding, done) {
      const cells = cellsOf(row);
      rows++;
      REVENUE_COLUMNS.forEach((column, i) => {
        if (AMOUNT_COLUMNS.includes(column) && typeof cells[i]!.value === 'string') {
          textAmounts.cells++;
          textAmounts.columns[column] = (textAmounts.columns[column] ?? 0) + 1;
        }
      });
      addCells(sheet, cells);
      if (rows % ROWS_PER_YIELD === 0) drained(zip).then(() => done(), done);
      else done();
    },
    final(done) {
      sheet.commit();
      writeTotals(workbook, { ...scope, rows, textAmounts });
      // Months of --tz (the `ts` cells stay UTC: a spreadsheet's dates have no zone).
      writeByMonth(workbook, scope.sums);
      workbook.commit().then(() => done(), done);
    },
  });
  return Object.assign(Duplex.from({ writable: rowsIn, readable: zip }), { textAmounts });
}

/** The `totals` sheet: what the rows are, how many amounts are text, and their exact totals. */
function writeTotals(workbook: Pick<Workbook, 'addWorksheet'>, t: XlsxScope & { rows: number; textAmounts: TextAmounts }): void {
  const sheet = workbook.addWorksheet(SHEETS.totals);
  sheet.columns = [{ width: 28 }, { width: 26 }, ...AMOUNT_COLUMNS.map(() => ({ width: 26 }))];
  const add = (cells: Cell[], bold = false) => addCells(sheet, cells, bold);
  add([textCell('window from (UTC)'), textCell(t.window.from.toISOString())]);
  add([textCell('window to (UTC)'), textCell(t.window.to.toISOString())]);
  add([textCell('token filter'), textCell(t.filters.crypto_currency ?? null)]);
  add([textCell('network filter'), textCell(t.filters.network ?? null)]);
  add([textCell('rows'), { value: t.rows }]);
  add([textCell('amounts written as text'), { value: t.textAmounts.cells }, textCell(describeColumns(t.textAmounts.columns) || null)]);
  add([]);
  add(['token', 'rows', ...AMOUNT_COLUMNS].map(textCell), true);
  for (const [token, sums] of Object.entries(t.sums.tokens())) {
    add([textCell(token), { value: sums.rows }, ...AMOUNT_COLUMNS.map((c) => amountCell(sums[c as keyof typeof sums]))]);
  }
  const all = t.sums.total();
  add([textCell('all tokens (NGN)'), { value: t.rows }, textCell(null), amountCell(all.amount), amountCell(all.platform_fee), amountCell(all.share)], true);
  add([]);
  add([textCell('Exact sums of the revenue sheet\'s amounts (decimal arithmetic, never rounded). A spreadsheet number holds 15 significant digits: an amount or total longer than that is text, every digit kept, and SUM() skips text cells.')]);
  sheet.commit();
}

/**
 * The `by month` sheet: one row per month of the export's zone and token (a month without a row shows
 * zeros), exact sums as on the `totals` sheet, whose figures its columns add up to.
 */
function writeByMonth(workbook: Pick<Workbook, 'addWorksheet'>, months: Grouping): void {
  const sheet = workbook.addWorksheet(SHEETS.byMonth, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = [{ width: 10 }, { width: 10 }, { width: 10 }, ...AMOUNT_COLUMNS.map(() => ({ width: 26 }))];
  addCells(sheet, [`month (${months.zone})`, 'token', 'rows', ...AMOUNT_COLUMNS].map(textCell), true);
  for (const g of months.rows()) {
    const token = g.group.token ?? null;
    addCells(sheet, [textCell(g.group.month ?? null), textCell(token), { value: g.transactions }, token ? amountCell(g.crypto_amounts[token] ?? '0') : textCell(null), amountCell(g.amount), amountCell(g.platform_fee), amountCell(g.share)]);
  }
  const all = months.total();
  addCells(sheet, [textCell('all months (NGN)'), textCell(null), { value: all.transactions }, textCell(null), amountCell(all.amount), amountCell(all.platform_fee), amountCell(all.share)], true);
  sheet.commit();
}

/**
 * The workbook writer gives no backpressure of its own: it hands the compressor whatever
 * it is given. Now and then the event loop turns, so compression runs, and a reader that
 * asked for a pause (the zip's buffer is full) is waited for.
 */
async function drained(zip: PassThrough): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (zip.writableNeedDrain && !zip.destroyed) {
    await new Promise<void>((resolve) => {
      const done = () => {
        zip.off('drain', done);
        zip.off('close', done);
        resolve();
      };
      zip.on('drain', done);
      zip.on('close', done);
    });
  }
}

/** "crypto_amount: 2, share: 1" */
export function describeColumns(columns: Record<string, number>): string {
  return Object.entries(columns)
    .map(([column, n]) => `${column}: ${n}`)
    .join(', ');
}
