// `webhooks listen --forward-to URL`: relays verified deliveries to the user's own app and
// retries what it did not take, as docs/webhooks.md ("Forwarding") describes the request, the
// schedule and why: after a failure the whole queue pauses, then probes one event at a time
// (the earliest due), so a down app is not sent every owed event at once and one refused
// event holds up no other. A refused certificate is not retried: it will not change.
import { rootCertificates } from 'node:tls';
import { backoffDelay, type Backoff } from '../client/backoff.js';
import { certificateError, type RefusalOptions } from '../client/certificate.js';
import type { CertificateRefused } from '../client/errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, Transport } from '../client/transport.js';
import { UsageError } from '../errors.js';
import { displayUrl, isLoopbackHost } from '../client/url.js';
import { VERSION } from '../../version.js';
import { SIGNATURE_HEADER, WEBHOOK_HEADERS } from './signature.js';
import { webhookUrl } from './url.js';

export const FORWARD_PARALLEL = 16;
export const FORWARD_BACKLOG = 1000;
export const FORWARD_TIMEOUT_MS = 10_000;
/** Base of the backoff: the first delay is about twice it (docs/webhooks.md: 0.5 s). */
export const RETRY_BASE_MS = 250;
export const RETRY_MAX_MS = 30_000;

/**
 * The only headers of a delivery relayed to the app: what it needs to verify and
 * deduplicate the event (docs/webhooks.md, "The request"). Anything else the sender or a
 * proxy on the way added (cookies, authorization, forwarding chains) stays here.
 */
const RELAYED = new Set(['content-type', ...Object.values(WEBHOOK_HEADERS).map((h) => h.toLowerCase())]);

export type ForwardItem = {
  id: string;
  type: string | undefined;
  body: Buffer;
  headers: Record<string, string | string[]>;
  /** The app is owed it: retried until taken. Otherwise (a duplicate) sent once. */
  owed: boolean;
  /** Re-signs the body for an attempt whose original signature would be stale (timestamped schemes). */
  resign?: () => string;
  /** Received in an earlier run: even the first attempt is re-signed (when `resign` is given). */
  late?: boolean;
};

export type ForwardResult = {
  id: string;
  type: string | undefined;
  url: string;
  status?: number;
  ok: boolean;
  ms: number;
  /** First bytes of a non-2xx answer, or what went wrong. */
  detail?: string;
  /** 1 for the first try of this event in this run. */
  attempt: number;
  /** A duplicate relayed once, not an owed event. */
  duplicate: boolean;
  /** Owed and not taken: the next try comes after this many ms. */
  retryInMs?: number;
  /** Not sent at all (too many duplicate relays waiting). */
  dropped?: boolean;
};

export type ForwarderOptions = {
  url: string;
  /** PEM certificate(s) trusted for an https app, besides the usual roots (--forward-ca). */
  ca?: string;
  /** Accept any certificate from an https app (--forward-insecure). */
  insecure?: boolean;
  timeoutMs?: number;
  /** Cap on what is read of one answer of the app; default DEFAULT_MAX_RESPONSE_BYTES. */
  maxAnswerBytes?: number;
  /** Base of the backoff (the first delay is about twice it); default RETRY_BASE_MS. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  onResult(result: ForwardResult): void;
  /** An owed event was taken (2xx): the caller records it. */
  onTaken(item: ForwardItem, status: number): void;
};

type Queued = ForwardItem & { attempt: number; dueAt: number };

/** One POST of a delivery to the app (forwarded or resent): what it answered, or why nothing came. */
export type Relayed = {
  status?: number;
  ok: boolean;
  ms: number;
  /** The first characters of a non-2xx answer, on one line; or why no answer came. */
  detail: string;
  /** The app's certificate was refused: never retried, as it will not change. */
  refused?: CertificateRefused;
};

