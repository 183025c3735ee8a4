// The client's own failures, beside the shared ones of src/lib/errors.ts.
import { ApiError, CliError, EXIT, NetworkError, TimeoutError } from '../errors.js';

/**
 * A proxy that opened no tunnel (refused, wants credentials, down, unknown, silent): the
 * service received nothing. A NetworkError, so a write it stopped is known never sent.
 */
export class ProxyError extends NetworkError {
  override readonly code = 'PROXY';
}

/**
 * The server's certificate was refused (no trusted authority, another host, expired, not
 * yet valid): the handshake failed, so nothing was sent (certificate.ts).
 */
export class CertificateRefused extends NetworkError {
  override readonly code = 'CERTIFICATE';
}

/** A request the service did not answer (no connection, no answer in time, a 5xx): worth trying again later, not a refusal. */
export function isOutage(err: unknown): boolean {
  if (err instanceof CertificateRefused) return false;
  return err instanceof NetworkError || err instanceof TimeoutError || (err instanceof ApiError && err.status >= 500);
}

/** A 2xx answer longer than the cap on one answer: not read further (docs/configuration.md, "Timeouts and limits"). */
export class ResponseTooLarge extends CliError {
  constructor(
    message: string,
    readonly requestId?: string,
  ) {
    super(message, 'RESPONSE_TOO_LARGE', EXIT.failure, 'if the service really sends answers this big, raise the cap with OFFRAMP_MAX_RESPONSE_BYTES');
  }
}
