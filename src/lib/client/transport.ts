// One exchange with a server, bounded in time and size: the mechanism under the HTTP
// client's and the webhook forwarder's attempts, which hold the policy (docs/configuration.md,
// "Timeouts and limits"). What it adds to undici:
//
// - One deadline over every phase (DNS, connect, the proxy's CONNECT, TLS, headers, body):
//   undici honours an abort signal only once a request has a connection, so at the deadline
//   the exchange ends anyway, saying what it waited on (the proxy, a connection, the answer).
// - The body is counted as it arrives and reading stops past the cap.
// - A proxy that fails the CONNECT is the proxy's failure, never a reason for undici to
//   connect again at once (it would, in a loop): see ProxyPool.
// - Interim 1xx answers are skipped (undici 7 fails on a `100 Continue` it did not ask for):
//   see InterimFilter.
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import { Agent, Pool, ProxyAgent, buildConnector, type Dispatcher } from 'undici';
import { UsageError } from '../errors.js';
import { proxyHost } from './proxy.js';

/** The first value of a header Node may give as a list. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The longest a Node timer can wait; a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Default cap on one answer's body: a page of 100 records is tens of KiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The cap on one answer, from OFFRAMP_MAX_RESPONSE_BYTES (whole bytes) or the default. */
export function maxResponseBytes(env: NodeJS.ProcessEnv): number {
  const value = env.OFFRAMP_MAX_RESPONSE_BYTES?.trim();
  if (!value) return DEFAULT_MAX_RESPONSE_BYTES;
  if (!/^\d+$/.test(value) || Number(value) < 1024 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`OFFRAMP_MAX_RESPONSE_BYTES is not a size in bytes (${JSON.stringify(value)})`, `a whole number of bytes, at least 1024 (default ${DEFAULT_MAX_RESPONSE_BYTES})`);
  }
  return Number(value);
}

/** `8 MiB`, `1536 KiB`, `2000 bytes`: a cap as people read it. */
export function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export type Exchange = {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, or its first `maxBytes` when `overCap`. */
  body: Buffer;
  /** The body was longer than the cap (said by Content-Length or counted): reading stopped. */
  overCap: boolean;
};

export type ExchangeRequest = {
  method: string;
  headers: Record<string, string | string[]>;
  body?: string | Buffer | undefined;
};

/** Why the proxy did not open the tunnel. */
export type ProxyFailureKind = 'refused' | 'auth' | 'down' | 'unresolvable' | 'silent' | 'closed' | 'other';

/**
 * The proxy failed the CONNECT: nothing reached the server. Its code is not undici's
 * socket-error code, so undici fails the requests waiting for the connection instead of
 * connecting again.
 */
export class ProxyFailure extends Error {
  readonly code = 'OFFRAMP_PROXY';

  constructor(
    readonly kind: ProxyFailureKind,
    /** `http://host:port` of the proxy, without credentials. */
    readonly proxy: string,
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`proxy ${proxy}: ${detail}`);
    this.name = 'ProxyFailure';
  }
}

/** The deadline passed. `phase`: what the exchange was waiting for then. */
export class DeadlinePassed extends Error {
  constructor(
    readonly ms: number,
    /**
     * `proxy`: its CONNECT; `connect`: a connection (TCP, TLS, or a free one in the pool);
     * `answer`: the answer to a request it sent.
     */
    readonly phase: 'proxy' | 'connect' | 'answer',
    /** The proxy, when it was waiting for one. */
    readonly proxy?: string,
  ) {
    super(phase === 'answer' ? `no answer within ${ms} ms` : `no connection within ${ms} ms`);
    this.name = 'DeadlinePassed';
  }

  /** The request never left: it had no connection yet. */
  get notSent(): boolean {
    return this.phase !== 'answer';
  }
}

export type TransportOptions = {
  /** The longest any one exchange may take; also undici's connect, headers and body timeouts. */
  timeoutMs: number;
  maxBytes: number;
  /** TLS settings for https servers (a CA to trust, or none checked). */
  tls?: ConnectionOptions;
  connections?: number;
  keepAliveTimeout?: number;
};

