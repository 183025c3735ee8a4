// User input for every command: validators return a problem (or null) so the same rule
// checks a flag and a prompt as the user types; parsers turn a problem into a UsageError
// naming the flag; `ask` is the one rule for a missing value (the CLI contract, "Global
// behaviour"): prompt when the session is interactive, otherwise exit 2 naming the flag.
import type { Context, Globals, Prompts } from '../context.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import type { RevenueFilters } from '../client/filters.js';
import { publicUrl } from '../client/url.js';
import { formatDuration } from '../output/time.js';
import { MAX_DURATION_MS, parseDuration, type BareUnit } from './duration.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * merchant_reference: the spec gives no bound; 128 characters is the emulator's limit and
 * a generous one for an order number. Control characters are refused: a reference travels
 * in a URL path and is shown in tables.
 */
export const MAX_REFERENCE_LENGTH = 128;
/** Idempotency keys: 1 to 255 visible ASCII characters (the emulator's rule; the spec says "not shown"). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export function uuidProblem(value: string): string | null {
  const v = value.trim();
  if (v === '') return 'must not be empty';
  return UUID.test(v) ? null : `"${value}" is not a UUID (like 0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91)`;
}

/**
 * `.` and `..`: GET /transactions/reference/{merchant_reference} would be another path, as
 * URL parsers, clients' and the emulator's router alike, resolve dot segments (even
 * percent-encoded, so encoding cannot carry them; a literal `%2e` is sent as `%252e` and kept).
 */
export const DOT_SEGMENT = /^\.{1,2}$/;

export function referenceProblem(value: string): string | null {
  const v = value.trim();
  if (v === '') return 'must not be empty';
  if (v.length > MAX_REFERENCE_LENGTH) return `is ${v.length} characters; at most ${MAX_REFERENCE_LENGTH}`;
  if (/[\u0000-\u001f\u007f]/.test(v)) return 'must not contain control characters';
  if (DOT_SEGMENT.test(v)) return `must not be "${v}": read back by reference it is a path segment every URL folds away (docs/transactions.md, "Input rules")`;
  return textProblem(v);
}

/**
 * Bytes of an argument that are not UTF-8 reach the program as U+FFFD, so two different
 * references would be sent as the same text: refused rather than sent altered.
 */
export function textProblem(value: string): string | null {
  return value.includes('\uFFFD') ? 'contains bytes that are not valid UTF-8 (shown as U+FFFD); write it in UTF-8' : null;
}

export function idempotencyKeyProblem(value: string): string | null {
  if (value === '') return 'must not be empty';
  if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) return `is ${value.length} characters; at most ${MAX_IDEMPOTENCY_KEY_LENGTH}`;
  if (!/^[\x21-\x7e]+$/.test(value)) return 'must be visible ASCII characters only (no spaces)';
  return null;
}

/** Token symbols and network names: short lower-case words (usdt, bep20). */
export function symbolProblem(value: string): string | null {
  const v = value.trim();
  if (v === '') return 'must not be empty';
  return /^[a-z0-9][a-z0-9_-]{0,31}$/i.test(v) ? null : `"${value}" is not a token or network name (like usdt, bep20)`;
}

function parseWith(problem: (v: string) => string | null, value: string, flag: string): string {
  const p = problem(value);
  if (p) throw new UsageError(`${flag} ${p}`);
  return value.trim();
}

/** A UUID (trimmed, as given); UsageError naming the flag otherwise. */
export const parseUuid = (value: string, flag: string) => parseWith(uuidProblem, value, flag);
/** A merchant reference, trimmed. */
export const parseReference = (value: string, flag = '--ref') => parseWith(referenceProblem, value, flag);
/** An idempotency key, exactly as given: the rule admits no white space, so there is nothing to trim. */
export const parseIdempotencyKey = (value: string, flag = '--idempotency-key') => parseWith(idempotencyKeyProblem, value, flag);
/** A token or network, trimmed and lower-cased (the service compares them lower-case). */
export const parseSymbol = (value: string, flag: string) => parseWith(symbolProblem, value, flag).toLowerCase();

