// A paged list of the API as a command prints it (`tx list`, `webhooks list`; docs/output.md,
// "Lists"): one page, or with --all every page as it arrives; --json the page object either way.
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { FULL_PAGE, type ListAnswer, type ListQuery } from '../client/api.js';
import { DEFAULT_PAGE } from '../client/paginate.js';
import { UsageError } from '../errors.js';
import { parseIntFlag } from '../input/values.js';
import type { Format } from './format.js';
import { pageJson, writeJson, writeJsonPage } from './json.js';
import { counted, type ProgressContext } from './spinner.js';

/** The paging flags, after the list's own filters; `all` says how --all prints. */
export function pageFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>, all: string) {
  return cmd
    .option('--limit <n>', 'page size, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', all)
    .option('--raw-cells', "-o csv: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)");
}

/** The paging flags checked, before any request. */
export function pageQuery(flags: { limit?: string; cursor?: string; rawCells?: boolean }, format: Format): ListQuery {
  if (flags.rawCells && format !== 'csv') throw new UsageError(`--raw-cells applies to -o csv only (-o ${format} never alters a cell)`);
  const cursor = flags.cursor?.trim();
  if (cursor === '') throw new UsageError('--cursor must not be empty', 'pass the next_cursor a previous page printed');
  return { ...(flags.limit !== undefined ? { limit: parseIntFlag(flags.limit, '--limit', 1, 100) } : {}), ...(cursor !== undefined ? { cursor } : {}) };
}

/**
 * One page unless `all`, else every item as it comes, counted on stderr as `what` (`printed`:
 * each goes out as it comes). --json is written here, the page object either way, and `items`
 * is then undefined.
 */
export async function readList<T, Q extends ListQuery>(
  ctx: ProgressContext,
  source: { list(query: Q): Promise<ListAnswer<T>>; all(query: Q): AsyncIterable<T> },
  query: Q,
  opts: { all: boolean | undefined; format: Format; what: string; printed: boolean },
): Promise<{ page?: ListAnswer<T>; items?: AsyncIterable<T> | T[] }> {
  const json = opts.format === 'json';
  if (!opts.all) {
    const page = await source.list({ ...query, limit: query.limit ?? DEFAULT_PAGE });
    if (json) writeJson(ctx.io, pageJson(page, query.limit ?? DEFAULT_PAGE));
    return json ? { page } : { page, items: page.items };
  }
  const items = counted(ctx, opts.what, source.all(query), opts.printed);
  if (json) await writeJsonPage(ctx.io, items, query.limit ?? FULL_PAGE);
  return json ? {} : { items };
}
