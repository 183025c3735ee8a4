// `tx list -o csv` (src/lib/output/csv.ts), streamed with backpressure so `--all` holds no
// more than a page; cells made spreadsheet-safe as the ledger export makes them, except a
// plain decimal in an amount column (docs/transactions.md).
import type { IO } from '../io.js';
import { guardExceptAmounts, writeCsv } from '../output/csv.js';

/** The snapshot's fields in the spec's order; fields a service adds are in `--json` and `-o ndjson`. */
export const TRANSACTION_CSV_COLUMNS = [
  'id',
  'status',
  'amount',
  'crypto_amount',
  'crypto_currency',
  'network',
  'rate',
  'merchant_reference',
  'merchant_id',
  'terminal_id',
  'deposit_address',
  'deposit_status',
  'deposit_id',
  'confirmations',
  'required_confirmations',
  'created_at',
  'updated_at',
  'expires_at',
  'received_at',
  'confirmed_at',
] as const;

/** Spreadsheet-safe cells: amounts that are plain decimals as they are, anything formula-like quoted. */
export const transactionCell = guardExceptAmounts(['amount', 'crypto_amount', 'rate']);

/** Writes `rows` to stdout as CSV, header first (even with no row). */
export async function writeTransactionsCsv(io: IO, rows: AsyncIterable<object> | Iterable<object>, opts: { rawCells: boolean }): Promise<void> {
  await writeCsv(io, TRANSACTION_CSV_COLUMNS, rows, opts.rawCells ? {} : { guard: transactionCell });
}
