// CSV through csv-stringify (RFC 4180 quoting, streaming): values are written exactly as
// given, so the ledger's decimal strings reach the file unchanged.
import { stringify, type Stringifier } from 'csv-stringify';

export function csvStream(columns: readonly string[]): Stringifier {
  return stringify({ header: true, columns: columns.map((key) => ({ key })), record_delimiter: 'windows', cast: { boolean: (v) => String(v) } });
}
