// The policy of every request to the service: what is retried, when, and under which
// deadline; the mechanism of one attempt is transport.ts's (an exchange bounded in time and
// size). A request whose service never got it is `notSent`: then even a write without an
// Idempotency-Key may go again, and a create stopped there is NOT_SENT.
//
// Own retry loop rather than undici's RetryAgent: RetryHandler backs off without jitter,
// decides POST retries by method list rather than by the presence of an Idempotency-Key,
// and exposes no per-attempt hook for the --verbose trace.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod/mini';
import { backoffDelay } from './backoff.js';
import { ApiError, NetworkError, SchemaError, TimeoutError } from '../errors.js';
import { ErrorEnvelope, successWrapper } from '../schemas.js';
import { displayUrl } from './url.js';
import { certificateError } from './certificate.js';
import { ProxyError, ResponseTooLarge } from './errors.js';
import { resolveProxy, type ProxyChoice } from './proxy.js';
import { invalidTextNote } from './text.js';
import { DeadlinePassed, DEFAULT_MAX_RESPONSE_BYTES, formatBytes, headerValue, ProxyFailure, Transport, type Exchange, type ProxyFailureKind } from './transport.js';

export type HttpOptions = {
  baseUrl: string;
  /** Sent as X-Api-Key; the emulator's control plane takes none. */
  apiKey?: string;
  /** More headers on every request (the control plane's admin token). */
  headers?: Record<string, string>;
  userAgent: string;
  timeoutMs: number;
  retries: number;
  /** Base of the backoff (backoff.ts); tests shorten it. */
  backoffBaseMs?: number;
  /** The --verbose trace. The key is never part of a line: headers are not traced, and URLs are shown without a password. */
  trace?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Where proxy variables are read (docs/configuration.md, "Proxies"); without it, requests go direct. */
  env?: NodeJS.ProcessEnv;
  /** Cap on one answer's body (OFFRAMP_MAX_RESPONSE_BYTES); default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** The service's error messages whole (--verbose), rather than cut to MESSAGE_SHOWN. */
  fullMessages?: boolean;
  /** Told once per answer whose text was not UTF-8 (which fields, which records). */
  warn?: (line: string) => void;
};

/** What one attempt came to, told to whoever `observe`s the client: conform sees the 429s the retry loop absorbs. */
export type AttemptResult = {
  /** 0 for the first try, n for the n-th retry. */
  attempt: number;
  /** The answer's status; absent when there was no answer (the error says why). */
  status?: number;
  /** Retry-After of the answer, capped (parseRetryAfter). */
  retryAfterMs?: number;
  error?: Error;
  /** Whether the loop goes on to another attempt after this one. */
  again: boolean;
};

export type Query = Record<string, string | number | boolean | undefined | null>;

export type RequestOptions<T extends z.core.$ZodType> = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  /** Sent as Idempotency-Key; a POST is retried only when it has one, always with the same. */
  idempotencyKey?: string;
  /** A body sent as it is, instead of `body` as JSON (the emulator's state document). */
  raw?: { text: string; contentType: string };
  /** The answer is text (the state document): a 2xx without JSON is then no error. */
  textAnswer?: boolean;
  /** Schema of the wrapper's `data`; the answer is checked against it. */
  schema: T;
};

export type Response<T> = { data: T; message: string | null | undefined; status: number; requestId: string | undefined };

/** A 2xx answer before schema checks; `date` for doctor's clock check, `headers` for conform. */
export type RawResponse = {
  status: number;
  /** The answer parsed as JSON; undefined when it is not JSON (a `textAnswer` request's). */
  body: unknown;
  text: string;
  requestId?: string;
  date?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
};

/** An attempt that did not succeed. `notSent`: the request never left (no connection, no proxy tunnel, a refused certificate). */
type Failure = { error: Error; retryable: boolean; notSent?: boolean; retryAfterMs?: number };

/**
 * What a client shares with the clients `withBudget` and `withStop` make from it.
 * `heldUntil`: until when (monotonicMs) a 429's Retry-After holds every request (holdFor429).
 */
type Shared = { transport: Transport; proxy?: ProxyChoice; observers: Set<(a: AttemptResult) => void>; heldUntil: number };

/** A service error message longer than this is shown cut (whole under --verbose). */
export const MESSAGE_SHOWN = 300;

export class HttpClient {
  private readonly base: string;
  private readonly shared: Shared;

