// `revenue export -o xlsx`: one worksheet, `revenue`, written as the rows arrive through
// exceljs's streaming WorkbookWriter (each row is committed, turned into XML, compressed
// and written out; none is kept), so memory stays flat whatever the row count.
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
// XML cannot carry most control characters; exceljs drops them from text cells. CSV and
// NDJSON keep every character.
//
// The writer reads the export's rows as NDJSON text (the xlsx row format, row-format.ts), so
// slices spooled ahead of their turn are kept and copied like any other format's.
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import type { Worksheet } from 'exceljs';
import { Decimal } from '../money.js';
import { REVENUE_COLUMNS } from '../schemas.js';
import { RELEASES_CHUNKS } from './ordered-output.js';
import { AMOUNT_COLUMNS, PLAIN_DECIMAL } from './row-format.js';

/** Excel keeps 15 significant digits of a number; a longer amount becomes text. */
export const MAX_NUMBER_DIGITS = 15;

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

/** The exceljs module: a CommonJS package, loaded only when an XLSX is asked for. */
async function loadExcel(): Promise<typeof import('exceljs')> {
  const mod = await import('exceljs');
  return (mod as unknown as { default?: typeof import('exceljs') }).default ?? mod;
}

/**
 * A Writable taking the export's NDJSON rows and writing the workbook into `target`
 * (which it ends when it ends). 'finish' comes once the whole file is written.
 */
export async function xlsxWriter(target: Writable, created: Date): Promise<Writable> {
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
  const sheet = workbook.addWorksheet('revenue', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = REVENUE_COLUMNS.map((key) => ({ key, width: WIDTHS[key] ?? 14 }));
  const header = sheet.addRow([...REVENUE_COLUMNS]);
  header.font = { bold: true };
  header.commit();
  return new XlsxRows(workbook, sheet, target);
}

class XlsxRows extends Writable {
  readonly [RELEASES_CHUNKS] = true;
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private readonly onTargetError = (err: Error) => this.destroy(err);

  constructor(
    private readonly workbook: { commit(): Promise<unknown> },
    private readonly sheet: Worksheet,
    private readonly target: Writable,
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

  private async addLines(lines: string[]): Promise<void> {
    let since = 0;
    for (const line of lines) {
      if (!line) continue;
      const cells = cellsOf(JSON.parse(line) as Record<string, unknown>);
      const row = this.sheet.addRow(cells.map((c) => c.value));
      cells.forEach((c, i) => {
        if (c.numFmt) row.getCell(i + 1).numFmt = c.numFmt;
      });
      row.commit();
      if (++since >= ROWS_PER_YIELD) {
        since = 0;
        await this.drained();
      }
    }
    await this.drained();
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
