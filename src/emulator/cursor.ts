// Opaque page cursors (the spec: "opaque value taken from a previous next_cursor;
// never built by the caller"). A cursor is base64url JSON of the last returned item's sort
// key, tagged with the list it belongs to. Keying on the item rather than an offset keeps
// pages stable while records are inserted: new transactions and events sort before a "newest
// first" cursor, new ledger rows after an "oldest first" one, so nothing is skipped or
// repeated. A cursor from another list, or anything that does not decode, is a 400.
import * as z from 'zod/mini';
import type { Page } from '../lib/schemas.js';
import { badRequest } from './envelope.js';
import { checkOrder, parseDateParam, parseLimit, type Query } from './params.js';

type CursorKind = 'tx' | 'evt' | 'rev';

/** Per-list sort key: a creation sequence for transactions and events, (ts, id) for the ledger. */
const SeqKey = z.object({ k: z.string(), s: z.int().check(z.nonnegative()) });
const LedgerKey = z.object({ k: z.string(), t: z.number(), id: z.string() });

export function encodeCursor(kind: CursorKind, key: Omit<z.infer<typeof SeqKey> | z.infer<typeof LedgerKey>, 'k'>): string {
  return Buffer.from(JSON.stringify({ k: kind, ...key }), 'utf8').toString('base64url');
}

/**
 * One page, newest first, of a list kept in creation order, where the item of sequence number n
 * sits at index n - 1 (transactions, events): the record a partner came to see is at the top.
 * The query's limit, cursor and created_at window (from, to) are read here; `keep` is the list's own filter.
 */
export function seqPage<T extends { seq: number; createdMs: number }, R>(
  list: readonly T[],
  query: Query,
  opts: { kind: 'tx' | 'evt'; defaultLimit: number; keep: (item: T) => boolean; view: (item: T) => R },
): Page<R> {
  const limit = parseLimit(query, opts.defaultLimit);
  const from = parseDateParam(query, 'from') ?? -Infinity;
  const to = parseDateParam(query, 'to') ?? Infinity;
  checkOrder(from, to);
  const cursor = query.get('cursor');
  // The cursor's item sits at its seq - 1; the page starts just below it.
  let index = cursor ? decode(opts.kind, cursor, SeqKey).s - 2 : list.length - 1;
  const data: R[] = [];
  let last: T | undefined;
  let hasMore = false;
  for (; index >= 0 && index < list.length; index--) {
    const item = list[index]!;
    if (item.createdMs < from || item.createdMs > to || !opts.keep(item)) continue;
    if (data.length === limit) {
      hasMore = true;
      break;
    }
    data.push(opts.view(item));
    last = item;
  }
  return { data, has_more: hasMore, limit, next_cursor: hasMore && last ? encodeCursor(opts.kind, { s: last.seq }) : null };
}

export const decodeLedgerCursor = (cursor: string) => decode('rev', cursor, LedgerKey);

function decode<S extends typeof SeqKey | typeof LedgerKey>(kind: CursorKind, cursor: string, key: S): z.infer<S> {
  let value: unknown;
  try {
    value = /^[A-Za-z0-9_-]{1,512}$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    throw invalid();
  }
  const parsed = key.safeParse(value);
  if (!parsed.success || parsed.data.k !== kind) throw invalid();
  return parsed.data as z.infer<S>;
}

const invalid = () => badRequest('cursor is not valid: pass next_cursor from a previous page of this list unchanged');