/** POSTs `body` to the app at `url` within `timeoutMs`; a look at a refused certificate stays within it too. */
export async function relay(
  transport: Transport,
  url: string,
  req: { body: Buffer; headers: Record<string, string | string[]> },
  timeoutMs: number,
  refusal: Omit<RefusalOptions, 'canLook' | 'timeoutMs'> & { what?: string },
): Promise<Relayed> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const { status, body } = await transport.exchange(new URL(url), { method: 'POST', ...req }, { timeoutMs });
    const ok = status >= 200 && status < 300;
    return { status, ok, ms: ms(), detail: ok ? '' : body.toString('utf8', 0, 1024).replace(/\s+/g, ' ').trim().slice(0, 120) };
  } catch (err) {
    const refused = await certificateError(err, new URL(url), refusal.what, { ...refusal, canLook: true, timeoutMs: Math.max(1, timeoutMs - ms()) });
    if (refused) return { ok: false, ms: ms(), detail: '', refused };
    // The error, its cause, the code (ECONNREFUSED, …), in one line.
    const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    const cause = e.cause?.message && e.cause.message !== e.message ? `: ${e.cause.message}` : '';
    const code = e.code ?? e.cause?.code;
    return { ok: false, ms: ms(), detail: `${e.message ?? String(err)}${cause}${code ? ` (${code})` : ''}` };
  }
}

/** The headers of a received delivery that go on to the app: the allow-list (attempt() adds the user-agent). */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && RELAYED.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

/**
 * `--forward-to`: an http or https URL, and plain http only to this machine unless
 * `--allow-insecure-forward`: events carry payout details, and their signatures would let
 * anyone on the way replay them to the app.
 */
export function forwardTarget(value: string, allowInsecure: boolean): URL {
  const url = webhookUrl(value, '--forward-to');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecure) {
    throw new UsageError(
      `--forward-to ${displayUrl(url.toString())} is plain http to another machine: the events would cross the network in clear`,
      'use an https:// URL, or pass --allow-insecure-forward if that network is yours',
    );
  }
  return url;
}

export class Forwarder {
  private readonly transport: Transport;
  private readonly timeoutMs: number;
  private readonly backoff: Backoff;
  /** Due now, oldest first. */
  private ready: Queued[] = [];
  /** Waiting for their retry, by due time. */
  private waiting: Queued[] = [];
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  /**
   * How many times the whole queue has paused since the app last took something: each
   * pause is longer. Failures during a pause (requests already in flight) do not count
   * again, so a burst of them is one step, not sixteen.
   */
  private pauses = 0;
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;
  /** Aborted by close(): ends a look at a refused certificate still under way. */
  private readonly closing = new AbortController();
  private owedCount = 0;
  private duplicatesWaiting = 0;
  /** The app's certificate was refused: nothing more is sent in this run. */
  private refused: CertificateRefused | undefined;

  constructor(private readonly opts: ForwarderOptions) {
    this.timeoutMs = opts.timeoutMs ?? FORWARD_TIMEOUT_MS;
    this.backoff = { baseMs: opts.retryBaseMs ?? RETRY_BASE_MS, capMs: opts.retryMaxMs ?? RETRY_MAX_MS, jitter: 0.25 };
    const tls = { ...(opts.ca ? { ca: [...rootCertificates, opts.ca] } : {}), ...(opts.insecure ? { rejectUnauthorized: false } : {}) };
    const maxBytes = opts.maxAnswerBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.transport = new Transport({ timeoutMs: this.timeoutMs, maxBytes, tls, connections: FORWARD_PARALLEL, keepAliveTimeout: 4000 });
  }

  /** Events owed to the app and not yet taken (queued, waiting for a retry, or in flight). */
  get owed(): number {
    return this.owedCount;
  }

