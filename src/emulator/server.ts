// HTTP: the Hono app that serves ROUTES under the base path, and the node server it runs
// on. Hono (with @hono/node-server) was chosen for the project: no dependencies, small
// enough to load fast in the demo, fast on loopback. Answers are written straight to the
// node response (RESPONSE_ALREADY_SENT) rather than through a web Response: that is both
// the fastest path and what lets a fault drop the connection after the handler committed.
// The order of checks is in docs/emulator.md ("Wire"); unknown paths answer 404 before the
// key is looked at, so a typo in a path is reported as such. The control plane (control.ts)
// has none of the API's checks, faults or latency: it must keep working while a test makes
// the API misbehave. Before any of it, `guard` refuses what is not addressed to the emulator.
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { isLoopbackHost, parseHost } from '../lib/client/url.js';
import { ALLOWED_HOSTS_ENV } from '../lib/emulator-defaults.js';
import { iso } from './clock.js';
import type { ControlSettings } from './control.js';
import { authorize, bodyLimitFor, CONTROL_PATH, controlRequest } from './control.js';
import type { ApiResult } from './envelope.js';
import { codeForStatus } from '../lib/errors.js';
import { headerValue } from '../lib/client/transport.js';
import { ApiProblem, BODY_LIMIT_BYTES, errorResult } from './envelope.js';
import type { Fault, FaultInjector } from './faults.js';
import type { RateLimiter } from './rate-limit.js';
import type { ApiRequest, Route } from './routes.js';
import { ROUTES } from './routes.js';
import { BASE_PATH } from '../lib/vocabulary.js';
import type { Runtime } from './runtime.js';
import type { Answered, EmulatorOptions } from './types.js';

export type HttpOptions = {
  rt: Runtime;
  /** Hostnames (as parseHost gives them) answered at any port. */
  allowedHosts: ReadonlySet<string>;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
  control: ControlSettings;
} & Required<Pick<EmulatorOptions, 'host' | 'port' | 'latencyMs'>> & Pick<EmulatorOptions, 'log' | 'onAnswer'>;

type Env = { Bindings: HttpBindings };

