// Errors are types; exit codes are one table (docs/output.md, "Errors and exit codes").

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  rateLimited: 6,
  network: 7,
  checkFailed: 8,
  /** Interrupted: 128 + the signal's number, as a shell reports a process the signal killed. */
  sigint: 130,
  sigterm: 143,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Base of every error the CLI expects; `code` is what `error: CODE: message` prints. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: ExitCode,
    public hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The same error with a hint that a command can word better than the default one. */
  withHint(hint: string): this {
    this.hint = hint;
    return this;
  }
}

/** A kind of CliError: its errors print `code` and exit with `exitCode`; each has a message and may have a hint. */
export function errorKind(code: string, exitCode: ExitCode) {
  return class extends CliError {
    constructor(message: string, hint?: string) {
      super(message, code, exitCode, hint);
    }
  };
}

/** Bad flags, arguments or input: nothing was sent. */
export class UsageError extends errorKind('USAGE', EXIT.usage) {}

/** Missing key, production guard and the like: nothing was sent. */
export class AuthError extends errorKind('UNAUTHORIZED', EXIT.auth) {}

/**
 * The production guard refused a staging-only command or an unconfirmed change: exit 3 as
 * the contract's table puts it, but nothing was sent, so nothing is UNAUTHORIZED.
 */
export class ProductionGuard extends errorKind('PRODUCTION', EXIT.auth) {}

/** A check the user asked for did not hold (smoke, reconcile, verify, export --summary). */
export class CheckFailed extends errorKind('CHECK_FAILED', EXIT.checkFailed) {}

export type ApiErrorInit = {
  status: number;
  message: string;
  requestId?: string;
  method: string;
  url: string;
  /** Response headers as received (conform reads Retry-After's form from them). */
  headers?: Record<string, string | string[] | undefined>;
  /**
   * The spec's error envelope as the service sent it, and the code it names. Without one (a
   * gateway's page), the code is the status's (codeForStatus), and the envelope `--json`
   * prints is made from it.
   */
  sent?: { code: string; envelope: unknown };
};

/** The service answered with an error status. */
export class ApiError extends CliError {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly url: string;
  /** The error envelope printed on stderr with `--json`. */
  readonly envelope: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Whether the body was the spec's error envelope (conform reports when it is not). */
  readonly enveloped: boolean;

  constructor(init: ApiErrorInit) {
    const code = init.sent?.code ?? codeForStatus(init.status);
    super(init.message, code, exitCodeForStatus(init.status), STATUS_HINTS[init.status] ?? (init.status >= 500 ? 'the service failed; try again later' : undefined));
    this.status = init.status;
    this.requestId = init.requestId;
    this.method = init.method;
    this.url = init.url;
    this.envelope = init.sent?.envelope ?? errorEnvelope(code, `HTTP ${init.status}`);
    this.headers = init.headers ?? {};
    this.enveloped = init.sent !== undefined;
  }
}

/** The spec's error envelope, as `--json` prints an error on stderr. */
export function errorEnvelope(code: string, message: string) {
  return { error: { code, message, timestamp: new Date().toISOString() } };
}

/** The exit code of a run a signal stopped (the contract's 130 / 143). */
export function exitCodeForSignal(signal: NodeJS.Signals): ExitCode {
  return signal === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}

/** Stopped by Ctrl-C or SIGTERM before it finished: its output, if any, is not complete. */
export class Interrupted extends CliError {
  constructor(what: string, signal: NodeJS.Signals) {
    super(`${what} interrupted (${signal})`, 'INTERRUPTED', exitCodeForSignal(signal));
  }
}

/**
 * A confirmation the user answered No: their choice, not a failure and not a usage error.
 * The run ends with exit 0 and says on stderr what did not happen (docs/output.md, "Errors and exit codes").
 * `what` names it ("transaction 0b6f… not cancelled"): a bare "cancelled" would read,
 * after `tx cancel`, as if the transaction had been.
 */
export class Declined extends Error {
  constructor(what: string, nothing = 'nothing was sent') {
    super(`${what}: you answered no at the confirmation; ${nothing}`);
    this.name = 'Declined';
  }
}

/** No answer: connection refused, reset or dropped. */
export class NetworkError extends errorKind('NETWORK', EXIT.network) {
  /** The request never left (no connection was ever made, a certificate refused): the service never got it. */
  notSent = false;
}

/** No answer within --timeout. */
export class TimeoutError extends errorKind('TIMEOUT', EXIT.network) {}

/** The service answered 2xx with a body that does not match the spec. */
export class SchemaError extends CliError {
  constructor(message: string, readonly requestId?: string) {
    super(message, 'BAD_RESPONSE', EXIT.failure, 'the service answered in a shape this version of offramp does not understand');
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.failure;
}

const STATUS_HINTS: Record<number, string> = {
  401: "check the profile's API key (offramp profile show) or OFFRAMP_API_KEY",
  403: 'this key or environment is not allowed to do that',
  429: 'rate limited; wait a moment or lower --concurrency',
};

/**
 * The error code each status is named by: the client's when a body carries none (a gateway's
 * page), the emulator's in every envelope it answers. 503 is SERVICE_UNAVAILABLE on both.
 */
export const CODE_OF_STATUS = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const;

/** The table above, else `HTTP_<status>`: a status it does not name is not claimed to be anything. */
export function codeForStatus(status: number): string {
  return (CODE_OF_STATUS as Record<number, string>)[status] ?? `HTTP_${status}`;
}

/** Output that could not be written to `where`: DISK_FULL on a full disk (or quota), else OUTPUT; exit 1 either way. */
export function outputFailed(err: NodeJS.ErrnoException, where: string): CliError {
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT') return new CliError(`no space left on the device (${where})`, 'DISK_FULL', EXIT.failure);
  return new CliError(`could not write to ${where} (${err.code ?? err.message}); the output is incomplete`, 'OUTPUT', EXIT.failure);
}

/**
 * What went wrong in one piece: `CODE: message` for the CLI's errors, else the message.
 * `message` words it otherwise (a recovery note cuts it); the code is never cut.
 */
export function describeError(err: unknown, message = err instanceof Error ? err.message : String(err)): string {
  return err instanceof CliError ? `${err.code}: ${message}` : message;
}

/** An error's message on one line (a store's error, a recovery note). */
export function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
}

export function exitCodeOf(err: unknown): ExitCode {
  return err instanceof CliError ? err.exitCode : EXIT.failure;
}
