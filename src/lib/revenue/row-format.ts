// How ledger rows are written by `revenue export`: CSV (RFC 4180: header row, the spec's
// column order, CRLF, a field quoted when it holds a comma, quote, CR or LF, values
// verbatim), a JSON array (one row per line), or NDJSON. A formatter turns a page of rows into text; the separator is what
// goes between two rows that were formatted apart (a later slice's first row after an
// earlier slice's last), which only JSON needs.
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

/**
 * One CSV field, quoted as csv-stringify quotes (src/lib/output/csv.ts; the unit tests
 * hold the two to the same bytes). Written out here because an export formats every row:
 * csv-stringify's per-call setup cost a third of the CLI's CPU time on 100,000 rows.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRecord(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i > 0 ? ',' : '') + csvField(values[i]);
  return `${line}\r\n`;
}

export function rowFormatter(format: ExportFormat): RowFormatter {
  switch (format) {
    case 'csv':
      return {
        header: csvRecord(REVENUE_COLUMNS),
        separator: '',
        rows: (rows) => {
          let text = '';
          for (const row of rows as Record<string, unknown>[]) text += csvRecord(REVENUE_COLUMNS.map((c) => row[c]));
          return text;
        },
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
