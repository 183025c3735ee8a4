import { describe, expect, it } from 'vitest';
import { paginate } from '../../src/lib/client/paginate.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('cursor pagination', () => {
  it('follows next_cursor to the end, passing each cursor back untouched', async () => {
    const seen: (string | undefined)[] = [];
    const pages: Record<string, { data: number[]; has_more: boolean; next_cursor: string | null }> = {
      start: { data: [1, 2], has_more: true, next_cursor: 'b%2F==' },
      'b%2F==': { data: [3], has_more: true, next_cursor: 'c' },
      c: { data: [4], has_more: false, next_cursor: null },
    };
    const items = await collect(paginate(async (cursor) => (seen.push(cursor), pages[cursor ?? 'start']!)));
    expect(items).toEqual([1, 2, 3, 4]);
    expect(seen).toEqual([undefined, 'b%2F==', 'c']);
  });

  it('treats a bare array as the only page', async () => {
    let calls = 0;
    expect(await collect(paginate(async () => (calls++, [1, 2, 3])))).toEqual([1, 2, 3]);
    expect(calls).toBe(1);
  });

  it('stops on has_more=false even if a cursor is present, and starts from a given cursor', async () => {
    const seen: (string | undefined)[] = [];
    const items = await collect(paginate(async (c) => (seen.push(c), { data: [9], has_more: false, next_cursor: 'x' }), 'from-here'));
    expect(items).toEqual([9]);
    expect(seen).toEqual(['from-here']);
  });

  it('refuses to loop on a repeated cursor', async () => {
    const gen = paginate(async () => ({ data: [1], has_more: true, next_cursor: 'same' }));
    await expect(collect(gen)).rejects.toThrow(/same cursor twice/);
  });
});
