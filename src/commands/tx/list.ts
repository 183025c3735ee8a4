// offramp tx list: one page, or with --all every page, streamed: rows are written as each page
// arrives, never collected first. Filters are sent to the service and applied again to what
// comes back (src/lib/client/filters.ts).
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { parseIntFlag, shellQuote } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { counted } from '../../lib/output/spinner.js';
import { pageJson, writeJson, writeJsonPage, writeNdjsonLine } from '../../lib/output/json.js';
import { FULL_PAGE, type TransactionListQuery } from '../../lib/client/api.js';
import { DEFAULT_PAGE } from '../../lib/client/paginate.js';
import { windowFilter } from '../../lib/input/window.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('list')
    .description('list transactions, newest first')
    .option('--status <status>', 'only transactions in this status')
    .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
    .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)')
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'follow every page to the end (streams)')
    .option('--raw-cells', "-o csv: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)")
    .addHelpText(
      'after',
      examples('offramp tx list --limit 10', 'offramp tx list --status completed --from 2026-11-01 --all -o ndjson', 'offramp tx list --all -o csv > transactions.csv'),
    );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx list'));
  if (opts.rawCells && format !== 'csv') throw new UsageError(`--raw-cells applies to -o csv only (-o ${format} never alters a cell)`);
  const limit = opts.limit !== undefined ? parseIntFlag(opts.limit, '--limit', 1, 100) : undefined;
  const cursor = opts.cursor !== undefined ? opts.cursor.trim() : undefined;
  if (cursor === '') throw new UsageError('--cursor must not be empty', 'pass the next_cursor a previous page printed');
  const status = opts.status?.trim();
  if (status === '') throw new UsageError('--status must not be empty');
  const query: TransactionListQuery = {
    ...windowFilter(opts),
    ...(status !== undefined ? { status } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
  };
  const api = await ctx.api();
  // The table renderer (chalk, string-width) loads only for a table.
  const table = format === 'table' ? (await import('../../lib/tx/render.js')).listTable(ctx.io, ctx.now()) : undefined;

  // One page unless --all, rows written as they arrive. --json is the page object either way:
  // one page as the service sent it; with --all, every item in one, written as they come.
  const page = opts.all ? undefined : await api.transactions.list({ ...query, limit: limit ?? DEFAULT_PAGE });
  const txs = page ? page.items : counted(ctx, 'reading transactions', api.transactions.all({ ...query, ...(limit !== undefined ? { limit } : {}) }), true);
  let count = 0;
  if (format === 'json') {
    if (page) writeJson(ctx.io, pageJson(page, limit ?? DEFAULT_PAGE));
    else await writeJsonPage(ctx.io, txs, limit ?? FULL_PAGE);
  } else if (format === 'csv') {
    await (await import('../../lib/tx/csv.js')).writeTransactionsCsv(ctx.io, txs, { rawCells: Boolean(opts.rawCells) });
  } else {
    for await (const tx of txs) {
      if (format === 'ndjson') writeNdjsonLine(ctx.io, tx);
      else table?.row(tx);
      count++;
    }
  }
  if (format === 'table' && count === 0) ctx.io.err(page && !page.last ? 'no matching transactions on this page' : 'no transactions');
  if (page && !page.last && page.nextCursor) {
    const again = [
      'offramp tx list',
      ...(status !== undefined ? [`--status ${shellQuote(status)}`] : []),
      ...(opts.from !== undefined ? [`--from ${shellQuote(opts.from)}`] : []),
      ...(opts.to !== undefined ? [`--to ${shellQuote(opts.to)}`] : []),
      ...(limit !== undefined ? [`--limit ${limit}`] : []),
      `--cursor ${shellQuote(page.nextCursor)}`,
    ];
    ctx.io.err(`more: ${again.join(' ')}`);
  }
}
