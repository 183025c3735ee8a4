// One pagination path for every list (docs/api.md, "Lists"). The spec does not say where
// the cursor travels, so `readPage` looks wherever common APIs put it; a page that came back
// full with no cursor anywhere is an error, never a quiet end.
import { CliError, EXIT } from '../errors.js';

/** Page size of a single page (tx list, webhooks list) when --limit is not given (docs/api.md, "Lists"). */
export const DEFAULT_PAGE = 20;

/** Where a page's cursor was found; `none` when nowhere. */
export type CursorLocation = 'data' | 'data.meta' | 'data.pagination' | 'wrapper' | 'meta' | 'pagination' | 'none';

/** One list answer, read. `items` are not yet checked against a schema. */
export type RawPage = {
  items: unknown[];
  nextCursor: string | null;
  /** has_more as the service stated it; undefined when it did not. */
  hasMore: boolean | undefined;
  location: CursorLocation;
  /** Where the items were: a page object in `data`, or `data` itself as an array. */
  shape: 'page-object' | 'array';
  /** A `summary` found next to the cursor or the items (revenue pages). */
  summary?: unknown;
  /** The page size the answer states, found in the same places (conform reports it). */
  statedLimit?: number;
};

export const CURSOR_KEYS = ['next_cursor', 'nextCursor', 'next'] as const;
export const HAS_MORE_KEYS = ['has_more', 'hasMore'] as const;
const LIMIT_KEYS = ['limit', 'page_size', 'pageSize', 'per_page'] as const;

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The items and the cursor of one list answer (`body` is the whole response body, the
 * wrapper included); undefined when the body holds no list at all.
 */
export function readPage(body: unknown): RawPage | undefined {
  if (!isObject(body)) return undefined;
  const data = body.data;
  const outer: [CursorLocation, unknown][] = [['wrapper', body], ['meta', body.meta], ['pagination', body.pagination]];
  let list: Pick<RawPage, 'items' | 'shape'> & { holders: [CursorLocation, unknown][] };
  if (Array.isArray(data)) list = { items: data, shape: 'array', holders: outer };
  else if (isObject(data) && Array.isArray(data.data)) {
    list = { items: data.data, shape: 'page-object', holders: [['data', data], ['data.meta', data.meta], ['data.pagination', data.pagination], ...outer] };
  } else return undefined;
  const { items, shape, holders } = list;
  const found = firstIn(holders, (holder, location) => {
    const cursor = firstString(holder, CURSOR_KEYS);
    const hasMore = HAS_MORE_KEYS.map((key) => holder[key]).find((v) => typeof v === 'boolean') as boolean | undefined;
    return cursor !== undefined || hasMore !== undefined ? { location, cursor: cursor ?? null, hasMore } : undefined;
  });
  const summary = firstIn(holders, (holder) => holder.summary);
  const statedLimit = firstIn(holders, (holder) => LIMIT_KEYS.map((key) => holder[key]).find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0));
  return {
    items,
    nextCursor: found?.cursor ?? null,
    hasMore: found?.hasMore,
    location: found?.location ?? 'none',
    shape,
    ...(summary !== undefined ? { summary } : {}),
    ...(statedLimit !== undefined ? { statedLimit } : {}),
  };
}

/** The first holder, in search order, for which `pick` finds something. */
function firstIn<T>(holders: [CursorLocation, unknown][], pick: (holder: Json, location: CursorLocation) => T | undefined): T | undefined {
  for (const [location, holder] of holders) {
    if (!isObject(holder)) continue;
    const value = pick(holder, location);
    if (value !== undefined) return value;
  }
  return undefined;
}

function firstString(holder: Json, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = holder[key];
    // `next` is often a URL in other APIs; a cursor is opaque text, and null means "none".
    if (typeof v === 'string' && v !== '' && !(key === 'next' && /^https?:\/\//i.test(v))) return v;
  }
  return undefined;
}

/** A list that may have more than we were given, but no way to ask for it. */
export class IncompleteListError extends CliError {
  constructor(message: string) {
    super(message, 'INCOMPLETE_LIST', EXIT.failure, 'run `offramp conform` to see how this service pages its lists');
  }
}

/**
 * Whether a page is the last one. Throws when the answer cannot be trusted to be the end:
 * has_more true with no cursor, or a full page (as many items as `limit` asked) with no
 * cursor and no has_more anywhere.
 */
export function isLastPage(page: Pick<RawPage, 'items' | 'nextCursor' | 'hasMore'>, limit: number | undefined, what: string): boolean {
  if (page.nextCursor) return page.hasMore === false;
  if (page.hasMore === true) throw new IncompleteListError(`${what}: the service says there is more (has_more true) but sent no cursor to ask for it`);
  if (page.hasMore === undefined && limit !== undefined && page.items.length >= limit) {
    throw new IncompleteListError(
      `${what}: a full page (${page.items.length} of limit ${limit}) came back with no cursor in data, beside it, or under meta/pagination; the list may go on, so it is not reported as complete`,
    );
  }
  return true;
}

export type PaginateHooks = { onPage?: (info: { page: number; items: number; nextCursor: string | null }) => void };

/** One page, read and checked: what the fetcher of `paginate` resolves with. */
export type ListPage<T> = { items: T[]; nextCursor: string | null; hasMore: boolean | undefined };

export type PaginateOptions = {
  /** Cursor to start from (a user's --cursor). */
  cursor?: string | undefined;
  /** The limit every request asks for: a page this full with no cursor is an error. */
  limit: number | undefined;
  /** What is being listed, for messages ("GET /transactions"). */
  what: string;
  hooks?: PaginateHooks | undefined;
};

export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<ListPage<T>>, opts: PaginateOptions): AsyncGenerator<T> {
  let cursor = opts.cursor;
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const answer = await fetchPage(cursor);
    const last = isLastPage(answer, opts.limit, opts.what);
    opts.hooks?.onPage?.({ page, items: answer.items.length, nextCursor: last ? null : answer.nextCursor });
    yield* answer.items;
    if (last) return;
    const next = answer.nextCursor!;
    // A service that hands back a cursor it already gave would loop forever.
    if (seen.has(next)) throw new IncompleteListError(`${opts.what}: the service returned the same cursor twice; stopping`);
    seen.add(next);
    cursor = next;
  }
}
