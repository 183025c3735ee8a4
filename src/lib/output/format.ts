// Which renderer a command's data goes through: -o/--output, with --json as -o json.
import { UsageError } from '../errors.js';

export const FORMATS = ['table', 'json', 'csv', 'ndjson', 'xlsx'] as const;
export type Format = (typeof FORMATS)[number];

export function resolveFormat(globals: { json?: boolean; output?: string }, supported: readonly Format[] = ['table', 'json']): Format {
  if (globals.json) return 'json';
  const wanted = (globals.output ?? 'table') as Format;
  if (!(FORMATS as readonly string[]).includes(wanted)) {
    throw new UsageError(`-o ${globals.output}: unknown output format`, `use one of: ${FORMATS.join(', ')}`);
  }
  if (!supported.includes(wanted)) {
    throw new UsageError(`-o ${wanted} is not supported by this command`, `use one of: ${supported.join(', ')}`);
  }
  return wanted;
}