export async function listen(opts: HttpOptions): Promise<{ port: number; close(): Promise<void> }> {
  const app = new Hono<Env>();
  // Verdicts by Host as sent: parsing one costs a share of a request's time (a few kept: any more are parsed again).
  const hosts = new Map<string, boolean>();
  app.use((c, next) => guard(opts, hosts, c, next));
  for (const route of ROUTES) {
    app.on(route.method, BASE_PATH + route.path, (c) => serve(opts, route, c));
  }
  app.all(CONTROL_PATH, (c) => serveControl(opts, c));
  app.all(`${CONTROL_PATH}/*`, (c) => serveControl(opts, c));
  app.notFound(async (c) => {
    const started = performance.now();
    if (opts.latencyMs > 0) await sleep(opts.latencyMs);
    tell(opts, c, undefined, send(opts, c, started, toErrorResult(opts, new ApiProblem('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`), c), false));
    return RESPONSE_ALREADY_SENT;
  });
  // Handlers catch their own errors; this only guards the router itself, still in the envelope.
  app.onError((err, c) => {
    tell(opts, c, undefined, send(opts, c, performance.now(), toErrorResult(opts, err, c), true));
    return RESPONSE_ALREADY_SENT;
  });
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const http = server as Server;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
        // Answers in flight (an injected latency) get a moment to finish, then everything goes.
        setTimeout(() => http.closeAllConnections(), 1000).unref();
      }),
  };
}


async function serve(opts: HttpOptions, route: Route, c: Context<Env>): Promise<Response> {
  const started = performance.now();
  const { incoming } = c.env;
  const { rt } = opts;
  let fault: Fault = 'none';
  let extraLatencyMs = 0;
  let result: ApiResult;
  let closeAfter = false;
  try {
    const rawBody = route.method === 'POST' ? (await readBody(incoming, BODY_LIMIT_BYTES)).toString('utf8') : '';
    const apiKey = headerValue(incoming.headers['x-api-key']);
    if (apiKey === undefined || apiKey === '') throw new ApiProblem('UNAUTHORIZED', 'missing X-API-KEY header');
    const partner = rt.partners.partner(apiKey);
    if (!partner) throw new ApiProblem('UNAUTHORIZED', 'invalid API key');
    const wait = opts.rateLimiter.take(apiKey);
    if (wait > 0) {
      throw new ApiProblem(
        'RATE_LIMITED',
        `rate limit exceeded: at most ${opts.rateLimiter.perSecond} requests per second per key; retry after ${wait} s`,
        { 'Retry-After': String(wait) },
      );
    }
    // Expiries found on the way are changes too, journaled before the answer even to a read.
    const swept = route.method !== 'GET' || rt.journal.accepting() ? rt.sweep() : 0;
    const rule = rt.faultRules.takeRoute(route.method, c.req.path.slice(BASE_PATH.length));
    if (rule?.status !== undefined) {
      throw new ApiProblem(
        codeForStatus(rule.status),
        `injected fault ${rule.id}: ${rule.route} answers ${rule.status} (fault add)`,
        rule.status === 429 ? { 'Retry-After': '1' } : undefined,
        rule.status,
      );
    }
    if (rule?.dropAfterCommit) fault = 'drop';
    else if (rule?.latencyMs !== undefined) extraLatencyMs = rule.latencyMs;
    else fault = opts.faults.next(route.method === 'POST');
    if (fault === 'internal_error') throw new ApiProblem('INTERNAL_ERROR', 'injected fault: internal error (--fault-rate)');
    if (fault === 'unavailable') throw new ApiProblem('SERVICE_UNAVAILABLE', 'injected fault: service unavailable (--fault-rate)');
    const request: ApiRequest = {
      partner,
      param: (name) => c.req.param(name) ?? '',
      query: { get: (name) => c.req.query(name) },
      header: (name) => headerValue(incoming.headers[name]),
      rawBody,
    };
    // A change is journaled before it is answered (journal.ts); while it cannot be, none is made.
    if (route.method !== 'GET') rt.journal.admit();
    result = route.handle(rt, request);
    if (route.method !== 'GET' || swept > 0) await rt.journal.committed();
  } catch (err) {
    if (err instanceof BodyTooLarge) closeAfter = true;
    result = toErrorResult(opts, err, c);
  }
  if (opts.latencyMs + extraLatencyMs > 0) await sleep(opts.latencyMs + extraLatencyMs);
  if (fault === 'drop') {
    // The handler ran and committed; the client gets no answer at all.
    incoming.socket.destroy();
    logLine(opts, c, 'dropped', started, newRequestId());
    return RESPONSE_ALREADY_SENT;
  }
  tell(opts, c, `${route.method} ${route.path}`, send(opts, c, started, result, closeAfter));
  return RESPONSE_ALREADY_SENT;
}

/**
 * Who may ask, on every route (docs/emulator.md, "Who it answers"): without it a page in a
 * browser here can POST unread (no-cors), and a name made to resolve to 127.0.0.1 reads all
 * (DNS rebinding). Host and Origin are what a page cannot set; neither is echoed.
 */
async function guard(opts: HttpOptions, hosts: Map<string, boolean>, c: Context<Env>, next: () => Promise<void>): Promise<Response | void> {
  const { incoming } = c.env;
  const sent = incoming.headers.host ?? '';
  const port = incoming.socket.localPort;
  let ours = hosts.get(sent);
  if (ours === undefined) {
    const host = parseHost(sent);
    ours = host !== undefined && (opts.allowedHosts.has(host.hostname) || (isLoopbackHost(host.hostname) && Number(host.port || 80) === port));
    if (hosts.size < 16) hosts.set(sent, ours);
  }
  let problem: ApiProblem | undefined;
  if (!ours) {
    problem = new ApiProblem('FORBIDDEN', `the emulator answers requests addressed to 127.0.0.1:${port}, [::1]:${port} or localhost:${port}, or to a name it was started with --allow-host (or ${ALLOWED_HOSTS_ENV})`);
  } else if (incoming.headers.origin !== undefined) {
    const host = parseHost(sent)!;
    if (incoming.headers.origin !== new URL(`http://${host.hostname}:${host.port || 80}`).origin) {
      problem = new ApiProblem('FORBIDDEN', 'the emulator answers no web page (the request has an Origin header): it is for backends, test suites and the CLI');
    }
  }
  if (!problem) return next();
  send(opts, c, performance.now(), toErrorResult(opts, problem, c), true);
  return RESPONSE_ALREADY_SENT;
}

/** Hands an answer of the API to `onAnswer` (types.ts); a throwing observer is logged, the answer already went. */
function tell(opts: HttpOptions, c: Context<Env>, route: string | undefined, sent: Omit<Answered, 'method' | 'route' | 'path'>): void {
  if (!opts.onAnswer) return;
  try {
    opts.onAnswer({ method: c.req.method, route, path: c.req.path, ...sent });
  } catch (err) {
    opts.log?.(`onAnswer threw: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One control-plane request (control.ts): no key, no rate limit, no faults, no latency. */
async function serveControl(opts: HttpOptions, c: Context<Env>): Promise<Response> {
  const started = performance.now();
  const { incoming } = c.env;
  const path = c.req.path.slice(CONTROL_PATH.length);
  let result: ApiResult;
  let closeAfter = false;
  try {
    const req = { authorization: headerValue(incoming.headers.authorization), remoteAddress: incoming.socket.remoteAddress };
    // Who asks is checked before the body is read: a refused client sends nothing big.
    authorize(opts.control, req);
    const body = c.req.method === 'GET' ? Buffer.alloc(0) : await readBody(incoming, bodyLimitFor(c.req.method, path));
    result = await controlRequest(opts.rt, opts.control, { ...req, method: c.req.method, path, body });
  } catch (err) {
    if (err instanceof BodyTooLarge || (err instanceof ApiProblem && (err.status === 401 || err.status === 403))) closeAfter = true;
    result = toErrorResult(opts, err, c);
  }
  send(opts, c, started, result, closeAfter);
  return RESPONSE_ALREADY_SENT;
}

function toErrorResult(opts: HttpOptions, err: unknown, c: Context<Env>): ApiResult {
  const now = iso(opts.rt.clock.now());
  if (err instanceof ApiProblem) return errorResult(err, now);
  opts.log?.(`internal error on ${c.req.method} ${c.req.path}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  return errorResult(new ApiProblem('INTERNAL_ERROR', 'internal error'), now);
}

/** Writes the answer and its log line; answers what was sent. */
function send(opts: HttpOptions, c: Context<Env>, started: number, result: ApiResult, close: boolean): Omit<Answered, 'method' | 'route' | 'path'> {
  const requestId = newRequestId();
  const body = result.json ?? JSON.stringify(result.body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...result.headers,
  };
  if (close) headers.connection = 'close';
  c.env.outgoing.writeHead(result.status, headers);
  c.env.outgoing.end(body);
  logLine(opts, c, String(result.status), started, requestId);
  return { status: result.status, headers, body };
}

function logLine(opts: HttpOptions, c: Context<Env>, status: string, started: number, requestId: string): void {
  if (!opts.log) return;
  const ms = (performance.now() - started).toFixed(1);
  // Path only: no query string, no headers, so neither the key nor any secret can appear.
  // Control characters (from an encoded reference in the path) are escaped so one request stays one line.
  const path = c.req.path.replace(/[\x00-\x1f\x7f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
  opts.log(`${c.req.method} ${path} ${status} ${ms}ms ${requestId}`);
}

// Request ids: a random per-server prefix and a counter. Unique within a run and across
// restarts (the prefix), and cheaper than a UUID per request.
let requestIdPrefix: string | undefined;
let requestCounter = 0;

function newRequestId(): string {
  requestIdPrefix ??= randomBytes(6).toString('hex');
  requestCounter = (requestCounter + 1) % 0x1_0000_0000;
  return `req_${requestIdPrefix}${requestCounter.toString(16).padStart(8, '0')}`;
}

class BodyTooLarge extends ApiProblem {
  constructor(limit: number) {
    super('BAD_REQUEST', `request body is too large (at most ${limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${limit / 1024} KiB`})`);
  }
}

/** Reads the whole body, refusing more than `limit` bytes (bytes: a state document is checked as sent, and may be larger than a string can be). */
function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(incoming.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new BodyTooLarge(limit));
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        incoming.off('data', onData);
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    incoming.once('error', reject);
    // A client that goes away mid-body must not leave this promise pending forever.
    incoming.once('close', () => {
      if (!incoming.complete) reject(new ApiProblem('BAD_REQUEST', 'request body was cut off'));
    });
  });
}
