// `revenue export -o xlsx`: a worksheet, `revenue`, written as the rows arrive through
// exceljs's streaming WorkbookWriter (each row is committed, turned into XML, compressed
// and written out; none is kept), so memory stays flat whatever the row count; then a
// second, `totals`, once the last row is in.
//
// Cells:
// - a header row (the spec's column names, as in CSV), frozen;
// - references, ids, token and network as text cells (a text cell is never a formula,
//   whatever it starts with: nothing to neutralise, unlike CSV);
// - `ts` as a date-time cell in UTC (a spreadsheet date has no zone), to the millisecond;
// - amounts as number cells shown with the scale the ledger wrote ("1530.10" reads
//   1530.10), when a spreadsheet number holds them exactly: at most 15 significant digits
//   (what Excel keeps); a longer one is written as text, digit for digit, never rounded.
//
// A spreadsheet's SUM() skips text cells without a word, so a column with one such amount
// sums short. The `totals` sheet holds the exact totals of the rows written (decimal
// arithmetic, per token and in NGN; as text too when a number cannot hold them), the row
// count, the window and filters, and how many amounts are text, in which columns; the
// export says the same on stderr and in its manifest (textAmounts). The writer counts and
// sums every row it is given, and a resumed export gives it every row again (its spools),
// so the totals are those of the file whatever stopped an earlier run.
//
// XML cannot carry most control characters; exceljs drops them from text cells. CSV and
// NDJSON keep every character.
//
// The writer reads the export's rows as NDJSON text (the xlsx row format, row-format.ts), so
// slices spooled ahead of their turn are kept and copied like any other format's.
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import type { Workbook, Worksheet } from 'exceljs';
import type { RevenueFilters } from '../client/api.js';
import type { Window } from '../dates.js';
import { Decimal } from '../money.js';
import { REVENUE_COLUMNS } from '../schemas.js';
import { RELEASES_CHUNKS } from './ordered-output.js';
import { AMOUNT_COLUMNS, PLAIN_DECIMAL } from './row-format.js';
import { TokenTotals } from './totals.js';

/** Excel keeps 15 significant digits of a number; a longer amount becomes text. */
export const MAX_NUMBER_DIGITS = 15;

export const SHEETS = { rows: 'revenue', totals: 'totals' } as const;

/** Amount cells written as text (so a spreadsheet SUM skips them): how many, and per column. */
export type TextAmounts = { cells: number; columns: Record<string, number> };

/** What the totals sheet says the rows are: the export's window and filters. */
export type XlsxScope = { window: Window; filters: RevenueFilters };

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

/** The exceljs module: a CommonJS package, loaded only when an XLSX is asked for. */
async function loadExcel(): Promise<typeof import('exceljs')> {
  const mod = await import('exceljs');
  return (mod as unknown as { default?: typeof import('exceljs') }).default ?? mod;
}

/**
 * A Writable taking the export's NDJSON rows and writing the workbook into `target`
 * (which it ends when it ends). 'finish' comes once the whole file is written.
 */
export async function xlsxWriter(target: Writable, created: Date, scope: XlsxScope): Promise<XlsxRows> {
  const Excel = await loadExcel();
  // archiver-utils (bundled with exceljs) still calls the deprecated Buffer constructor, and
  // Node warns about it because bundled code no longer sits under node_modules/: a warning
  // a user can do nothing about. Node shows it once, on the first call (here), if at all.
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  let workbook;
  try {
    workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: target, useStyles: true, useSharedStrings: false });
  } finally {
    process.noDeprecation = quiet;
  }
  workbook.creator = 'offramp-cli';
  workbook.created = created;
  workbook.modified = created;
  const sheet = workbook.addWorksheet(SHEETS.rows, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = REVENUE_COLUMNS.map((key) => ({ key, width: WIDTHS[key] ?? 14 }));
  const header = sheet.addRow([...REVENUE_COLUMNS]);
  header.font = { bold: true };
  header.commit();
  return new XlsxRows(workbook, sheet, target, scope);
}

type AmountRow = Parameters<TokenTotals['add']>[0];

export class XlsxRows extends Writable {
  readonly [RELEASES_CHUNKS] = true;
  /** Amount cells of the rows sheet written as text, known once the workbook is written. */
  readonly textAmounts: TextAmounts = { cells: 0, columns: {} };
  private readonly totals = new TokenTotals();
  private rows = 0;
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private readonly onTargetError = (err: Error) => this.destroy(err);

