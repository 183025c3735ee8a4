// CSV through csv-stringify: RFC 4180, values written exactly as given so the ledger's
// decimal strings reach the file unchanged, unless a guard rewrites a string cell
// (spreadsheetSafe). A field is also quoted when it holds a character a spreadsheet import
// splits on (SEPARATORS).
//
// CSV bound for a terminal shows each cell's control characters as tables do (docs/output.md,
// "Text from outside"). Whoever writes CSV must say where it goes (`terminal`), so no writer
// can forget.
import { once } from 'node:events';
import { stringify, type Stringifier } from 'csv-stringify';
import type { IO } from '../io.js';
import { terminalSafe } from './sanitize.js';

/** Rewrites a string cell of `column` before it is written. */
export type CellGuard = (value: string, column: string) => string;

/**
 * What a spreadsheet's CSV import may split a record on besides the comma (Calc: `;` and TAB
 * by default; Excel in decimal-comma locales: `;`; both offer space), and CR and LF (RFC 4180,
 * 2.6): a field holding one is quoted, so a reference `a;b` stays one cell.
 */
const SEPARATORS = /[;\t \r\n]/;

export type CsvOptions = {
  /** Whether the CSV goes to a terminal: then each cell's control characters are shown, not sent. */
  terminal: boolean;
  guard?: CellGuard;
  /** A UTF-8 byte order mark first (Excel). */
  bom?: boolean;
};

/** A streaming writer: the header first, even when no record follows. */
export function csvStream(columns: readonly string[], opts: CsvOptions): Stringifier {
  const { guard, terminal } = opts;
  const shown = terminal ? terminalSafe : (v: string) => v;
  return stringify({
    header: true,
    bom: Boolean(opts.bom),
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
  });
}

/**
 * The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
 * Injection"): `=`, `+`, `-`, `@`, TAB and CR, and their full-width forms, which some
 * spreadsheets fold into the ASCII ones (the same list as csv-stringify's escape_formulas).
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * A leading `'` when the cell starts like a formula (OWASP's advice). Not csv-stringify's
 * `escape_formulas`: it spares only JavaScript numbers, and a negative decimal-string amount
 * would gain the quote too, so callers that keep plain numbers apply this per column.
 */
export function spreadsheetSafe(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** A decimal string as the service writes amounts ("-3.83"): a spreadsheet holds it as a number. */
export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Spreadsheet-safe cells, except a plain decimal in one of the `amounts` columns ("-3.83" is a
 * number a spreadsheet sums, not a formula). Free-text columns are guarded whatever they
 * hold: the partner's sellers, or the service, fill them in.
 */
export function guardExceptAmounts(amounts: readonly string[]): CellGuard {
  return (value, column) => (PLAIN_DECIMAL.test(value) && amounts.includes(column) ? value : spreadsheetSafe(value));
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
