// The wire vocabulary of every answer: the success wrapper, the error envelope, and the
// error type handlers throw to produce one (the spec, "Response wrapper" and
// "Error envelope"). Codes for the statuses the spec leaves unlabelled (401, 403, 429,
// 500, 503) follow the table in cli-contract's client, which relies on them.

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

const STATUS_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** Codes named after further statuses an injected fault may answer (fault-rules.ts). */
const MORE_CODES: Record<number, string> = { 502: 'BAD_GATEWAY', 504: 'GATEWAY_TIMEOUT' };

/** The code an error status is answered with: the table above, else `HTTP_<status>`. */
export function codeForStatus(status: number): string {
  for (const [code, s] of Object.entries(STATUS_OF)) if (s === status) return code;
  return MORE_CODES[status] ?? `HTTP_${status}`;
}

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
  const result: ApiResult = {
    status: problem.status,
    body: { error: { code: problem.code, message: problem.message, timestamp: nowIso } },
  };
  if (problem.headers) result.headers = problem.headers;
  return result;
}
