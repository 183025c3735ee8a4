// CSV through csv-stringify: RFC 4180 (header row, CRLF records, a field quoted when it
// holds a comma, a quote, a CR or a LF), values written exactly as given, so the
// ledger's decimal strings reach the file unchanged.
import { stringify, type Options, type Stringifier } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';

function options(columns: readonly string[]): Options {
  return {
    columns: columns.map((key) => ({ key })),
    record_delimiter: 'windows',
    // csv-stringify quotes a field holding its own record delimiter (CRLF) but not a bare
    // CR or LF; RFC 4180 (2.6) wants those quoted too, or a strict reader splits the record.
    quoted_match: /[\r\n]/,
    cast: { boolean: (v) => String(v), object: (v) => JSON.stringify(v) },
  };
}

/** A streaming writer: header first, then one record per written object. */
export function csvStream(columns: readonly string[]): Stringifier {
  return stringify({ ...options(columns), header: true });
}

/** The header line alone. */
export function csvHeader(columns: readonly string[]): string {
  return stringifySync([Object.fromEntries(columns.map((c) => [c, c]))], options(columns));
}

/** Records for a batch of rows, in one call (the per-call cost is paid once a page, not once a row). */
export function csvRecords(columns: readonly string[], rows: readonly object[]): string {
  return rows.length === 0 ? '' : stringifySync(rows as Record<string, unknown>[], options(columns));
}