/**
 * The dispatcher for one way out (direct, or one proxy), and how many CONNECTs that proxy
 * has not answered: a deadline then says the proxy is what it waited on.
 */
type Lane = {
  dispatcher: Dispatcher;
  awaitingProxy: number;
  proxy?: string;
};

export class Transport {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly opts: TransportOptions) {}

  get maxBytes(): number {
    return this.opts.maxBytes;
  }

  /**
   * Sends one request and reads its answer within `timeoutMs`, directly or through
   * `proxy`. Throws DeadlinePassed, ProxyFailure, or undici's error.
   */
  async exchange(
    url: URL,
    req: ExchangeRequest,
    { proxy, timeoutMs: asked, stop }: { proxy?: URL | undefined; timeoutMs: number; stop?: AbortSignal | undefined },
  ): Promise<Exchange> {
    const timeoutMs = Math.min(Math.max(1, asked), MAX_TIMER_MS);
    const lane = this.lane(proxy);
    const abort = new AbortController();
    const reason = new DeadlinePassed(timeoutMs, 'answer');
    let settled = false;
    const work = this.run(lane, url, req, abort.signal).finally(() => (settled = true));
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    // Ended at the deadline, or by the caller's stop: the same letting go, each with its reason.
    const ended = new Promise<never>((_, reject) => {
      const letGo = (why: unknown, failure: () => unknown) => {
        abort.abort(why);
        // A request with a connection lets go at once (microtasks); setImmediate runs after them.
        setImmediate(() => {
          if (settled) return;
          reject(failure());
        });
      };
      timer = setTimeout(() => {
        letGo(reason, () => new DeadlinePassed(timeoutMs, lane.awaitingProxy > 0 ? 'proxy' : 'connect', lane.proxy));
      }, timeoutMs);
      if (!stop) return;
      onStop = () => letGo(stop.reason, () => stop.reason);
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    });
    try {
      return await Promise.race([work, ended]);
    } catch (err) {
      if (stop?.aborted) throw stop.reason;
      // undici rejects with the signal's reason: the request had its connection.
      const { name, code } = (err ?? {}) as { name?: string; code?: string };
      if (err === reason || (abort.signal.aborted && (name === 'AbortError' || code === 'UND_ERR_ABORTED'))) throw reason;
      // undici's own timeouts (set no shorter than this deadline) say the same, one way.
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw reason;
      if (code === 'UND_ERR_CONNECT_TIMEOUT') throw new DeadlinePassed(timeoutMs, 'connect');
      throw err;
    } finally {
      clearTimeout(timer);
      if (onStop) stop?.removeEventListener('abort', onStop);
      work.catch(() => undefined);
      ended.catch(() => undefined);
    }
  }

  private async run(lane: Lane, url: URL, req: ExchangeRequest, signal: AbortSignal): Promise<Exchange> {
    const res = await lane.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      signal,
    });
    const base = { status: res.statusCode, headers: res.headers };
    const cap = this.opts.maxBytes;
    if (Number(res.headers['content-length']) > cap) {
      res.body.destroy();
      return { ...base, body: Buffer.alloc(0), overCap: true };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      if (size + buf.length > cap) {
        chunks.push(buf.subarray(0, cap - size));
        // Leaving the loop destroys the body: nothing more is read.
        return { ...base, body: Buffer.concat(chunks, cap), overCap: true };
      }
      size += buf.length;
      chunks.push(buf);
    }
    return { ...base, body: Buffer.concat(chunks, size), overCap: false };
  }

  private lane(proxy: URL | undefined): Lane {
    const key = proxy?.href ?? 'direct';
    const known = this.lanes.get(key);
    if (known) return known;
    // Certificates are checked unless a caller says otherwise in so many words (the
    // forwarder's --insecure): stated here, so NODE_TLS_REJECT_UNAUTHORIZED=0 in the
    // environment, which changes only Node's default, cannot turn the check off unseen
    // (docs/configuration.md, "Certificates").
    const tls = { rejectUnauthorized: true, ...this.opts.tls };
    const timeoutMs = Math.min(this.opts.timeoutMs, MAX_TIMER_MS);
    const lane = { awaitingProxy: 0, ...(proxy ? { proxy: proxyHost(proxy) } : {}) } as Lane;
    const common = {
      keepAliveTimeout: this.opts.keepAliveTimeout ?? 10_000,
      connections: this.opts.connections ?? 16,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    };
    lane.dispatcher = proxy
      ? new ProxyAgent({
          uri: proxy.href,
          ...common,
          // The TCP connection to the proxy, and TLS to the server through the tunnel.
          proxyTls: { timeout: timeoutMs, rejectUnauthorized: true },
          requestTls: { timeout: timeoutMs, ...tls },
          clientFactory: (origin, opts) => new ProxyPool(lane, origin, { ...opts, headersTimeout: timeoutMs }),
          factory: (origin, opts) => {
            const o = opts as Pool.Options & { connect: buildConnector.connector };
            return new Pool(origin, { ...o, connect: filtered(o.connect) });
          },
        })
      : new Agent({ ...common, connect: filtered(buildConnector({ timeout: timeoutMs, ...tls })) });
    this.lanes.set(key, lane);
    return lane;
  }

  async close(): Promise<void> {
    const dispatchers = [...this.lanes.values()].map((l) => l.dispatcher);
    this.lanes.clear();
    // Exchanges still running fail at once; idle keep-alive connections close.
    await Promise.all(dispatchers.map((d) => d.destroy().catch(() => undefined)));
  }
}

