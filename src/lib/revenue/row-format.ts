// How `revenue export` writes ledger rows: a stage of the export's pipeline that takes rows
// in ledger order and gives the output's bytes: CSV (output/csv.ts), a JSON array (one row
// per line) or NDJSON; XLSX is xlsx.ts.
import { Transform } from 'node:stream';
import { csvStream, guardExceptAmounts } from '../output/csv.js';
import { REVENUE_COLUMNS } from '../schemas.js';

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type FormatOptions = {
  /** CSV cells exactly as received, formula-like ones included (--raw-cells). */
  rawCells?: boolean;
  /** CSV for Excel: a UTF-8 byte order mark first (--excel); records end in CRLF anyway. */
  excel?: boolean;
  /** CSV written to a terminal: control characters in cells shown, not sent (output/csv.ts). */
  terminal?: boolean;
};

/** Columns holding the ledger's decimal amounts: `crypto_amount` in token units, the rest in NGN (docs/api.md, "What the spec fixes": money). */
export const AMOUNT_COLUMNS: readonly string[] = ['crypto_amount', 'amount', 'platform_fee', 'share'];

/** The ledger's cells made spreadsheet-safe, its amounts kept as numbers. */
export const safeCell = guardExceptAmounts(AMOUNT_COLUMNS);

/** Rows in, text out: each row's text from `each(row, index)`, then `end(rows)` once they are all in. */
function textStage(each: (row: object, index: number) => string, end: (rows: number) => string = () => ''): Transform {
  let rows = 0;
  return new Transform({
    writableObjectMode: true,
    transform(row: object, _encoding, done) {
      done(null, each(row, rows++));
    },
    flush(done) {
      done(null, end(rows));
    },
  });
}

export function formatStage(format: Exclude<ExportFormat, 'xlsx'>, opts: FormatOptions = {}): Transform {
  switch (format) {
    case 'csv':
      return csvStream(REVENUE_COLUMNS, { ...(opts.rawCells ? {} : { guard: safeCell }), bom: Boolean(opts.excel), terminal: Boolean(opts.terminal) });
    case 'ndjson':
      return textStage((row) => `${JSON.stringify(row)}\n`);
    case 'json':
      // "[" and one row a line: "[\n{…},\n{…}\n]\n"; no rows: "[]\n".
      return textStage(
        (row, i) => `${i === 0 ? '[' : ','}\n${JSON.stringify(row)}`,
        (rows) => (rows > 0 ? '\n]\n' : '[]\n'),
      );
  }
}
