// Lists page with an opaque cursor (partner-api.md: "never built by the caller").
// `paginate` follows next_cursor to the end and yields items as pages arrive, so a caller
// streaming an export never holds more than one page.

export type PageLike<T> = { data: T[]; has_more?: boolean; next_cursor?: string | null };

/** The spec leaves list shapes open: accept a page object or a bare array (one page). */
export function asPage<T>(answer: T[] | PageLike<T>): PageLike<T> {
  return Array.isArray(answer) ? { data: answer, has_more: false, next_cursor: null } : answer;
}

export type PageFetcher<T> = (cursor: string | undefined) => Promise<T[] | PageLike<T>>;

export type PaginateHooks = { onPage?: (info: { page: number; items: number; nextCursor: string | null }) => void };

export async function* paginate<T>(fetchPage: PageFetcher<T>, startCursor?: string, hooks: PaginateHooks = {}): AsyncGenerator<T> {
  let cursor = startCursor;
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const answer = asPage(await fetchPage(cursor));
    const next = answer.next_cursor ?? null;
    hooks.onPage?.({ page, items: answer.data.length, nextCursor: next });
    yield* answer.data;
    if (!next || answer.has_more === false) return;
    // A service that hands back a cursor it already gave would loop forever.
    if (seen.has(next)) throw new Error(`the service returned the same cursor twice (${next}); stopping`);
    seen.add(next);
    cursor = next;
  }
}
