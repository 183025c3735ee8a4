// offramp tx list [--limit N] [--cursor C] [--all]
// One page (the next cursor on stderr when more remain), or with --all every page,
// streamed: rows are written as each page arrives, never collected first.
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { parseIntFlag, shellQuote } from '../../lib/input.js';
import { asPage } from '../../lib/client/paginate.js';
import { resolveFormat } from '../../lib/output/format.js';
import { writeJson, writeNdjsonLine } from '../../lib/output/json.js';
import type { Transaction } from '../../lib/schemas.js';

export type ListOptions = { limit?: string; cursor?: string; all?: boolean };

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, ['table', 'json', 'ndjson']);
  const limit = opts.limit !== undefined ? parseIntFlag(opts.limit, '--limit', 1, 100) : undefined;
  const cursor = opts.cursor !== undefined ? opts.cursor.trim() : undefined;
  if (cursor === '') throw new UsageError('--cursor must not be empty', 'pass the next_cursor a previous page printed');
  const api = await ctx.api();
  const query = { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) };
  // The table renderer (cli-table3, chalk) loads only for a table.
  const table = format === 'table' ? (await import('../../lib/tx/render.js')).listTable(ctx.io, ctx.now()) : undefined;

  if (!opts.all) {
    const answer = (await api.transactions.list(query)).data;
    // --json is the API's data exactly: for one page, the page object with its cursor.
    if (format === 'json') writeJson(ctx.io, answer);
    const page = asPage<Transaction>(answer);
    if (format === 'ndjson') for (const tx of page.data) writeNdjsonLine(ctx.io, tx);
    if (table) for (const tx of page.data) table.row(tx);
    if (format === 'table' && page.data.length === 0) ctx.io.err('no transactions');
    if (page.next_cursor && page.has_more !== false) {
      const next = ['offramp tx list', ...(limit !== undefined ? [`--limit ${limit}`] : []), `--cursor ${shellQuote(page.next_cursor)}`];
      ctx.io.err(`more: ${next.join(' ')}`);
    }
    return;
  }

  // --all --json is one JSON array, written item by item as pages arrive.
  let count = 0;
  for await (const tx of api.transactions.all(query)) {
    if (format === 'json') ctx.io.out(`${count === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(tx, null, 2))}`);
    else if (format === 'ndjson') writeNdjsonLine(ctx.io, tx);
    else table?.row(tx);
    count++;
  }
  if (format === 'json') ctx.io.out(count === 0 ? '[]\n' : '\n]\n');
  if (format === 'table' && count === 0) ctx.io.err('no transactions');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
