// A paged list of the API as a command prints it (`tx list`, `webhooks list`; docs/output.md,
// "Lists"): one page, or with --all every page as it arrives; --json the page object either way.
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { FULL_PAGE, type ListAnswer, type ListQuery } from '../client/api.js';
import { DEFAULT_PAGE, isObject } from '../client/paginate.js';
import { UsageError } from '../errors.js';
import { offrampWords, parseIntFlag, pasteable, shellQuote } from '../input/values.js';
import type { Globals } from '../context.js';
import type { IO } from '../io.js';
import type { Format } from './format.js';
import { writeJson } from './json.js';
import { counted, type ProgressContext } from './spinner.js';

/** The page object of a list: the one `--json` shape of every list, one page or all. */
type PageJson = { data: unknown[]; has_more: boolean; limit: number; next_cursor: string | null };

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
 * is then undefined. The spec's service sends the page object as its `data`, printed as sent; a
 * service that sends the items bare in `data`, the cursor beside them, is shown in the same
 * object, built from what it sent, so a script meets one shape.
 */
export async function readList<T, Q extends ListQuery>(
  ctx: ProgressContext,
  source: { list(query: Q): Promise<ListAnswer<T>>; all(query: Q): AsyncIterable<T> },
  query: Q,
  opts: { all: boolean | undefined; format: Format; what: string; printed: boolean },
): Promise<{ page?: ListAnswer<T>; items?: AsyncIterable<T> | T[] }> {
  const json = opts.format === 'json';
  if (!opts.all) {
    const limit = query.limit ?? DEFAULT_PAGE;
    const page = await source.list({ ...query, limit });
    if (!json) return { page, items: page.items };
    const d = page.data;
    const built: PageJson = { data: Array.isArray(d) ? d : page.items, has_more: !page.last, limit, next_cursor: page.last ? null : page.nextCursor };
    writeJson(ctx.io, isObject(d) && Array.isArray(d.data) ? d : built);
    return { page };
  }
  const items = counted(ctx, opts.what, source.all(query), opts.printed);
  if (json) await writeJsonPage(ctx.io, items, query.limit ?? FULL_PAGE);
  return json ? {} : { items };
}

/**
 * When a page is not the last, the command that reads the next one, on stderr, ready to paste:
 * the same profile or base URL, `words`, the flags `given` (undefined ones left
 * out, `true` ones bare), the output format asked for, and the cursor. A --jq expression is not
 * kept among the globals: the line says to add it.
 */
export function sayNextPage(
  io: IO,
  globals: Pick<Globals, 'profile' | 'baseUrl' | 'apiKey' | 'json' | 'jq' | 'output'>,
  page: ListAnswer<unknown> | undefined,
  words: string[],
  given: Record<string, string | number | boolean | undefined>,
): void {
  if (!page || page.last || !page.nextCursor) return;
  const flags = Object.entries(given).flatMap(([flag, v]) => (v === true ? [`--${flag}`] : v !== undefined && v !== false ? [`--${flag}`, shellQuote(String(v))] : []));
  const format = globals.output !== undefined ? ['-o', shellQuote(globals.output)] : globals.json && !globals.jq ? ['--json'] : [];
  const line = pasteable([...offrampWords(globals), ...words, ...flags, ...format, '--cursor', shellQuote(page.nextCursor)], globals);
  io.err(`more: ${line}${globals.jq ? ' (with your --jq, as before)' : ''} (or --all)`);
}

/**
 * Every page of a list (`--all --json`) as one page object, as writeJson would print it, its
 * items written as they come: the last page's object, holding them all, with no more to ask.
 */
async function writeJsonPage(io: IO, items: AsyncIterable<unknown>, limit: number): Promise<void> {
  let n = 0;
  io.out('{\n  "data": [');
  for await (const item of items) io.out(`${n++ === 0 ? '' : ','}\n${JSON.stringify(item, null, 2).replace(/^/gm, '    ')}`);
  const tail: Omit<PageJson, 'data'> = { has_more: false, limit, next_cursor: null };
  io.out(`${n === 0 ? ']' : '\n  ]'},\n${JSON.stringify(tail, null, 2).slice(2)}\n`);
}