  constructor(
    private readonly opts: HttpOptions,
    shared?: Shared,
    /** Milliseconds left for everything this client sends; undefined: no overall deadline. */
    private readonly budget?: () => number,
    /** Once aborted, what is in flight lets go and nothing more is sent (Ctrl-C in an export). */
    private readonly stop?: AbortSignal,
  ) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.shared = shared ?? {
      transport: new Transport({ timeoutMs: opts.timeoutMs, maxBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES }),
      observers: new Set(),
      heldUntil: 0,
    };
  }

  /**
   * The same client (connections included) under an overall deadline: each attempt gets
   * at most what `remaining()` says is left, and no retry starts that could not end in it.
   */
  withBudget(remaining: () => number): HttpClient {
    return new HttpClient(this.opts, this.shared, remaining, this.stop);
  }

  /**
   * The same client, stopped by `signal`: the attempt in flight ends at once (its connection
   * retired, as when its deadline passes), no retry starts, and the request throws the
   * signal's reason. Without it a stopped command would wait for its requests' deadlines.
   */
  withStop(signal: AbortSignal): HttpClient {
    // One listener per request in flight (an export has up to its concurrency out at once).
    setMaxListeners(0, signal);
    return new HttpClient(this.opts, this.shared, this.budget, signal);
  }

  /** Calls `observer` after every attempt of every request until the returned function is called. */
  observe(observer: (a: AttemptResult) => void): () => void {
    this.shared.observers.add(observer);
    return () => this.shared.observers.delete(observer);
  }

  /** Whether requests go through a proxy, and which; throws on a proxy variable that cannot be read. */
  proxyChoice(): ProxyChoice {
    this.shared.proxy ??= resolveProxy(new URL(this.base), this.opts.env ?? {});
    return this.shared.proxy;
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

  /** Sends with retries; resolves with a 2xx answer (its JSON, and its text), throws a typed error otherwise. */
  async send(req: Omit<RequestOptions<z.core.$ZodType>, 'schema'>): Promise<RawResponse> {
    const url = this.url(req.path, req.query);
    this.proxyChoice(); // a proxy variable that cannot be read stops here, before anything is sent
    let everSent = false;
    // Until when this request has waited out the hold: its own 429's wait covers its own Retry-After.
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      this.stop?.throwIfAborted();
      waited = await this.holdFor429(attempt, waited, `${req.method} ${displayUrl(url)}`);
      const left = this.budget?.() ?? Infinity;
      if (left <= 0) throw passing(new TimeoutError(`${req.method} ${displayUrl(url)}: the overall deadline passed before it could be sent`));
      const result = await this.attempt(req, url, attempt, Math.min(this.opts.timeoutMs, left));
      if ('body' in result) {
        this.tell({ attempt, status: result.status, again: false });
        return result;
      }
      everSent ||= !result.notSent;
      if (result.error instanceof ApiError && result.error.status === 429) {
        waited = monotonicMs() + (result.retryAfterMs ?? 0);
        this.shared.heldUntil = Math.max(this.shared.heldUntil, waited);
      }
      const retry = this.shouldRetry(req, result, attempt);
      const wait = retry ? this.backoffFor(attempt + 1, result) : 0;
      const again = Boolean(retry) && wait < (this.budget?.() ?? Infinity);
      this.tell({
        attempt,
        ...(result.error instanceof ApiError ? { status: result.error.status } : {}),
        ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
        error: result.error,
        again,
      });
      if (!again) {
        // A write that never reached the service is known not to have happened.
        if (result.error instanceof NetworkError && !everSent) result.error.notSent = true;
        if (result.retryable) passing(result.error);
        throw result.error;
      }
      this.opts.trace?.(`  waiting ${wait}ms before retry ${attempt + 1}`);
      await this.pause(wait);
    }
  }

  private async attempt(
    req: Omit<RequestOptions<z.core.$ZodType>, 'schema'>,
    url: string,
    attempt: number,
    timeoutMs: number,
  ): Promise<RawResponse | Failure> {
    const json = !req.raw && req.body !== undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.opts.headers,
      'user-agent': this.opts.userAgent,
      ...(this.opts.apiKey !== undefined ? { 'x-api-key': this.opts.apiKey } : {}),
      ...(req.idempotencyKey ? { 'idempotency-key': req.idempotencyKey } : {}),
      ...(req.raw ? { 'content-type': req.raw.contentType } : json ? { 'content-type': 'application/json' } : {}),
    };
    const payload = req.raw ? req.raw.text : json ? JSON.stringify(req.body) : undefined;
    const started = process.hrtime.bigint();
    const shown = displayUrl(url);
    const label = `${req.method} ${shown}${attempt > 0 ? ` (retry ${attempt})` : ''}`;
    this.opts.trace?.(`> ${label}${req.idempotencyKey ? ` idempotency-key=${req.idempotencyKey}` : ''}`);
    const choice = this.proxyChoice();
    let ex: Exchange;
    try {
      ex = await this.shared.transport.exchange(new URL(url), { method: req.method, headers, body: payload }, {
        proxy: choice.via === 'proxy' ? choice.url : undefined,
        timeoutMs,
        stop: this.stop,
      });
    } catch (err) {
      if (this.stop?.aborted) throw this.stop.reason;
      // Its look at the certificate stays within the attempt's deadline.
      const left = Math.max(1, timeoutMs - millisSince(started));
      const refused = await certificateError(err, new URL(url), `${req.method} ${shown}`, { canLook: choice.via !== 'proxy', timeoutMs: left, ...(this.stop ? { signal: this.stop } : {}) });
      if (this.stop?.aborted) throw this.stop.reason;
      const failure: Failure = refused ? { error: refused, retryable: false, notSent: true } : classifyTransportError(err, req.method, shown, choice, timeoutMs);
      this.opts.trace?.(`< ${failure.error.message} ${millisSince(started)}ms`);
      return failure;
    }
    const ms = millisSince(started);
    const requestId = REQUEST_ID_HEADERS.map((name) => headerValue(ex.headers[name])).find(Boolean);
    this.opts.trace?.(`< ${ex.status} ${req.method} ${shown} ${ms}ms${requestId ? ` request-id=${requestId}` : ''}`);
    const ok = ex.status >= 200 && ex.status < 300;
    const retryable = ex.status === 429 || ex.status >= 500;
    const retryAfterMs = parseRetryAfter(headerValue(ex.headers['retry-after']));
    const retry = { retryable, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    if (ex.overCap) {
      const cap = formatBytes(this.shared.transport.maxBytes);
      if (ok) return { error: new ResponseTooLarge(`${req.method} ${shown} answered ${ex.status} with more than ${cap}; it was not read further`, requestId), retryable: false };
      return { error: toApiError(ex.status, undefined, req.method, shown, requestId, ex.headers, false, `with more than ${cap} (not read further)`), ...retry };
    }
    const text = decodeAnswer(ex.body);
    let body: unknown;
    try {
      body = text.text.length > 0 ? JSON.parse(text.text) : undefined;
    } catch {
      // Not JSON (a gateway's page): no body to read.
    }
    if (text.invalid && body !== undefined) {
      const note = invalidTextNote(body);
      if (note) this.opts.warn?.(`${req.method} ${new URL(shown).pathname}: ${note}`);
    }
    if (ok) {
      if (body === undefined && !req.textAnswer) {
        return { error: new SchemaError(`${req.method} ${shown} answered ${ex.status} without a JSON body`, requestId), retryable: false };
      }
      return { status: ex.status, body, text: text.text, date: headerValue(ex.headers.date), headers: ex.headers, ...(requestId ? { requestId } : {}) };
    }
    return { error: toApiError(ex.status, body, req.method, shown, requestId, ex.headers, this.opts.fullMessages), ...retry };
  }

  /**
   * Whether a failed attempt goes again (before the budget's say): a failure worth another
   * try, retries left, and a request safe to repeat: a read, a write with its
   * Idempotency-Key, or one the service never got or said it did nothing with (429).
   */
  private shouldRetry(req: Omit<RequestOptions<z.core.$ZodType>, 'schema'>, failure: Failure, attempt: number): boolean {
    if (!failure.retryable || attempt >= this.opts.retries) return false;
    const rateLimited = failure.error instanceof ApiError && failure.error.status === 429;
    return req.method === 'GET' || req.idempotencyKey !== undefined || failure.notSent === true || rateLimited;
  }

  /**
   * Waits out the Retry-After of the last 429 any request of this client met, before an
   * attempt. The service limits a key, not a request: without this, the requests in flight
   * beside a refused one (an export's pages) keep asking, and the refused ones, back after
   * their Retry-After among all the others, are refused again until --retries runs out
   * (BENCHMARKS.md, "One retry loop, a fixed number of pages at once"). A first attempt
   * the hold kept waits a jittered backoff more, so that the refused requests are asked
   * again first and the rest do not arrive as one burst. Each attempt is still one of
   * --retries + 1: the hold only says when it starts. `waited`: until when this request
   * has waited already; answers the same after the hold. It waits again only when another
   * 429 moved the hold meanwhile.
   */
  private async holdFor429(attempt: number, waited: number, what: string): Promise<number> {
    let held = false;
    while (this.shared.heldUntil > waited) {
      waited = this.shared.heldUntil;
      const ms = waited - monotonicMs();
      if (ms <= 0) break;
      // A hold longer than the deadline leaves ends now, as a retry that would not fit does:
      // sleeping the budget away would only end in the same timeout.
      if (ms >= (this.budget?.() ?? Infinity)) {
        throw new TimeoutError(`${what}: the service asked this key to wait ${Math.ceil(ms / 1000)} s (429 Retry-After), longer than the overall deadline leaves`);
      }
      held = true;
      this.opts.trace?.(`  holding ${ms}ms: the service asked this key to wait (429 Retry-After)`);
      await this.pause(ms);
    }
    const spread = held && attempt === 0 ? this.jitter(1) : 0;
    if (spread > 0 && spread < (this.budget?.() ?? Infinity)) await this.pause(spread);
    return waited;
  }

  /** Waits `ms` before a retry; a stop ends the wait at once, with the stop's reason. */
  private async pause(ms: number): Promise<void> {
    if (this.opts.sleep) return this.opts.sleep(ms);
    await sleep(ms, undefined, this.stop ? { signal: this.stop } : {}).catch((err: unknown) => {
      this.stop?.throwIfAborted();
      throw err;
    });
  }

  /** The wait before retry `attempt`: jittered backoff, or the (capped) Retry-After when longer. */
  private backoffFor(attempt: number, last: Failure): number {
    const wait = this.jitter(attempt);
    return last.retryAfterMs !== undefined ? Math.max(wait, last.retryAfterMs) : wait;
  }

  /** The jittered backoff before retry `attempt` (docs/configuration.md, "Retries and idempotency"). */
  private jitter(attempt: number): number {
    return backoffDelay(attempt, { baseMs: this.opts.backoffBaseMs ?? 250, capMs: 8_000, ...(this.opts.random ? { random: this.opts.random } : {}) });
  }

  private tell(a: AttemptResult): void {
    for (const observer of this.shared.observers) observer(a);
  }

  async close(): Promise<void> {
    await this.shared.transport.close();
  }
}

