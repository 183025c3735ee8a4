// The wire vocabulary of every answer: the success wrapper, the error envelope, and the
// error type handlers throw to produce one (the spec, "Response wrapper" and
// "Error envelope"). Codes for the statuses the spec leaves unlabelled (401, 403, 429,
// 500, 503) are the client's own table (CODE_OF_STATUS), so each side names them alike.
import { CODE_OF_STATUS } from '../lib/errors.js';

export type ErrorCode = (typeof CODE_OF_STATUS)[keyof typeof CODE_OF_STATUS];

const STATUS_OF = Object.fromEntries(Object.entries(CODE_OF_STATUS).map(([status, code]) => [code, Number(status)])) as Record<ErrorCode, number>;

/** Bodies are small JSON objects, the control plane's too; anything bigger is refused (400, not 413, to stay in the code table the CLI maps). */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** What a handler answers: status, JSON body (as a value, or already serialised) and any extra headers. */
export type ApiResult = {
  status: number;
  body?: unknown;
  /** The body serialised; when present it is sent as is (stored idempotent answers). */
  json?: string;
  headers?: Record<string, string>;
};

/** Thrown by handlers and validators; the server turns it into the error envelope. */
export class ApiProblem extends Error {
  readonly status: number;
  /**
   * `status` is the code's own unless given: an injected fault (fault-rules.ts) may answer
   * any error status, with a code named after it.
   */
  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly headers?: Record<string, string>,
    status?: number,
  ) {
    super(message);
    this.name = 'ApiProblem';
    this.status = status ?? STATUS_OF[code as ErrorCode] ?? 500;
  }
}

export const badRequest = (message: string) => new ApiProblem('BAD_REQUEST', message);
export const notFound = (message: string) => new ApiProblem('NOT_FOUND', message);
export const conflict = (message: string) => new ApiProblem('CONFLICT', message);

export function ok(data: unknown, status = 200, message?: string): ApiResult {
  return { status, body: message === undefined ? { success: true, data } : { success: true, data, message } };
}

export function errorResult(problem: ApiProblem, nowIso: string): ApiResult {
  return { status: problem.status, body: { error: { code: problem.code, message: problem.message, timestamp: nowIso } }, headers: problem.headers };
}
