// offramp webhooks list [--tx ID] [--type T] [--status S] [--from T] [--to T] [--limit N]
//                       [--cursor C] [--all]
// The partner's webhook event history with delivery telemetry, oldest first as the service
// pages it. One page by default (the next cursor is shown on stderr); --all follows
// next_cursor to the end, streaming. --json prints the API's data: the page object for one
// page, an array of every event with --all; -o ndjson prints one event per line.
import { once } from 'node:events';
import { Command } from '@commander-js/extra-typings';
import { DEFAULT_PAGE } from '../../lib/client/paginate.js';
import type { Context } from '../../lib/context.js';
import { parseIntFlag, shellQuote } from '../../lib/input/values.js';
import { resolveFormat } from '../../lib/output/format.js';
import { csvStream } from '../../lib/output/csv.js';
import { renderTable, type Column } from '../../lib/output/render.js';
import { counted } from '../../lib/output/spinner.js';
import { writeJson, writeJsonArray, writeNdjsonLine } from '../../lib/output/json.js';
import { relative, timeCell } from '../../lib/output/time.js';
import type { WebhookEvent } from '../../lib/schemas.js';
import { eventFilters } from '../../lib/webhooks/filters.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('list')
    .description('list webhook events with their delivery status')
    .option('--tx <id>', 'only events about this transaction')
    .option('--type <type>', 'only this event type')
    .option('--status <status>', "only this delivery status (the emulator's: pending, delivered, failed)")
    .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
    .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'follow every page to the end')
    .addHelpText('after', examples('offramp webhooks list --status failed --all', 'offramp webhooks list --tx 0b6f…91'));

const CSV_COLUMNS = ['event_id', 'aggregate_id', 'event_type', 'delivery_status', 'attempts', 'last_error', 'created_at', 'updated_at'];

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, ['table', 'json', 'ndjson', 'csv']);
  const query = eventFilters(opts);
  const limit = opts.limit !== undefined ? parseIntFlag(opts.limit, '--limit', 1, 100) : undefined;
  if (opts.cursor !== undefined) query.cursor = opts.cursor;
  const api = await ctx.api();

  // One page unless --all; --json of one page is the page as the service shaped it.
  const page = opts.all ? undefined : await api.webhooks.list({ ...query, limit: limit ?? DEFAULT_PAGE });
  if (page && format === 'json') return writeJson(io, page.data);
  // A table waits for every event; the other formats print each as it comes.
  const events = page ? page.items : counted(ctx, 'reading webhook events', api.webhooks.all({ ...query, ...(limit !== undefined ? { limit } : {}) }), format !== 'table');
  if (format === 'ndjson') {
    for await (const event of events) writeNdjsonLine(io, event);
  } else if (format === 'json') {
    await writeJsonArray(io, events);
  } else if (format === 'csv') {
    await writeCsv(ctx, events);
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
    // On a narrow terminal: the time alone relative, ids shortened to their head, then the
    // least needed columns left out; the last error keeps at least 24 characters.
    { header: 'EVENT ID', value: (e) => e.event_id, fit: { min: 9, giveWay: 'first' } },
    { header: 'TYPE', value: (e) => e.event_type },
    { header: 'TRANSACTION', value: (e) => e.aggregate_id, fit: { min: 9, drop: 2, giveWay: 'first' } },
    { header: 'DELIVERY', value: (e) => e.delivery_status },
    { header: 'ATTEMPTS', value: (e) => e.attempts, fit: { drop: 1 } },
    { header: 'CREATED', value: (e) => timeCell(e.created_at, now, io.stdoutIsTTY), compact: (e) => relative(e.created_at, now) },
    { header: 'LAST ERROR', value: (e) => e.last_error, fit: { min: 24, drop: 3 } },
  ];
  renderTable(io, columns, events);
}

/** RFC 4180 CSV of the telemetry fields, streamed with backpressure. */
async function writeCsv(ctx: Context, events: AsyncIterable<WebhookEvent> | Iterable<WebhookEvent>): Promise<void> {
  const csv = csvStream(CSV_COLUMNS);
  csv.pipe(ctx.io.stdout, { end: false });
  const ended = once(csv, 'end');
  for await (const event of events) if (!csv.write(event)) await once(csv, 'drain');
  csv.end();
  await ended;
}
