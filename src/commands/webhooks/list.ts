// offramp webhooks list: the partner's webhook event history with delivery telemetry, in the
// order the service pages it (docs/webhooks.md, "Finding events").
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { spreadsheetSafe, writeCsv } from '../../lib/output/csv.js';
import { renderTable, type Column } from '../../lib/output/render.js';
import { writeNdjsonLine } from '../../lib/output/json.js';
import { pageFlags, pageQuery, readList, sayNextPage } from '../../lib/output/list.js';
import { relative, timeCell } from '../../lib/output/time.js';
import type { WebhookEvent } from '../../lib/schemas.js';
import { filterTransactionId } from '../../lib/tx/lookup.js';
import { eventFilters } from '../../lib/webhooks/filters.js';
import { eventIdColumn, reasonColumn, transactionColumn, typeColumn } from '../../lib/webhooks/columns.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  pageFlags(
    new Command('list')
      .description('list webhook events with their delivery status')
      .option('--tx <id>', 'only events about this transaction (id or its first 8+ characters)')
      .option('--ref <merchant_reference>', 'only events about the transaction with this reference')
      .option('--type <type>', 'only this event type')
      .option('--status <status>', "only this delivery status (the emulator's: pending, delivered, failed)")
      .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
      .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)'),
    'follow every page to the end',
  ).addHelpText('after', examples('offramp webhooks list --status failed --all', 'offramp webhooks list --tx 0b6f3c1e'));

const CSV_COLUMNS = ['event_id', 'aggregate_id', 'event_type', 'delivery_status', 'attempts', 'last_error', 'created_at', 'updated_at'];

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, formatsOf('webhooks list'));
  const paging = pageQuery(opts, format);
  const { tx, ref, ...flags } = opts;
  const query = { ...eventFilters(flags), ...paging };
  const txId = await filterTransactionId(ctx, tx, ref);
  if (txId !== undefined) query.transaction_id = txId;
  const api = await ctx.api();

  // A table waits for every event; the other formats print each as it comes.
  const { page, items: events } = await readList(ctx, api.webhooks, query, { all: opts.all, format, what: 'reading webhook events', printed: format !== 'table' });
  if (format === 'ndjson') {
    for await (const event of events!) writeNdjsonLine(io, event);
  } else if (format === 'csv') {
    // Spreadsheet-safe cells as in the ledger export (last_error is the service's free text), unless --raw-cells.
    await writeCsv(io, CSV_COLUMNS, events!, opts.rawCells ? {} : { guard: spreadsheetSafe });
  } else if (events) {
    // A table aligns its columns, so it needs every row first.
    const all: WebhookEvent[] = [];
    for await (const event of events) all.push(event);
    renderEvents(ctx, all, page?.last ?? true);
  }
  sayNextPage(ctx.io, ctx.globals, page, ['webhooks', 'list'], { tx: txId, type: flags.type, status: flags.status, from: flags.from, to: flags.to, limit: paging.limit, 'raw-cells': opts.rawCells });
}

function renderEvents(ctx: Context, events: WebhookEvent[], last: boolean): void {
  const { io } = ctx;
  if (events.length === 0) {
    io.err(last ? 'No webhook events match.' : 'No matching webhook events on this page.');
    return;
  }
  const now = ctx.now();
  const columns: Column<WebhookEvent>[] = [
    // The last error is never cut below 31 characters: "no webhook endpoint configured…" stays whole.
    eventIdColumn((e) => e.event_id),
    typeColumn((e) => e.event_type),
    transactionColumn((e) => e.aggregate_id, 3),
    { header: 'DELIVERY', value: (e) => e.delivery_status },
    { header: 'ATTEMPTS', value: (e) => e.attempts, fit: { drop: 1 } },
    { header: 'CREATED', value: (e) => timeCell(e.created_at, now, io.stdoutIsTTY), compact: (e) => relative(e.created_at, now), fit: { drop: 2 } },
    reasonColumn('LAST ERROR', (e) => e.last_error, 31),
  ];
  renderTable(io, columns, events);
}
