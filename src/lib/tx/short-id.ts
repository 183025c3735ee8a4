// Short ids (docs/transactions.md, "Short ids"): an id argument takes a whole UUID or a
// prefix of at least 8 hex characters, so a cut column pasted back works. Every match among
// the records searched is collected before deciding, so the answer never depends on the
// order the service lists them in.
import { CliError, EXIT, UsageError } from '../errors.js';

/** How many records a prefix is looked for among: five pages of the spec's largest size. */
export const PREFIX_SEARCH_LIMIT = 500;
/** The fewest hex characters a prefix may have: the UUID's first group. */
export const MIN_PREFIX = 8;

/** A UUID's shape, each hex digit written 0. */
const TEMPLATE = '00000000-0000-0000-0000-000000000000';

export type IdOrPrefix = { id: string } | { prefix: string };

/** The characters a table or a terminal may leave around a pasted id: the cut mark, quotes. */
function unwrap(value: string): string {
  return value.trim().replace(/(…|\.\.\.)$/, '').toLowerCase();
}

/** Whether `v` (lower case) is the start of a UUID: hex, with hyphens exactly where a UUID has them. */
function isUuidHead(v: string): boolean {
  return v.replace(/[0-9a-f]/g, '0') === TEMPLATE.slice(0, v.length);
}

/** Why `value` is neither a UUID nor a usable prefix of one, or null. */
export function idOrPrefixProblem(value: string): string | null {
  const v = unwrap(value);
  if (v === '') return 'must not be empty';
  if (isUuidHead(v) && v.length >= MIN_PREFIX) return null;
  if (isUuidHead(v)) return `"${value}" is too short: give the whole id or at least its first ${MIN_PREFIX} characters`;
  return `"${value}" is not a UUID (like 0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91) or its first ${MIN_PREFIX} or more characters`;
}

/**
 * A whole id (trimmed, its case kept: the service compares ids without regard to case), or
 * a prefix to look for (lower case); UsageError naming `flag` otherwise (nothing sent).
 */
export function parseIdOrPrefix(value: string, flag: string): IdOrPrefix {
  const problem = idOrPrefixProblem(value);
  if (problem) throw new UsageError(`${flag} ${problem}`);
  const v = unwrap(value);
  return v.length === TEMPLATE.length ? { id: value.trim() } : { prefix: v };
}

export type PrefixSearch<T> = {
  /** What is searched, for messages: "transaction", "webhook event". */
  what: string;
  /** The records the service lists first; read until PREFIX_SEARCH_LIMIT or the end. */
  records: AsyncIterable<T> | Iterable<T>;
  /** Records held here, not listed by the service (a local file): where, for messages, all of them read. */
  heldIn?: string;
  idOf: (record: T) => string;
  /** One line about a record, to tell candidates apart (reference, status, time). */
  describe: (record: T) => string;
  /** The command a user runs to see more of the list, for the hint; or the hint itself. */
  listCommand: string | { hint: string };
};

/** The one id among the first PREFIX_SEARCH_LIMIT records that starts with `prefix`. */
export async function findByPrefix<T>(prefix: string, search: PrefixSearch<T>): Promise<string> {
  const matches = new Map<string, T>();
  let read = 0;
  let more = false;
  for await (const record of search.records) {
    if (read === PREFIX_SEARCH_LIMIT && search.heldIn === undefined) {
      more = true;
      break;
    }
    read++;
    const id = search.idOf(record).toLowerCase();
    // A record listed twice (the list changed between pages) is one candidate.
    if (id.startsWith(prefix)) matches.set(id, record);
  }
  if (matches.size === 1) return [...matches.keys()][0]!;
  if (matches.size > 1) {
    const candidates = [...matches.entries()].map(([id, record]) => `${id} (${search.describe(record)})`);
    throw new UsageError(`${prefix} matches ${matches.size} ${search.what}s: ${candidates.join(', ')}`, 'give more of the id, or the whole id');
  }
  const where = more ? `the ${PREFIX_SEARCH_LIMIT} ${search.what}s the service lists first` : `any of the ${read} ${search.what}s ${search.heldIn ?? 'the service lists'}`;
  const list = search.listCommand;
  throw new CliError(
    `no ${search.what} id starting with ${prefix} among ${where}`,
    'NOT_FOUND',
    EXIT.notFound,
    typeof list !== 'string' ? list.hint : more ? `an older ${search.what} needs its whole id (\`${list}\` shows ids whole when piped)` : `\`${list}\` shows the ids`,
  );
}