/** A whole number in [min, max] given as a flag. */
export function parseIntFlag(value: string | number, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min} to ${max}`;
    throw new UsageError(`${flag} must be a whole number, ${range} (got "${value}")`);
  }
  return n;
}

/** A time flag's value in milliseconds, within `min` and `max`; a bare number is in `bare`, the unit the flag always had. */
export function durationFlag(value: string | number, flag: string, bare: BareUnit, min: number, max = MAX_DURATION_MS): number {
  const ms = parseDuration(String(value), bare);
  if (typeof ms === 'string') throw new UsageError(`${flag}: ${ms}`);
  if (ms < min || ms > max) throw new UsageError(`${flag} must be from ${formatDuration(min)} to ${formatDuration(max)} (got "${value}")`);
  return ms;
}

/** `--tolerance` of `webhooks listen` and `verify`: whole seconds (a bare number is seconds), at most a day. */
export function toleranceSeconds(value: string): number {
  const ms = durationFlag(value, '--tolerance', 's', 0, 86_400_000);
  if (ms % 1000 !== 0) throw new UsageError(`--tolerance is whole seconds (got "${value}")`);
  return ms / 1000;
}

/** The error for required flags that were not given and cannot be asked for. */
export function missingFlags(flags: string[], hint?: string): UsageError {
  const list = flags.join(', ');
  return new UsageError(
    `missing required ${flags.length === 1 ? 'flag' : 'flags'}: ${list}`,
    hint ?? 'pass them as flags (prompting is off: no terminal, CI set, or --no-input)',
  );
}

/** Where prompts read and write: the command's stdin, and stderr so stdout stays data. */
export function promptContext(io: IO): { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } {
  return { input: io.stdin, output: io.stderr };
}

/** A required value: as given, else asked when the session is interactive, else a UsageError naming `flag`. */
export async function ask<T>(
  ctx: Pick<Context, 'io' | 'prompts'>,
  flag: string,
  value: T | undefined,
  prompt: (prompts: Prompts, context: ReturnType<typeof promptContext>) => Promise<T>,
): Promise<T> {
  if (value !== undefined) return value;
  if (!ctx.io.canPrompt()) throw missingFlags([flag]);
  return prompt(await ctx.prompts(), promptContext(ctx.io));
}

/** Turns a problem-returning validator into an @inquirer `validate` (true or the message). */
export function validator(problem: (v: string) => string | null): (v: string) => true | string {
  return (v) => problem(v) ?? true;
}

/** A reference offered at the prompt: readable, sortable by day, and unlikely to collide. */
export function generateReference(now: Date): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `cli-${day}-${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString('hex')}`;
}

/** Quotes a value for a POSIX shell, so a printed command can be pasted as is. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * `offramp` and the global flags that chose the service when they were given (--base-url
 * without its credentials, or `service` where a file recorded it), never a key: how a command
 * to paste begins.
 */
export function offrampWords(globals: Pick<Globals, 'profile' | 'baseUrl'>, service?: string): string[] {
  const words = ['offramp'];
  if (globals.profile) words.push('--profile', shellQuote(globals.profile));
  if (globals.baseUrl) words.push('--base-url', shellQuote(service ?? publicUrl(globals.baseUrl)));
  return words;
}

/** A command's words as one line to paste; a key given as --api-key is never among them, so the line says to add it. */
export function pasteable(words: string[], globals: Pick<Globals, 'apiKey'>): string {
  return `${words.join(' ')}${globals.apiKey ? ' (with your --api-key, as before)' : ''}`;
}

/** --token and --network under the row's own field names (the spec leaves the filter names "not shown"), lower-cased. */
export function filterFlags(opts: { token?: string; network?: string }): RevenueFilters {
  const token = opts.token !== undefined ? parseSymbol(opts.token, '--token') : undefined;
  const network = opts.network !== undefined ? parseSymbol(opts.network, '--network') : undefined;
  return { ...(token ? { crypto_currency: token } : {}), ...(network ? { network } : {}) };
}
