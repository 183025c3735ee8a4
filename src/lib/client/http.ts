// One request path for every command: base URL joining, auth header, timeout, retries
// with full-jitter exponential backoff and Retry-After, idempotency keys, response
// parsing with zod, and a verbose trace that never shows the key.
//
// Own retry loop rather than undici's RetryAgent: RetryHandler backs off without jitter,
// decides POST retries by method list rather than by the presence of an Idempotency-Key,
// and exposes no per-attempt hook for the --verbose trace.
//
// undici through its public API only. EnvHttpProxyAgent reads HTTP_PROXY, HTTPS_PROXY and
// NO_PROXY (either case) as curl does, and is a plain Agent when none is set.
import { EnvHttpProxyAgent, errors as undiciErrors } from 'undici';
import * as z from 'zod/mini';
import { ApiError, codeForStatus, NetworkError, SchemaError, TimeoutError } from '../errors.js';
import { ErrorEnvelope, successWrapper } from '../schemas.js';
import { displayUrl } from '../url.js';

export { displayUrl };

export type HttpOptions = {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  timeoutMs: number;
  retries: number;
  /** Base of the backoff: attempt n waits a random time in [0, min(cap, base·2ⁿ)). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Longest Retry-After honoured; a longer one is capped. */
  retryAfterCapMs?: number;
  trace?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
};

export type Query = Record<string, string | number | boolean | undefined | null>;

export type RequestOptions<T extends z.core.$ZodType> = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  /** Sent as Idempotency-Key; a POST is retried only when it has one, always with the same. */
  idempotencyKey?: string;
  /** Schema of the wrapper's `data`; the answer is checked against it. */
  schema: T;
};

export type Response<T> = { data: T; message: string | null | undefined; status: number; requestId: string | undefined };

/**
 * A 2xx answer before schema checks; `date` is the service's Date header (doctor's clock
 * check); `headers` as received (conform reads which request-id header the service uses).
 */
export type RawResponse = {
  status: number;
  body: unknown;
  requestId?: string;
  date?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
};

/**
 * Outcome of one attempt that did not succeed; tells the loop whether to go again.
 * `unprocessed`: the service certainly did nothing (429, connection refused), so even a
 * POST without an idempotency key may be sent again.
 */
type Failure = { error: Error; retryable: boolean; unprocessed?: boolean; retryAfterMs?: number; notConnected?: boolean };

export class HttpClient {
  private readonly agent: EnvHttpProxyAgent;
  private readonly base: string;

  constructor(private readonly opts: HttpOptions) {
    this.agent = new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, connections: 16 });
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  url(path: string, query?: Query): string {
    const url = new URL(this.base + (path.startsWith('/') ? path : `/${path}`));
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  async request<T extends z.core.$ZodType>(req: RequestOptions<T>): Promise<Response<z.infer<T>>> {
    const raw = await this.send(req);
    const parsed = z.safeParse(successWrapper(req.schema), raw.body);
    if (!parsed.success) throw new SchemaError(`unexpected response from ${req.method} ${req.path}: ${issueMessage(parsed.error)}`, raw.requestId);
    // The raw object (not zod's copy) is returned so `--json` prints exactly what was sent.
    const body = raw.body as { data: z.infer<T>; message?: string | null };
    return { data: body.data, message: body.message, status: raw.status, requestId: raw.requestId };
  }

  /** Sends with retries; resolves with the JSON body of a 2xx, throws a typed error otherwise. */
  async send(req: Omit<RequestOptions<z.core.$ZodType>, 'schema'>): Promise<RawResponse> {
    const url = this.url(req.path, req.query);
    const safeToRepeat = req.method === 'GET' || req.idempotencyKey !== undefined;
    let everConnected = false;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(req, url, attempt);
      if ('body' in outcome) return outcome;
      everConnected ||= !outcome.notConnected;
      const again = outcome.retryable && (safeToRepeat || outcome.unprocessed) && attempt < this.opts.retries;
      if (!again) {
        // A write that never reached the service is known not to have happened.
        if (outcome.error instanceof NetworkError && !everConnected) outcome.error.neverSent = true;
        throw outcome.error;
      }
      await this.backoff(attempt + 1, outcome);
    }
  }

  private async attempt(
    req: Omit<RequestOptions<z.core.$ZodType>, 'schema'>,
    url: string,
    attempt: number,
  ): Promise<RawResponse | Failure> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.opts.userAgent,
      'x-api-key': this.opts.apiKey,
    };
    if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const started = process.hrtime.bigint();
    const shown = displayUrl(url);
    const label = `${req.method} ${shown}${attempt > 0 ? ` (retry ${attempt})` : ''}`;
    this.trace(`> ${label}${req.idempotencyKey ? ` idempotency-key=${req.idempotencyKey}` : ''}`);
    let res;
    try {
      const target = new URL(url);
      res = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const ms = millisSince(started);
      const failure = classifyTransportError(err, req.method, shown, this.opts.timeoutMs);
      this.trace(`< ${failure.error.message} ${ms}ms`);
      return failure;
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      return classifyTransportError(err, req.method, shown, this.opts.timeoutMs);
    }
    const ms = millisSince(started);
    const requestId = requestIdOf(res.headers);
    this.trace(`< ${res.statusCode} ${req.method} ${shown} ${ms}ms${requestId ? ` request-id=${requestId}` : ''}`);
    const body = parseJson(text);
    if (res.statusCode >= 200 && res.statusCode < 300) {
      if (body === undefined) {
        return { error: new SchemaError(`${req.method} ${shown} answered ${res.statusCode} without a JSON body`, requestId), retryable: false };
      }
      return { status: res.statusCode, body, date: headerValue(res.headers.date), headers: res.headers, ...(requestId ? { requestId } : {}) };
    }
    const error = toApiError(res.statusCode, body, req.method, shown, requestId, res.headers);
    const retryable = res.statusCode === 429 || res.statusCode >= 500;
    const retryAfterMs = parseRetryAfter(headerValue(res.headers['retry-after']));
    return { error, retryable, unprocessed: res.statusCode === 429, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  private async backoff(attempt: number, last: Failure): Promise<void> {
    const base = this.opts.backoffBaseMs ?? 250;
    const cap = this.opts.backoffCapMs ?? 8_000;
    const random = this.opts.random ?? Math.random;
    let wait = Math.floor(random() * Math.min(cap, base * 2 ** attempt));
    if (last.retryAfterMs !== undefined) wait = Math.max(wait, Math.min(last.retryAfterMs, this.opts.retryAfterCapMs ?? 60_000));
    this.trace(`  waiting ${wait}ms before retry ${attempt}`);
    await (this.opts.sleep ?? defaultSleep)(wait);
  }

  private trace(line: string): void {
    // The key is never part of the line: headers are not traced, and URLs are shown without a password.
    this.opts.trace?.(line);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** `data.3.status: expected string`: where the first problem of a parse is, and what. */
export function issueMessage(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, prefix: readonly PropertyKey[] = []): string {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])];
  return `${path.length ? path.map(String).join('.') : 'body'}: ${issue?.message ?? 'invalid'}`;
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The spec names no request-id header; these are the names services commonly use, the
 * emulator's first (docs/api.md, "Open points").
 */
