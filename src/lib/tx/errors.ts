// Error helpers the transaction commands share: telling "the service said no" from "we do not know what
// the service did".
import { ResponseTooLarge } from '../client/errors.js';
import { ApiError, describeError, NetworkError, oneLine, SchemaError, TimeoutError } from '../errors.js';

/**
 * Whether what a write came to is unknown after the client's retries: no answer at all
 * (timeout, refused, dropped), a 5xx (the service may have committed before failing), or
 * a 2xx whose body could not be read (not the spec's shape, or over the size cap). A 4xx
 * is an answer: the service refused.
 */
export function resultUnknown(err: unknown): boolean {
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
  const line = oneLine(err);
  return describeError(err, line.length > NOTE_MESSAGE ? `${line.slice(0, NOTE_MESSAGE)}…` : line);
}

/** `describe` for one run of notes: a message already quoted is named, not quoted again. */
export function describeOnce(): (err: unknown) => string {
  const quoted = new Set<string>();
  return (err) => {
    const text = describe(err);
    if (quoted.has(text)) return describeError(err, 'the same message as above');
    quoted.add(text);
    return text;
  };
}
