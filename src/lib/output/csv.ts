// CSV through csv-stringify: RFC 4180 (header row, CRLF records, a field quoted when it
// holds a comma, a quote, a CR or a LF, and also when it holds a character a spreadsheet
// import splits on: SEPARATORS), values written exactly as given, so the ledger's decimal
// strings reach the file unchanged; unless a guard is given, which may rewrite a string
// cell (spreadsheet-safe cells, spreadsheetSafe).
//
// CSV bound for a terminal is the one exception to "exactly as given" (docs/output.md,
// "Text from outside"): every cell's control characters are shown as tables show them
// (terminalSafe), so a reference holding ESC ] 0 ; … BEL cannot retitle or clear the
// screen. Whoever writes CSV says where it goes (`terminal`), so no writer can forget;
// a file or a pipe gets the bytes as they are.
import { once } from 'node:events';
import { stringify, type Options, type Stringifier } from 'csv-stringify';
import type { IO } from '../io.js';
import { terminalSafe } from './sanitize.js';

/** Rewrites a string cell of `column` before it is written. */
export type CellGuard = (value: string, column: string) => string;

/**
 * Characters a spreadsheet's CSV import may split a record on besides the comma:
 * LibreOffice Calc's import splits on comma, semicolon and TAB by default, Excel in
 * locales with a decimal comma reads `;` as the separator, and both offer space. A field
 * holding one is quoted (RFC 4180 allows any field to be), so a reference such as `a;b`
 * stays one cell and the amounts stay under their headers. CR and LF too: RFC 4180 (2.6)
 * wants them quoted, or a strict reader splits the record.
 */
const SEPARATORS = /[;\t \r\n]/;

export type CsvOptions = {
  /** Whether the CSV goes to a terminal: then each cell's control characters are shown, not sent. */
  terminal: boolean;
  guard?: CellGuard;
  /** A UTF-8 byte order mark first (Excel). */
  bom?: boolean;
};

function options(columns: readonly string[], opts: CsvOptions): Options {
  const { guard, terminal } = opts;
  const shown = terminal ? terminalSafe : (v: string) => v;
  return {
    columns: columns.map((key) => ({ key })),
    record_delimiter: 'windows',
    quoted_match: SEPARATORS,
    cast: {
      boolean: (v) => String(v),
      object: (v) => shown(JSON.stringify(v)),
      // The header's cells are column names, never guarded.
      ...(guard || terminal
        ? { string: (v: string, ctx: { column?: number | string; header: boolean }) => (ctx.header ? v : shown(guard ? guard(v, String(ctx.column)) : v)) }
        : {}),
    },
  };
}

/**
 * The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
 * Injection"): `=`, `+`, `-`, `@`, TAB and CR, and their full-width forms, which some
 * spreadsheets fold into the ASCII ones (the same list as csv-stringify's escape_formulas).
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * The cell as text a spreadsheet shows and never runs: a leading `'` when it starts like a
 * formula (OWASP's advice). csv-stringify's own `escape_formulas` does the same but spares
 * only JavaScript numbers, and the ledger's amounts are decimal strings: a negative one would
 * gain the quote too, so callers that must keep plain numbers apply this per column.
 */
export function spreadsheetSafe(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * A streaming writer: header first (even when no record follows), then one record per
 * written object; `bom`: a UTF-8 byte order mark before it all.
 */
export function csvStream(columns: readonly string[], opts: CsvOptions): Stringifier {
  return stringify({ ...options(columns, opts), header: true, bom: Boolean(opts.bom) });
}

/** `rows` as CSV on stdout, streamed with backpressure; on a terminal, cells shown terminal-safe. */
export async function writeCsv(io: IO, columns: readonly string[], rows: AsyncIterable<object> | Iterable<object>, opts: Omit<CsvOptions, 'terminal'> = {}): Promise<void> {
  const csv = csvStream(columns, { ...opts, terminal: io.stdoutIsTTY });
  csv.pipe(io.stdout, { end: false });
  const ended = once(csv, 'end');
  for await (const row of rows) if (!csv.write(row)) await once(csv, 'drain');
  csv.end();
  await ended;
}