export const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid', 'x-trace-id'] as const;

export function requestIdOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headerValue(headers[name]);
    if (value) return value;
  }
  return undefined;
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function toApiError(
  status: number,
  body: unknown,
  method: string,
  url: string,
  requestId?: string,
  headers: Record<string, string | string[] | undefined> = {},
): ApiError {
  const envelope = ErrorEnvelope.safeParse(body);
  if (envelope.success) {
    const { code, message, timestamp } = envelope.data.error;
    return new ApiError({ status, code, message, timestamp, requestId, method, url, envelope: body, headers, enveloped: true });
  }
  const code = codeForStatus(status);
  return new ApiError({
    status,
    code,
    message: `${method} ${new URL(url).pathname} answered HTTP ${status}`,
    requestId,
    method,
    url,
    envelope: { error: { code, message: `HTTP ${status}`, timestamp: new Date().toISOString() } },
    headers,
  });
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Failures before any byte of the request left: the service cannot have acted on it. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Certificate errors a TLS-inspecting proxy causes when its CA is not trusted. */
const CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

export const TLS_INTERCEPTION_HINT =
  "the certificate is not one Node trusts: behind a proxy that inspects TLS, point NODE_EXTRA_CA_CERTS at your organisation's CA bundle (a PEM file)";

function classifyTransportError(err: unknown, method: string, url: string, timeoutMs: number): Failure {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || err instanceof undiciErrors.HeadersTimeoutError) {
    return { error: new TimeoutError(`${method} ${url}: no answer within ${timeoutMs} ms`), retryable: true };
  }
  const code = e?.code ?? e?.cause?.code;
  if (code && CERT_CODES.has(code)) {
    return { error: new NetworkError(`${method} ${url}: TLS certificate not trusted (${code})`, TLS_INTERCEPTION_HINT), retryable: false };
  }
  if (code && NETWORK_CODES.has(code)) {
    const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : 'connection lost';
    const hint = 'is the service (or `offramp emulator`) running at that address?';
    const notConnected = NOT_CONNECTED.has(code);
    return { error: new NetworkError(`${method} ${url}: ${what} (${code})`, hint), retryable: true, unprocessed: notConnected, notConnected };
  }
  return { error: new NetworkError(`${method} ${url}: ${e?.message ?? String(err)}`), retryable: true };
}

/**
 * Whole milliseconds since a process.hrtime.bigint() reading. (The global `performance`
 * would load node:perf_hooks at every API command's start, for a trace line.)
 */
function millisSince(started: bigint): number {
  return Number((process.hrtime.bigint() - started + 500_000n) / 1_000_000n);
}
