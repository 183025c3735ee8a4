// A revenue ledger row as a record, for the demo (transactions and their history are
// drawn by src/lib/tx/render.ts).
import type { IO } from '../io.js';
import { renderRecord } from '../output/render.js';
import { timeCell } from '../output/time.js';
import type { RevenueRow } from '../schemas.js';

export function renderLedgerRow(io: IO, row: RevenueRow, now: Date): void {
  renderRecord(io, [
    {
      title: 'ledger row',
      fields: [
        ['transaction', row.transaction_id],
        ['reference', row.merchant_reference],
        ['amount', `${row.amount} NGN`],
        ['crypto', `${row.crypto_amount} ${row.crypto_currency} on ${row.network}`],
        ['platform fee', `${row.platform_fee} NGN`],
        ['partner share', `${row.share} NGN`],
        ['time', timeCell(row.ts, now, io.stdoutIsTTY)],
      ],
    },
  ]);
}
