import { describe, expect, it } from 'vitest';
import { IncompleteListError, isLastPage, paginate, readPage, type ListPage } from '../../src/lib/client/paginate.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('readPage: the cursor wherever common APIs put it', () => {
  it('a page object inside data (the emulator)', () => {
    const page = readPage({ success: true, data: { data: [1, 2], has_more: true, limit: 2, next_cursor: 'c1' } });
    expect(page).toMatchObject({ items: [1, 2], nextCursor: 'c1', hasMore: true, location: 'data', shape: 'page-object' });
  });

  it('beside data in the wrapper', () => {
    expect(readPage({ success: true, data: [1], has_more: true, next_cursor: 'a+b/c=' })).toMatchObject({ items: [1], nextCursor: 'a+b/c=', location: 'wrapper', shape: 'array' });
  });

  it('under meta or pagination, in camelCase too', () => {
    expect(readPage({ success: true, data: [1], meta: { next_cursor: 'm', has_more: true } })).toMatchObject({ nextCursor: 'm', location: 'meta' });
    expect(readPage({ success: true, data: [1], pagination: { nextCursor: 'p', hasMore: true } })).toMatchObject({ nextCursor: 'p', hasMore: true, location: 'pagination' });
    expect(readPage({ success: true, data: { data: [1], meta: { next: 'n' } } })).toMatchObject({ nextCursor: 'n', location: 'data.meta' });
  });

  it('a `next` that is a URL is not taken for a cursor; a summary is found beside the cursor', () => {
    const page = readPage({ success: true, data: [1], next: 'https://x/y?cursor=2', summary: { transaction_count: 1 } });
    expect(page).toMatchObject({ nextCursor: null, location: 'none', summary: { transaction_count: 1 } });
  });

  it('no list at all', () => {
    expect(readPage({ success: true, data: { id: 'x' } })).toBeUndefined();
    expect(readPage('nope')).toBeUndefined();
  });
});

describe('isLastPage', () => {
  it('a cursor continues unless has_more says false', () => {
    expect(isLastPage({ items: [1], nextCursor: 'c', hasMore: undefined }, 1, 'GET /x')).toBe(false);
    expect(isLastPage({ items: [1], nextCursor: 'c', hasMore: false }, 1, 'GET /x')).toBe(true);
  });

  it('a short page without a cursor is the end; so is a full one the service says is the last', () => {
    expect(isLastPage({ items: [1], nextCursor: null, hasMore: undefined }, 2, 'GET /x')).toBe(true);
    expect(isLastPage({ items: [1, 2], nextCursor: null, hasMore: false }, 2, 'GET /x')).toBe(true);
  });

  it('a full page with no cursor anywhere, or has_more without a cursor, is an error (exit 1)', () => {
    expect(() => isLastPage({ items: [1, 2], nextCursor: null, hasMore: undefined }, 2, 'GET /transactions')).toThrow(/full page \(2 of limit 2\)/);
    const err = (() => {
      try {
        isLastPage({ items: [1], nextCursor: null, hasMore: true }, 5, 'GET /x');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(IncompleteListError);
    expect((err as IncompleteListError).exitCode).toBe(1);
  });
});

describe('paginate', () => {
  it('follows the cursor to the end, passing each back untouched', async () => {
    const seen: (string | undefined)[] = [];
    const pages: Record<string, ListPage<number>> = {
      start: { items: [1, 2], hasMore: true, nextCursor: 'b+/==' },
      'b+/==': { items: [3, 4], hasMore: undefined, nextCursor: 'c' },
      c: { items: [5], hasMore: false, nextCursor: null },
    };
    const items = await collect(paginate(async (cursor) => (seen.push(cursor), pages[cursor ?? 'start']!), { limit: 2, what: 'GET /x' }));
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([undefined, 'b+/==', 'c']);
  });

  it('starts from a given cursor', async () => {
    const seen: (string | undefined)[] = [];
    const items = await collect(paginate(async (c) => (seen.push(c), { items: [9], hasMore: false, nextCursor: 'x' }), { cursor: 'here', limit: 5, what: 'GET /x' }));
    expect(items).toEqual([9]);
    expect(seen).toEqual(['here']);
  });

  it('refuses to loop on a repeated cursor, and to stop quietly after a full page without one', async () => {
    await expect(collect(paginate(async () => ({ items: [1], hasMore: true, nextCursor: 'same' }), { limit: 1, what: 'GET /x' }))).rejects.toThrow(/same cursor twice/);
    const got: number[] = [];
    const gen = paginate(async () => ({ items: [1, 2], hasMore: undefined, nextCursor: null }), { limit: 2, what: 'GET /x' });
    await expect((async () => { for await (const x of gen) got.push(x); })()).rejects.toThrow(IncompleteListError);
  });
});
