// How ledger rows are written by `revenue export`: CSV (RFC 4180: header row, the spec's
// column order, CRLF, a field quoted when it holds a comma, quote, CR or LF, or a
// character spreadsheet imports split on (output/csv.ts), values verbatim but for
// spreadsheet-safe cells), a JSON array (one row per line), NDJSON, or
// XLSX (src/lib/revenue/xlsx.ts), whose rows travel as NDJSON until the workbook writer
// takes them. A formatter turns a page of rows into text; the separator is what goes
// between two rows that were formatted apart (a later slice's first row after an earlier
// slice's last), which only JSON needs.
import { csvHeader, csvRecords, spreadsheetSafe, type CellGuard } from '../output/csv.js';
import { REVENUE_COLUMNS } from '../schemas.js';

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type FormatOptions = {
  /** CSV cells exactly as received, formula-like ones included (--raw-cells). */
  rawCells?: boolean;
  /** CSV for Excel: a UTF-8 byte order mark first (--excel); records end in CRLF anyway. */
  excel?: boolean;
};

export type RowFormatter = {
  header: string;
  separator: string;
  /** Text of `rows`, to follow other rows' text after `separator`. */
  rows(rows: readonly object[]): string;
  footer(totalRows: number): string;
};

/** Columns holding the ledger's decimal amounts (docs/api.md, "What the spec fixes": money). */
export const AMOUNT_COLUMNS: readonly string[] = ['crypto_amount', 'amount', 'platform_fee', 'share'];

export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Spreadsheet-safe CSV cells: a cell a spreadsheet would run as a formula gets a leading
 * `'`, except a plain decimal in an amount column ("-3.83" is a number to a spreadsheet,
 * not a formula, and finance sums it). Free-text columns (references, ids) are guarded
 * whatever they hold: the partner's sellers fill them in.
 */
export const safeCell: CellGuard = (value, column) => (PLAIN_DECIMAL.test(value) && AMOUNT_COLUMNS.includes(column) ? value : spreadsheetSafe(value));

const ndjson: RowFormatter = {
  header: '',
  separator: '',
  rows: (rows) => rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
  footer: () => '',
};

export function rowFormatter(format: ExportFormat, opts: FormatOptions = {}): RowFormatter {
  switch (format) {
    case 'csv': {
      const guard = opts.rawCells ? undefined : safeCell;
      return {
        header: `${opts.excel ? '\uFEFF' : ''}${csvHeader(REVENUE_COLUMNS)}`,
        separator: '',
        rows: (rows) => csvRecords(REVENUE_COLUMNS, rows, guard),
        footer: () => '',
      };
    }
    case 'ndjson':
    case 'xlsx':
      return ndjson;
    case 'json':
      return {
        header: '[',
        separator: ',',
        rows: (rows) => rows.map((row, i) => `${i > 0 ? ',' : ''}\n${JSON.stringify(row)}`).join(''),
        footer: (total) => (total > 0 ? '\n]\n' : ']\n'),
      };
  }
}