/** Hands undici each connection behind an InterimFilter. */
function filtered(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) => {
    connect(options, (err, socket) => {
      if (err) callback(err, null);
      else callback(null, new InterimFilter(socket!) as unknown as Socket);
    });
  };
}

/** The proxy's side of a ProxyAgent: its CONNECT answers become ProxyFailures. */
class ProxyPool extends Pool {
  private readonly proxy: string;

  constructor(
    private readonly lane: Lane,
    origin: string | URL,
    opts: Pool.Options,
  ) {
    super(origin, opts);
    this.proxy = proxyHost(new URL(origin));
  }

  override connect(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(options: Dispatcher.ConnectOptions, callback: (err: Error | null, data: Dispatcher.ConnectData) => void): void;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback?: (err: Error | null, data: Dispatcher.ConnectData) => void,
  ): Promise<Dispatcher.ConnectData> | void {
    if (callback) return super.connect(options, callback);
    const target = options.path;
    this.lane.awaitingProxy++;
    return super.connect(options).then(
      (data) => {
        this.lane.awaitingProxy--;
        if (data.statusCode === 200) return data;
        data.socket.on('error', () => undefined).destroy();
        const kind = data.statusCode === 407 ? 'auth' : 'refused';
        throw new ProxyFailure(kind, this.proxy, `answered the CONNECT to ${target} with HTTP ${data.statusCode}`, data.statusCode);
      },
      (err: Error & { code?: string }) => {
        this.lane.awaitingProxy--;
        throw new ProxyFailure(failureOf(err), this.proxy, `${err.message} (CONNECT to ${target})`);
      },
    );
  }
}

/** What a proxy's error code says went wrong; any other code is 'other'. */
const PROXY_FAILURE_OF: Record<string, ProxyFailureKind> = {
  ECONNREFUSED: 'down',
  ENOTFOUND: 'unresolvable',
  EAI_AGAIN: 'unresolvable',
  UND_ERR_CONNECT_TIMEOUT: 'silent',
  UND_ERR_HEADERS_TIMEOUT: 'silent',
  ETIMEDOUT: 'silent',
  UND_ERR_SOCKET: 'closed',
  ECONNRESET: 'closed',
  EPIPE: 'closed',
};

