// JSON and NDJSON output: what CI scripts read. Kept apart from the table renderers so a
// --json run loads neither string-width nor chalk.
import type { IO } from '../io.js';

export function writeJson(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data, null, 2)}\n`);
}

export function writeNdjsonLine(io: IO, data: unknown): void {
  io.out(`${JSON.stringify(data)}\n`);
}
