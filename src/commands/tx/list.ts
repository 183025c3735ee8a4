// offramp tx list: one page, or with --all every page, streamed: rows are written as each page
// arrives, never collected first. Filters are sent to the service and applied again to what
// comes back (src/lib/client/filters.ts).
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeNdjsonLine } from '../../lib/output/json.js';
import { pageFlags, pageQuery, readList, sayNextPage } from '../../lib/output/list.js';
import type { TransactionListQuery } from '../../lib/client/api.js';
import { windowFilter } from '../../lib/input/window.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  pageFlags(
    new Command('list')
      .description('list transactions, newest first')
      .option('--status <status>', 'only transactions in this status')
      .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
      .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)'),
    'follow every page to the end (streams)',
  ).addHelpText(
    'after',
    examples('offramp tx list --limit 10', 'offramp tx list --status completed --from 2026-11-01 --all -o ndjson', 'offramp tx list --all -o csv > transactions.csv'),
  );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx list'));
  const paging = pageQuery(opts, format);
  const status = opts.status?.trim();
  if (status === '') throw new UsageError('--status must not be empty');
  const query: TransactionListQuery = { ...windowFilter(opts), ...(status !== undefined ? { status } : {}), ...paging };
  const api = await ctx.api();
  // The table renderer (chalk, string-width) loads only for a table.
  const table = format === 'table' ? (await import('../../lib/tx/render.js')).listTable(ctx.io, ctx.now()) : undefined;

  // Rows written as they arrive.
  const { page, items } = await readList(ctx, api.transactions, query, { all: opts.all, format, what: 'reading transactions', printed: true });
  if (format === 'csv') await (await import('../../lib/tx/csv.js')).writeTransactionsCsv(ctx.io, items!, { rawCells: Boolean(opts.rawCells) });
  else if (items) {
    for await (const tx of items) {
      if (format === 'ndjson') writeNdjsonLine(ctx.io, tx);
      else table?.row(tx);
    }
  }
  if (table && !table.rows) ctx.io.err(page && !page.last ? 'no matching transactions on this page' : 'no transactions');
  sayNextPage(ctx.io, ctx.globals, page, ['tx', 'list'], { status, from: opts.from, to: opts.to, limit: paging.limit, 'raw-cells': opts.rawCells });
}