  constructor(
    private readonly workbook: Pick<Workbook, 'addWorksheet'> & { commit(): Promise<unknown> },
    private readonly sheet: Worksheet,
    private readonly target: Writable,
    private readonly scope: XlsxScope,
  ) {
    super({ highWaterMark: 256 * 1024, decodeStrings: false });
    target.on('error', this.onTargetError);
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const end = text.lastIndexOf('\n');
    this.partial = end < 0 ? text : text.slice(end + 1);
    if (end < 0) {
      callback();
      return;
    }
    this.addLines(text.slice(0, end).split('\n')).then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  override _final(callback: (err?: Error | null) => void): void {
    const rest = (this.partial + this.decoder.end()).trim();
    this.partial = '';
    (async () => {
      if (rest) await this.addLines([rest]);
      this.sheet.commit();
      this.writeTotals();
      await this.workbook.commit();
    })().then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.target.off('error', this.onTargetError);
    if (err && !this.target.destroyed) this.target.destroy(err);
    callback(err);
  }

  /** The `totals` sheet: what the rows are, how many amounts are text, and their exact totals. */
  private writeTotals(): void {
    const sheet = this.workbook.addWorksheet(SHEETS.totals);
    sheet.columns = [{ width: 28 }, { width: 26 }, ...AMOUNT_COLUMNS.map(() => ({ width: 26 }))];
    const add = (cells: Cell[], bold = false) => addCells(sheet, cells, bold);
    const text = (value: string | null): Cell => ({ value });
    const { window, filters } = this.scope;
    const { cells, columns } = this.textAmounts;
    add([text('window from (UTC)'), text(window.from.toISOString())]);
    add([text('window to (UTC)'), text(window.to.toISOString())]);
    add([text('token filter'), text(filters.crypto_currency ?? null)]);
    add([text('network filter'), text(filters.network ?? null)]);
    add([text('rows'), { value: this.rows }]);
    add([text('amounts written as text'), { value: cells }, text(describeColumns(columns) || null)]);
    add([]);
    add(['token', 'rows', ...AMOUNT_COLUMNS].map(text), true);
    const tokens = this.totals.toJSON();
    for (const [token, t] of Object.entries(tokens)) {
      add([text(token), { value: t.rows }, ...AMOUNT_COLUMNS.map((c) => amountCell(t[c as keyof typeof t]))]);
    }
    const fiat = this.totals.fiat();
    add([text('all tokens (NGN)'), { value: this.rows }, text(null), amountCell(fiat.amount), amountCell(fiat.platform_fee), amountCell(fiat.share)], true);
    add([]);
    add([text('Exact sums of the revenue sheet\'s amounts (decimal arithmetic, never rounded). A spreadsheet number holds 15 significant digits: an amount or total longer than that is text, every digit kept, and SUM() skips text cells.')]);
    sheet.commit();
  }

  private async addLines(lines: string[]): Promise<void> {
    let since = 0;
    for (const line of lines) {
      if (!line) continue;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const cells = cellsOf(parsed);
      this.count(parsed, cells);
      addCells(this.sheet, cells);
      if (++since >= ROWS_PER_YIELD) {
        since = 0;
        await this.drained();
      }
    }
    await this.drained();
  }

  /** The row in the totals, and its amounts that became text cells in the text count. */
  private count(row: Record<string, unknown>, cells: Cell[]): void {
    this.rows++;
    this.totals.add(row as AmountRow);
    REVENUE_COLUMNS.forEach((column, i) => {
      if (AMOUNT_COLUMNS.includes(column) && typeof cells[i]!.value === 'string') {
        this.textAmounts.cells++;
        this.textAmounts.columns[column] = (this.textAmounts.columns[column] ?? 0) + 1;
      }
    });
  }

  /**
   * The workbook writer gives no backpressure of its own: it hands the compressor whatever
   * it is given. Between batches the event loop turns, so compression
   * runs, and a destination that asked for a pause is waited for.
   */
  private async drained(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.target.writableNeedDrain && !this.target.destroyed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.target.off('drain', done);
          this.target.off('close', done);
          resolve();
        };
        this.target.on('drain', done);
        this.target.on('close', done);
      });
    }
  }
}

/** "crypto_amount: 2, share: 1" */
export function describeColumns(columns: Record<string, number>): string {
  return Object.entries(columns)
    .map(([column, n]) => `${column}: ${n}`)
    .join(', ');
}