  /** Queues an event; owed ones are kept until taken or the listener stops. */
  send(item: ForwardItem): void {
    if (this.stopped) return;
    if (!item.owed) {
      if (this.duplicatesWaiting >= FORWARD_BACKLOG) {
        return this.emit({ id: item.id, type: item.type, url: this.opts.url, ok: false, ms: 0, attempt: 1, duplicate: true, dropped: true, detail: `more than ${FORWARD_BACKLOG} relays waiting` });
      }
      this.duplicatesWaiting++;
    } else {
      this.owedCount++;
    }
    this.ready.push({ ...item, attempt: 1, dueAt: 0 });
    this.pump();
  }

  private pump(): void {
    if (this.stopped || this.refused) return;
    const now = Date.now();
    let due = 0;
    while (due < this.waiting.length && this.waiting[due]!.dueAt <= now) due++;
    // Retries that came due go before newer events: they have waited longest.
    if (due > 0) this.ready.unshift(...this.waiting.splice(0, due));
    if (this.ready.length > 0 && now < this.pausedUntil) {
      this.wakeAt(this.pausedUntil);
    } else {
      // After a failure, one at a time until the app takes one.
      const limit = this.pauses > 0 ? 1 : FORWARD_PARALLEL;
      while (this.inFlight < limit && this.ready.length > 0) this.start(this.ready.shift()!);
    }
    if (this.waiting.length > 0) this.wakeAt(this.waiting[0]!.dueAt);
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private start(item: Queued): void {
    this.inFlight++;
    const run = this.attempt(item).finally(() => {
      this.inFlight--;
      this.running.delete(run);
      this.pump();
    });
    this.running.add(run);
  }

  private async attempt(item: Queued): Promise<void> {
    const signed = item.resign && (item.attempt > 1 || item.late) ? { ...item.headers, [SIGNATURE_HEADER]: item.resign() } : item.headers;
    // The tool's own user-agent, not the sender's.
    const headers = { ...signed, 'user-agent': `offramp-cli/${VERSION} (webhooks listen)` };
    // A look at a refused certificate ends with close() too.
    const refusal = { signal: this.closing.signal, urlFrom: '--forward-to', trust: "trust the app's certificate, or its CA, with --forward-ca FILE (a PEM file)" };
    const { status, ok, ms, detail: said, refused } = await relay(this.transport, this.opts.url, { body: item.body, headers }, this.timeoutMs, refusal);
    if (this.stopped) return;
    if (refused) this.refused ??= refused;
    const detail = refused ? `${refused.message}${refused.hint ? ` — ${refused.hint}` : ''}; not retried, and nothing more is forwarded in this run (the events stay owed)` : said;
    const base = { id: item.id, type: item.type, url: this.opts.url, ok, ms, attempt: item.attempt, duplicate: !item.owed, ...(status !== undefined ? { status } : {}), ...(detail ? { detail } : {}) };
    if (!item.owed) {
      this.duplicatesWaiting--;
    } else if (ok) {
      this.pauses = 0;
      this.pausedUntil = 0;
      this.owedCount--;
      this.opts.onTaken(item, status!);
    } else if (!this.refused) {
      const delay = backoffDelay(item.attempt, this.backoff);
      if (Date.now() >= this.pausedUntil) this.pausedUntil = Date.now() + backoffDelay(++this.pauses, this.backoff);
      item.attempt++;
      item.dueAt = Date.now() + delay;
      const later = this.waiting.findIndex((w) => w.dueAt > item.dueAt);
      this.waiting.splice(later < 0 ? this.waiting.length : later, 0, item);
      return this.emit({ ...base, retryInMs: delay });
    }
    this.emit(base);
  }

  private emit(result: ForwardResult): void {
    try {
      this.opts.onResult(result);
    } catch {
      // A display callback must never stop the forwarding.
    }
  }

  /** Stops: nothing more is sent, requests in flight are aborted (their events stay owed). */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.closing.abort();
    if (this.timer) clearTimeout(this.timer);
    // Destroying the connections fails the requests in flight at once.
    await this.transport.close();
    await Promise.allSettled([...this.running]);
  }
}
