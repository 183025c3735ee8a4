// JSON and NDJSON output: what CI scripts read. Kept apart from the table renderers so a
// --json run loads neither string-width nor chalk.
import type { IO } from '../io.js';

export function writeJson(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data, null, 2)}\n`);
}

export function writeNdjsonLine(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data)}\n`);
}

/** The page object of a list: the one `--json` shape of every list, one page or all (docs/output.md, "Lists"). */
export type ListPageJson = { data: unknown[]; has_more: boolean; limit: number; next_cursor: string | null };

/**
 * One page of a list as `--json` prints it. The spec's service sends the page object as its
 * `data`, printed as sent; a service that sends the items bare in `data`, the cursor beside
 * them, is shown in the same object, built from what it sent, so a script meets one shape.
 */
export function pageJson(page: { data: unknown; items: unknown[]; last: boolean; nextCursor: string | null }, limit: number): unknown {
  const d = page.data;
  if (typeof d === 'object' && d !== null && !Array.isArray(d) && Array.isArray((d as { data?: unknown }).data)) return d;
  return { data: Array.isArray(d) ? d : page.items, has_more: !page.last, limit, next_cursor: page.last ? null : page.nextCursor } satisfies ListPageJson;
}

/**
 * Every page of a list (`--all --json`) as one page object, as writeJson would print it, its
 * items written as they come: the last page's object, holding them all, with no more to ask.
 */
export async function writeJsonPage(io: IO, items: AsyncIterable<unknown> | Iterable<unknown>, limit: number): Promise<number> {
  let n = 0;
  io.out('{\n  "data": [');
  for await (const item of items) io.out(`${n++ === 0 ? '' : ','}\n${JSON.stringify(item, null, 2).replace(/^/gm, '    ')}`);
  const tail: Omit<ListPageJson, 'data'> = { has_more: false, limit, next_cursor: null };
  io.out(`${n === 0 ? ']' : '\n  ]'},\n${JSON.stringify(tail, null, 2).slice(2)}\n`);
  return n;
}
