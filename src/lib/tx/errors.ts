// Error helpers the transaction commands share: telling "the service said no" from "we do not know what
// the service did".
import { ResponseTooLarge } from '../client/errors.js';
import { ApiError, CliError, NetworkError, SchemaError, TimeoutError } from '../errors.js';

/**
 * Whether the outcome of a write is unknown after the client's retries: no answer at all
 * (timeout, refused, dropped), a 5xx (the service may have committed before failing), or
 * a 2xx whose body could not be read (not the spec's shape, or over the size cap). A 4xx
 * is an answer: the service refused.
 */
export function outcomeUnknown(err: unknown): boolean {
  return (
    err instanceof NetworkError ||
    err instanceof TimeoutError ||
    err instanceof SchemaError ||
    err instanceof ResponseTooLarge ||
    (err instanceof ApiError && err.status >= 500)
  );
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

/** Longest message a note quotes: recovery notes repeat per step, so they quote briefly. */
const NOTE_MESSAGE = 160;

/**
 * One line for what went wrong, for stderr notes during recovery: the error's code and its
 * message on one line, cut short (the final error line, or --verbose, has the whole text).
 */
export function describe(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  const short = message.length > NOTE_MESSAGE ? `${message.slice(0, NOTE_MESSAGE)}…` : message;
  return err instanceof CliError ? `${err.code}: ${short}` : short;
}

/** `describe` for one run of notes: a message already quoted is named, not quoted again. */
export function describeOnce(): (err: unknown) => string {
  const quoted = new Set<string>();
  return (err) => {
    const text = describe(err);
    if (quoted.has(text)) return err instanceof CliError ? `${err.code}: the same message as above` : 'the same message as above';
    quoted.add(text);
    return text;
  };
}