/** `data.3.status: expected string`: where the first problem of a parse is, and what. */
export function issueMessage(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, prefix: readonly PropertyKey[] = []): string {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])];
  return `${path.length ? path.map(String).join('.') : 'body'}: ${issue?.message ?? 'invalid'}`;
}

/**
 * The spec names no request-id header; these are the names services commonly use, the
 * emulator's first (docs/api.md, "Open points").
 */
export const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid', 'x-trace-id'] as const;

/** The longest Retry-After honoured anywhere (docs/configuration.md, "Retries and idempotency"). */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Retry-After in seconds or as an HTTP date, in ms, capped at RETRY_AFTER_CAP_MS (so no
 * reader ever hands a timer more than it can hold); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Math.round(Number(text) * 1000);
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, RETRY_AFTER_CAP_MS);
}

/** `text` cut to `max` characters, saying how much was left out. */
export function cutMessage(text: string, max = MESSAGE_SHOWN): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters; --verbose shows them)`;
}

/**
 * An error status as an ApiError; the service's message is cut unless `full`. Without an
 * error envelope, the message says the status, and `detail` when given.
 */
export function toApiError(
  status: number,
  body: unknown,
  method: string,
  url: string,
  requestId?: string,
  headers: Record<string, string | string[] | undefined> = {},
  full = false,
  detail?: string,
): ApiError {
  const envelope = ErrorEnvelope.safeParse(body);
  if (envelope.success) {
    const { code, message: sent } = envelope.data.error;
    const message = full ? sent : cutMessage(sent);
    // The envelope `--json` prints carries the message as shown.
    const shownEnvelope = message === sent ? body : { ...(body as object), error: { ...(body as { error: object }).error, message } };
    return new ApiError({ status, message, requestId, method, url, headers, sent: { code, envelope: shownEnvelope } });
  }
  return new ApiError({ status, message: `${method} ${new URL(url).pathname} answered HTTP ${status}${detail ? ` ${detail}` : ''}`, requestId, method, url, headers });
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** An answer's text; `invalid` when it was not UTF-8 (bad bytes are then U+FFFD). */
function decodeAnswer(body: Buffer): { text: string; invalid: boolean } {
  try {
    return { text: FATAL_UTF8.decode(body), invalid: false };
  } catch {
    return { text: body.toString('utf8').replace(/^\uFEFF/, ''), invalid: true };
  }
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
  'UND_ERR_DESTROYED',
]);

/** The failures `send` threw that another attempt might not meet (it stopped for want of retries or time). */
const PASSING = new WeakSet<Error>();

function passing<E extends Error>(err: E): E {
  PASSING.add(err);
  return err;
}

/**
 * Whether a request's failure is one the client itself would try again (a 429 or 5xx, no
 * connection, no answer in time), rather than an answer that will not change (a 4xx, a
 * refused certificate or proxy): the rule of a caller that polls with single attempts.
 */
export function worthAnotherTry(err: unknown): boolean {
  return err instanceof Error && PASSING.has(err);
}

/** Failures before any byte of the request left: the service cannot have acted on it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const SERVICE_HINT = 'is the service (or `offramp emulator`) running at that address?';

function classifyTransportError(err: unknown, method: string, url: string, choice: ProxyChoice, timeoutMs: number): Failure {
  if (err instanceof ProxyFailure || (err instanceof DeadlinePassed && err.phase === 'proxy')) {
    return proxyFailure(err, method, url, choice, timeoutMs);
  }
  if (err instanceof DeadlinePassed) {
    // No connection (TCP, TLS) in time: a network error, so that a write it stopped is known never sent.
    if (err.notSent) return { error: new NetworkError(`${method} ${url}: no connection within ${err.ms} ms`, SERVICE_HINT), retryable: true, notSent: true };
    return { error: new TimeoutError(`${method} ${url}: no answer within ${err.ms} ms`), retryable: true };
  }
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (code && NETWORK_CODES.has(code)) {
    const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : 'connection lost';
    return { error: new NetworkError(`${method} ${url}: ${what} (${code})`, SERVICE_HINT), retryable: true, notSent: NOT_SENT.has(code) };
  }
  return { error: new NetworkError(`${method} ${url}: ${e?.message ?? String(err)}`), retryable: true };
}

/** The proxy failed: named, with what to do about it; the service received nothing. */
function proxyFailure(err: ProxyFailure | DeadlinePassed, method: string, url: string, choice: ProxyChoice, timeoutMs: number): Failure {
  const via = choice.via === 'proxy' ? choice : undefined;
  const proxy = err.proxy ?? via?.proxy ?? 'the proxy';
  const from = via?.from ?? 'HTTPS_PROXY';
  const target = new URL(url);
  const host = target.hostname;
  const tunnel = `${host}:${target.port || (target.protocol === 'https:' ? 443 : 80)}`;
  const direct = `or add ${host} to NO_PROXY to go direct`;
  const failure = err instanceof ProxyFailure ? err : undefined;
  // What each kind of failure is said as: its message, and what to do about it.
  const said: Record<ProxyFailureKind, [message: string, hint: string]> = {
    refused: [`proxy ${proxy} refused the tunnel to ${tunnel} (HTTP ${failure?.status})`, `many proxies allow CONNECT only to port 443; ask the proxy's administrator to allow ${tunnel}, ${direct}`],
    auth: [
      via?.url.username ? `proxy ${proxy} did not accept the credentials in ${from} (HTTP 407)` : `proxy ${proxy} wants credentials (HTTP 407)`,
      `give them in the proxy URL: ${from}=http://USER:PASSWORD@${proxy.replace(/^\w+:\/\//, '')} (percent-encode special characters); the proxy's administrator has them`,
    ],
    down: [`proxy ${proxy} refused the connection (ECONNREFUSED)`, `is the proxy running? check ${from}, ${direct}`],
    unresolvable: [`proxy host ${proxy.replace(/^\w+:\/\/|:\d+$/g, '')} not found`, `check the host in ${from}, ${direct}`],
    silent: [`proxy ${proxy} did not open a tunnel to ${tunnel} within ${err instanceof DeadlinePassed ? err.ms : timeoutMs} ms`, `check the proxy with its administrator, ${direct}`],
    closed: [`proxy ${proxy} closed the connection without opening a tunnel to ${tunnel}`, `the proxy may not allow this destination (many allow CONNECT only to port 443); ask its administrator, ${direct}`],
    other: [`proxy ${proxy} failed to open a tunnel to ${tunnel}: ${failure?.detail}`, `ask the proxy's administrator, ${direct}`],
  };
  const kind = failure?.kind ?? 'silent';
  const [message, hint] = said[kind];
  // A proxy that refused the tunnel or the credentials answers another attempt the same.
  return { error: new ProxyError(`${method} ${url}: ${message}`, hint), retryable: kind !== 'refused' && kind !== 'auth', notSent: true };
}

/**
 * Whole milliseconds since a process.hrtime.bigint() reading. (The global `performance`
 * would load node:perf_hooks at every API command's start, for a trace line.)
 */
function millisSince(started: bigint): number {
  return Number((process.hrtime.bigint() - started + 500_000n) / 1_000_000n);
}

/** Whole milliseconds on the monotonic clock (the hold after a 429 must not follow the wall clock). */
function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}
