// offramp webhooks list: the partner's webhook event history with delivery telemetry, in the
// order the service pages it (docs/webhooks.md, "Finding events").
import { Command } from '@commander-js/extra-typings';
import { FULL_PAGE } from '../../lib/client/api.js';
import { DEFAULT_PAGE } from '../../lib/client/paginate.js';
import type { Context } from '../../lib/context.js';
import { parseIntFlag, shellQuote } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { spreadsheetSafe, writeCsv } from '../../lib/output/csv.js';
import { UsageError } from '../../lib/errors.js';
import { renderTable, type Column } from '../../lib/output/render.js';
import { counted } from '../../lib/output/spinner.js';
import { pageJson, writeJson, writeJsonPage, writeNdjsonLine } from '../../lib/output/json.js';
import { relative, timeCell } from '../../lib/output/time.js';
import type { WebhookEvent } from '../../lib/schemas.js';
import { filterTransactionId } from '../../lib/tx/lookup.js';
import { eventFilters } from '../../lib/webhooks/filters.js';
import { eventIdColumn, reasonColumn, transactionColumn, typeColumn } from '../../lib/webhooks/columns.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('list')
    .description('list webhook events with their delivery status')
    .option('--tx <id>', 'only events about this transaction (id or its first 8+ characters)')
    .option('--ref <merchant_reference>', 'only events about the transaction with this reference')
    .option('--type <type>', 'only this event type')
    .option('--status <status>', "only this delivery status (the emulator's: pending, delivered, failed)")
    .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
    .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'follow every page to the end')
    .option('--raw-cells', "-o csv: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)")
    .addHelpText('after', examples('offramp webhooks list --status failed --all', 'offramp webhooks list --tx 0b6f3c1e'));

const CSV_COLUMNS = ['event_id', 'aggregate_id', 'event_type', 'delivery_status', 'attempts', 'last_error', 'created_at', 'updated_at'];

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, formatsOf('webhooks list'));
  if (opts.rawCells && format !== 'csv') throw new UsageError(`--raw-cells applies to -o csv only (-o ${format} never alters a cell)`);
  const { tx, ref, ...flags } = opts;
  const query = eventFilters(flags);
  const limit = opts.limit !== undefined ? parseIntFlag(opts.limit, '--limit', 1, 100) : undefined;
  if (opts.cursor !== undefined) query.cursor = opts.cursor;
  const txId = await filterTransactionId(ctx, tx, ref);
  if (txId !== undefined) query.transaction_id = txId;
  const api = await ctx.api();

  // One page unless --all; --json is the page object either way (as tx list).
  const page = opts.all ? undefined : await api.webhooks.list({ ...query, limit: limit ?? DEFAULT_PAGE });
  if (page && format === 'json') return writeJson(io, pageJson(page, limit ?? DEFAULT_PAGE));
  // A table waits for every event; the other formats print each as it comes.
  const events = page ? page.items : counted(ctx, 'reading webhook events', api.webhooks.all({ ...query, ...(limit !== undefined ? { limit } : {}) }), format !== 'table');
  if (format === 'ndjson') {
    for await (const event of events) writeNdjsonLine(io, event);
  } else if (format === 'json') {
    await writeJsonPage(io, events, limit ?? FULL_PAGE);
  } else if (format === 'csv') {
    // Spreadsheet-safe cells as in the ledger export (last_error is the service's free text), unless --raw-cells.
    await writeCsv(io, CSV_COLUMNS, events, opts.rawCells ? {} : { guard: spreadsheetSafe });
  } else {
    // A table aligns its columns, so it needs every row first.
    const all: WebhookEvent[] = [];
    for await (const event of events) all.push(event);
    renderEvents(ctx, all, page?.last ?? true);
  }
  if (page && !page.last && page.nextCursor) io.err(`more events: --cursor ${shellQuote(page.nextCursor)} (or --all)`);
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