function failureOf(err: { code?: string; cause?: unknown }): ProxyFailureKind {
  const code = err.code ?? (err.cause as { code?: string } | undefined)?.code;
  return (code !== undefined && PROXY_FAILURE_OF[code]) || 'other';
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;
/** An interim answer's status line: 1xx, but not 101 (Switching Protocols, never asked for here). */
const INTERIM_LINE = /^HTTP\/1\.[01] 1(?!01)\d\d[ \r]/;
/** The start of a status line, character by character: as many as it takes to tell. */
const STATUS_START: (string | RegExp)[] = ['H', 'T', 'T', 'P', '/', '1', '.', /[01]/, ' ', '1', /\d/, /\d/, /[ \r]/];
/** An interim answer's head longer than this is not one: passed on for undici to judge. */
const MAX_INTERIM_HEAD = 16 * 1024;

/** Whether `text`, shorter than a status line's start, could still become an interim one. */
function mayBeInterim(text: string): boolean {
  return [...text].every((c, i) => {
    const expected = STATUS_START[i]!;
    return typeof expected === 'string' ? c === expected : expected.test(c);
  });
}

/**
 * A connection as undici sees it, with the interim 1xx answers before an answer removed.
 * HTTP lets a server send any number of them before the final one; undici takes 102 and
 * 103 but fails a request on a `100 Continue` it did not ask for, wherever it comes among
 * them, so all are dropped (none means anything to the client). undici writes one request
 * per connection at a time, so an answer begins with the first bytes read after a request
 * line is written: there, and only there, interim answers are dropped.
 */
class InterimFilter extends Duplex {
  /** The next bytes read start an answer. */
  private atAnswer = false;
  private held: Buffer | undefined;
  private ended = false;

  constructor(private readonly inner: Duplex & { ref?(): unknown; unref?(): unknown }) {
    super({ allowHalfOpen: false });
    inner.on('data', (chunk: Buffer) => this.receive(chunk));
    inner.on('end', () => {
      this.ended = true;
      if (this.held) this.push(this.held);
      this.held = undefined;
      this.push(null);
    });
    inner.on('error', (err) => this.destroy(err));
    // After an end, undici reads what is left and closes this itself.
    inner.on('close', () => {
      if (!this.ended) this.destroy();
    });
  }

  private receive(chunk: Buffer): void {
    if (this.atAnswer) {
      let buf = this.held ? Buffer.concat([this.held, chunk]) : chunk;
      this.held = undefined;
      for (;;) {
        const start = buf.toString('latin1', 0, STATUS_START.length);
        if (buf.length < STATUS_START.length && mayBeInterim(start)) {
          this.held = buf; // too short to tell yet
          return;
        }
        if (!INTERIM_LINE.test(start)) break;
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buf.length >= MAX_INTERIM_HEAD) break;
          this.held = buf;
          return;
        }
        buf = buf.subarray(end + 4);
        if (buf.length === 0) return;
      }
      this.atAnswer = false;
      chunk = buf;
    }
    if (!this.push(chunk)) this.inner.pause();
  }

  override _read(): void {
    this.inner.resume();
  }

  private sawRequest(chunk: Buffer): void {
    if (REQUEST_LINE.test(chunk.toString('latin1', 0, 256))) this.atAnswer = true;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.sawRequest(chunk);
    this.inner.write(chunk, callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    // undici corks a request's head and body together: they leave as one write.
    this.inner.cork();
    chunks.forEach(({ chunk }, i) => {
      this.sawRequest(chunk);
      // Done when the last is: the connection's own backpressure holds.
      this.inner.write(chunk, i === chunks.length - 1 ? callback : undefined);
    });
    this.inner.uncork();
  }

  override _final(callback: (err?: Error | null) => void): void {
    if (!this.inner.destroyed) this.inner.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.inner.destroy(err ?? undefined);
    callback(err);
  }

  ref(): this {
    this.inner.ref?.();
    return this;
  }

  unref(): this {
    this.inner.unref?.();
    return this;
  }
}
