// Error helpers the transaction commands share: telling "the service said no" from "we do not know what
// the service did".
import { ApiError, CliError, NetworkError, SchemaError, TimeoutError } from '../errors.js';

/**
 * Whether the outcome of a write is unknown after the client's retries: no answer at all
 * (timeout, refused, dropped), a 5xx (the service may have committed before failing), or
 * a 2xx whose body could not be read. A 4xx is an answer: the service refused.
 */
export function outcomeUnknown(err: unknown): boolean {
  return (
    err instanceof NetworkError ||
    err instanceof TimeoutError ||
    err instanceof SchemaError ||
    (err instanceof ApiError && err.status >= 500)
  );
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

/** One line for what went wrong, for stderr notes during recovery. */
export function describe(err: unknown): string {
  if (err instanceof CliError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
