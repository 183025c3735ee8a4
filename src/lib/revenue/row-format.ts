// How ledger rows are written by `revenue export`: CSV (RFC 4180: header row, the spec's
// column order, CRLF, a field quoted when it holds a comma, quote, CR or LF, values
// verbatim), a JSON array (one row per line), or NDJSON. A formatter turns a page of rows into text; the separator is what
// goes between two rows that were formatted apart (a later slice's first row after an
// earlier slice's last), which only JSON needs.
import { csvHeader, csvRecords } from '../output/csv.js';
import { REVENUE_COLUMNS } from '../schemas.js';

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type RowFormatter = {
  header: string;
  separator: string;
  /** Text of `rows`, to follow other rows' text after `separator`. */
  rows(rows: readonly object[]): string;
  footer(totalRows: number): string;
};

export function rowFormatter(format: ExportFormat): RowFormatter {
  switch (format) {
    case 'csv':
      return {
        header: csvHeader(REVENUE_COLUMNS),
        separator: '',
        rows: (rows) => csvRecords(REVENUE_COLUMNS, rows),
        footer: () => '',
      };
    case 'ndjson':
      return {
        header: '',
        separator: '',
        rows: (rows) => rows.map((row) => `${JSON.stringify(row)}\n`).join(''),
        footer: () => '',
      };
    case 'json':
      return {
        header: '[',
        separator: ',',
        rows: (rows) => rows.map((row, i) => `${i > 0 ? ',' : ''}\n${JSON.stringify(row)}`).join(''),
        footer: (total) => (total > 0 ? '\n]\n' : ']\n'),
      };
  }
}
