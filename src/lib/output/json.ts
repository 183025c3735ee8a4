// JSON and NDJSON output: what CI scripts read. Kept apart from the table renderers so a
// --json run loads neither string-width nor chalk.
import type { IO } from '../io.js';

export function writeJson(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data, null, 2)}\n`);
}

export function writeNdjsonLine(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data)}\n`);
}

/** One JSON array, as writeJson would print it, written item by item as they come (`--all --json`). */
export async function writeJsonArray(io: IO, items: AsyncIterable<unknown> | Iterable<unknown>): Promise<number> {
  let n = 0;
  for await (const item of items) io.out(`${n++ === 0 ? '[' : ','}\n${JSON.stringify(item, null, 2).replace(/^/gm, '  ')}`);
  io.out(n === 0 ? '[]\n' : '\n]\n');
  return n;
}
