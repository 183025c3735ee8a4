// offramp api: an authenticated raw request, like `gh api`; --paginate follows the cursor
// wherever the service puts it (src/lib/client/paginate.ts).
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import { UsageError } from '../lib/errors.js';
import { FULL_PAGE } from '../lib/client/api.js';
import { paginate, readPage } from '../lib/client/paginate.js';
import { writeJson } from '../lib/output/json.js';
import { examples, withArguments, type OptionsOf } from './command.js';

export const command = () =>
  withArguments(new Command('api'), new Argument('<method>', 'GET, POST, ...'), new Argument('<path>', 'path below the base URL, e.g. /transactions'))
    .description('send an authenticated request to any endpoint and print the JSON body')
    .option('--data <json>', 'JSON request body')
    .option('--idempotency-key <key>', 'Idempotency-Key header')
    .option('--paginate', 'follow next_cursor and print every item')
    .addHelpText(
      'after',
      examples('offramp api GET /transactions --paginate', 'offramp api POST /quotes --data \'{"crypto_currency":"usdt","network":"bep20","fiat_amount":"5000"}\''),
    );

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  // The answer is JSON whatever the flags; -o asks for a rendering this command has not.
  resolveFormat(ctx.globals, formatsOf('api'));
  const method = opts.method.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`unknown method "${opts.method}"`, `use one of: ${METHODS.join(', ')}`);
  const [path, search] = splitPath(opts.path);
  let body: unknown;
  if (opts.data !== undefined) {
    try {
      body = JSON.parse(opts.data);
    } catch (err) {
      throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only');
  const { http } = await ctx.api();
  const send = (cursor?: string, extra: Record<string, string> = {}) =>
    http.send({
      method,
      path,
      query: { ...search, ...extra, ...(cursor ? { cursor } : {}) },
      ...(body !== undefined ? { body } : {}),
      ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
    });

  if (!opts.paginate) return writeJson(ctx.io, (await send()).body);
  // Without a limit in the path, pages of the spec's largest size: a full page that comes
  // back without a cursor can then be told from the last one.
  const limit = search.limit !== undefined && /^\d+$/.test(search.limit) ? Number(search.limit) : FULL_PAGE;
  const items: unknown[] = [];
  const pages = paginate<unknown>(
    async (cursor) => {
      const page = readPage((await send(cursor, { limit: String(limit) })).body);
      if (!page) throw new UsageError(`${path} does not answer with a list; drop --paginate`);
      return { items: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
    { cursor: search.cursor, limit, what: `GET ${path}` },
  );
  for await (const item of pages) items.push(item);
  writeJson(ctx.io, items);
}

function splitPath(input: string): [string, Record<string, string>] {
  if (/^https?:\/\//i.test(input)) throw new UsageError('give a path below the base URL (e.g. /transactions), not a full URL');
  const url = new URL(input.startsWith('/') ? input : `/${input}`, 'http://placeholder');
  return [url.pathname, Object.fromEntries(url.searchParams)];
}
