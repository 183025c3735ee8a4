// A second implementation of the partner API for tests: it keeps every rule of the spec
// but, wherever the spec says "not shown", chooses differently from our emulator
// (docs/emulator.md). A CLI that gives a wrong or partial answer with exit 0 against it
// relied on one of the emulator's choices rather than on the spec.
//
// It is a node:http proxy in front of a real emulator started in-process: the emulator
// keeps the business rules (state machine, idempotency, quotes, deadlines, the 90-day
// window, rate limits, faults), the proxy translates each open point:
//
// 1. List shape. GET /transactions, /webhooks/events and /revenue answer the items
//    themselves in `data`, with the cursor fields beside them (`shape`: 'beside' =
//    has_more, next_cursor, limit; 'meta' = meta {has_more, next_cursor, limit};
//    'pagination' = pagination {hasMore, nextCursor}). Revenue's `summary` sits beside
//    `data` too.
// 2. Cursors. The emulator's cursor is wrapped in standard base64 whose first bytes encode
//    to "++//" and whose length always ends in "==", so a client that does not
//    percent-encode it (a raw `+` reads as a space) sends a value that fails the strict
//    decode: 400 BAD_REQUEST "invalid cursor".
// 3. Filter names (VARIANT.filterNames). Only the variant's names are read; every other
//    query parameter, the emulator's names included, is dropped before forwarding. The
//    webhook `status` filter takes the variant's delivery vocabulary.
// 4. Default page sizes (VARIANT.defaultPageSize), sent to the emulator as an explicit limit.
// 5. Creating a quote or a transaction answers 200, not 201.
// 6. Date-times are whole seconds with a `+00:00` offset. Rows keep the emulator's order
//    (but see 11): with the fraction gone, rows of one second look tied, and re-sorting
//    would break the pages. Date filters pass through as sent, so the service still compares with the
//    milliseconds it does not show (a `to` at a row's shown second may exclude that row).
// 7. Open values: deposit_status, delivery_status and publish_status in the variant's
//    vocabulary; transaction snapshots carry `risk_score` and webhook events `endpoint`,
//    fields no client knows about.
// 8. Errors: 401 answers code AUTH_INVALID; Retry-After on 429 is an HTTP-date;
//    failNext(n, 'html502') makes the next n requests a gateway's HTML 502.
// 9. The request id header is x-correlation-id (no x-request-id).
// 10. Webhooks: the emulator delivers to a relay on a second loopback server, which re-signs
//     each body as `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` and forwards it
//     to `webhookUrl`, answering the emulator with the target's status so the delivery
//     telemetry stays truthful. The body gets the same time and deposit_status rewriting as
//     reads (built once per event id, so every redelivery carries the same bytes); no
//     X-SVC-Webhook-Id header, since the spec only promises the `id` in the body.
// 11. List order, which the spec does not show: webhook events oldest first, where the
//     emulator lists them newest first; transactions too with `reverseLists`. Those lists
//     are paged by the variant itself, with its own cursor.
// Where the variant itself refuses a request (a bad cursor or status value), it first asks
// the emulator about the key and the rate limit, so 401 and 429 still win over 400.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_PATH, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { holdToDocument } from './openapi.js';

export type VariantShape = 'beside' | 'meta' | 'pagination';

export type VariantOptions = {
  /** Where list answers put the cursor: 'beside' = {success, data:[items], has_more, next_cursor, limit} (default);
   *  'meta' = {success, data:[items], meta:{has_more,next_cursor,limit}}; 'pagination' = {success, data:[items], pagination:{hasMore, nextCursor}}  */
  shape?: VariantShape;
  /** Deliver signed webhooks here (the variant re-signs them with its own scheme). */
  webhookUrl?: string;
  /** Default 'whsec_variant'. */
  webhookSecret?: string;
  /** Default 'sk_test_variant'. */
  apiKey?: string;
  /** Passed to the emulator. */
  seedRevenue?: number;
  /** List transactions in the opposite order from the emulator's too (the spec leaves list
   *  order open; webhook events always are), paged by the variant itself. */
  reverseLists?: boolean;
  /** Anything else for the emulator underneath (clock, mode, rate, ...). Its webhook retry
   *  defaults to 3 attempts 5 ms apart, so failed deliveries settle quickly in tests; its
   *  host and webhookUrl are the variant's (loopback, and the relay). */
  emulator?: Partial<EmulatorOptions>;
};

export type VariantRequest = { method: string; path: string; query: URLSearchParams; rawQuery: string };

export type RunningVariant = {
  /** http://127.0.0.1:PORT/api/v1/partner */
  baseUrl: string;
  origin: string;
  apiKey: string;
  webhookSecret: string;
  /** The emulator underneath (tests may use emu.clock etc.). */
  emu: RunningEmulator;
  /** Every request the variant received: method, path (below origin), query as received. */
  requests: VariantRequest[];
  /** The next `n` requests get a gateway's HTML 502 instead of reaching the emulator. */
  failNext(n: number, kind: 'html502'): void;
  close(): Promise<void>;
};

/** The variant's choices, for tests to assert against. */
export const VARIANT = {
  filterNames: {
    transactions: { status: 'state', from: 'created_after', to: 'created_before' },
    webhooks: { transaction_id: 'aggregate_id', event_type: 'type', delivery_status: 'status', from: 'since', to: 'until' },
    revenue: { crypto_currency: 'token', network: 'chain' },
  },
  deliveryStatus: { pending: 'queued', delivered: 'succeeded', failed: 'errored' },
  publishStatus: 'queued',
  depositStatus: { detected: 'seen', confirmed: 'credited', refunded: 'returned' },
  requestIdHeader: 'x-correlation-id',
  defaultPageSize: { transactions: 25, webhooks: 10, revenue: 30 },
  signatureScheme: 'timestamped-sha256',
  unauthorizedCode: 'AUTH_INVALID',
} as const;

/** Fields the variant adds, which a client must pass through untouched. */
export const VARIANT_EXTRA_FIELDS = {
  transaction: { risk_score: '0.12' },
  webhookEvent: { endpoint: 'default' },
} as const;

export const VARIANT_DEFAULT_API_KEY = 'sk_test_variant';
export const VARIANT_DEFAULT_WEBHOOK_SECRET = 'whsec_variant';
export const VARIANT_SIGNATURE_HEADER = 'X-SVC-Webhook-Signature';
export const INVALID_CURSOR_MESSAGE = 'invalid cursor: pass next_cursor from the previous page unchanged, percent-encoded';

// Answers are reshaped freely; typing every shape would only hide the intent.
type Json = any;
type ListName = keyof typeof VARIANT.defaultPageSize;

const LIST_PATHS = new Map<string, ListName>([
  [`${BASE_PATH}/transactions`, 'transactions'],
  [`${BASE_PATH}/webhooks/events`, 'webhooks'],
  [`${BASE_PATH}/revenue`, 'revenue'],
]);

/** Emulator name → variant name, per list. */
const RENAMES: Record<ListName, Record<string, string>> = VARIANT.filterNames;
/** Spec names the variant keeps as they are. */
const KEPT: Record<ListName, readonly string[]> = { transactions: [], webhooks: [], revenue: ['from', 'to', 'include_summary'] };

const DELIVERY_TO_EMULATOR = new Map<string, string>(Object.entries(VARIANT.deliveryStatus).map(([emu, ours]) => [ours, emu]));
const DELIVERY_TO_VARIANT = new Map<string, string>(Object.entries(VARIANT.deliveryStatus));
const DEPOSIT_TO_VARIANT = new Map<string, string>(Object.entries(VARIANT.depositStatus));

/** The business time of the emulator in the variant's form; only these keys hold date-times. */
const TIME_KEY = /^(ts|from|to|timestamp)$|_at$/;
const EMULATOR_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/;

function variantTime(value: string): string {
  return value.replace(EMULATOR_TIME, '$1+00:00');
}

// Three bytes whose standard base64 is "++//": every cursor then carries `+` and `/`.
const CURSOR_MAGIC = Buffer.from([0xfb, 0xef, 0xff]);
const CURSOR_TAG: Record<ListName, string> = { transactions: 't', webhooks: 'w', revenue: 'r' };

export function wrapCursor(list: ListName, inner: string): string {
  const body = Buffer.concat([CURSOR_MAGIC, Buffer.from(CURSOR_TAG[list] + inner, 'latin1')]);
  // '.' never occurs in the emulator's base64url; 3n+1 bytes make the encoding end in "==".
  const fill = (4 - (body.length % 3)) % 3;
  return Buffer.concat([body, Buffer.from('.'.repeat(fill), 'latin1')]).toString('base64');
}

/** The emulator's cursor inside a variant cursor of this list; undefined for anything else. */
export function unwrapCursor(list: ListName, cursor: string): string | undefined {
  // Buffer's base64 decoder skips characters it does not know (a space from an unencoded
  // `+`), so strictness comes from re-encoding and comparing.
  if (!/^[A-Za-z0-9+/]+==$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64');
  if (!bytes.subarray(0, CURSOR_MAGIC.length).equals(CURSOR_MAGIC)) return undefined;
  const match = /^([a-z])([A-Za-z0-9_-]+)\.{0,2}$/.exec(bytes.subarray(CURSOR_MAGIC.length).toString('latin1'));
  if (!match || match[1] !== CURSOR_TAG[list]) return undefined;
  const inner = match[2]!;
  return wrapCursor(list, inner) === cursor ? inner : undefined;
}

/** The emulator's query for a list request, or the variant's reason to refuse it. */
function translateQuery(list: ListName, received: URLSearchParams): { forward: URLSearchParams; refusal?: string } {
  const forward = new URLSearchParams();
  const limit = received.get('limit');
  forward.set('limit', limit === null || limit === '' ? String(VARIANT.defaultPageSize[list]) : limit);
  for (const name of KEPT[list]) {
    const value = received.get(name);
    if (value !== null) forward.set(name, value);
  }
  for (const [emulatorName, ours] of Object.entries(RENAMES[list])) {
    const value = received.get(ours);
    if (value !== null) forward.set(emulatorName, value);
  }
  const status = list === 'webhooks' ? forward.get('delivery_status') : null;
  if (status) {
    const theirs = DELIVERY_TO_EMULATOR.get(status);
    if (theirs === undefined) {
      return { forward, refusal: `status must be one of ${[...DELIVERY_TO_EMULATOR.keys()].join(', ')}; got "${status.slice(0, 80)}"` };
    }
    forward.set('delivery_status', theirs);
  }
  const cursor = received.get('cursor');
  if (cursor !== null && cursor !== '') {
    const inner = unwrapCursor(list, cursor);
    if (inner === undefined) return { forward, refusal: INVALID_CURSOR_MESSAGE };
    forward.set('cursor', inner);
  }
  return { forward };
}

/** An emulator 400 about a list query, in the variant's parameter names. */
function renameInMessage(list: ListName, message: string): string {
  if (message.startsWith('cursor is not valid')) return INVALID_CURSOR_MESSAGE;
  const names = RENAMES[list];
  if (message === 'to must not be before from' && names.to && names.from) return `${names.to} must not be before ${names.from}`;
  const match = /^([a-z_]+)( [\s\S]*)$/.exec(message);
  if (!match || !Object.hasOwn(names, match[1]!)) return message;
  return names[match[1]!] + match[2]!;
}

function reshapeList(list: ListName, shape: VariantShape, body: Json): Json {
  const page = body.data;
  const nextCursor = page.next_cursor === null ? null : wrapCursor(list, page.next_cursor);
  const out: Json = { success: body.success, data: page.data };
  if (shape === 'beside') Object.assign(out, { has_more: page.has_more, next_cursor: nextCursor, limit: page.limit });
  else if (shape === 'meta') out.meta = { has_more: page.has_more, next_cursor: nextCursor, limit: page.limit };
  else out.pagination = { hasMore: page.has_more, nextCursor };
  if (page.summary !== undefined) out.summary = page.summary;
  if (body.message !== undefined) out.message = body.message;
  return out;
}

/** Times, open values and extra fields, wherever they occur in an answer or a webhook body. */
function rewriteValues(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteValues);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && TIME_KEY.test(key)) out[key] = variantTime(v);
    else if (key === 'deposit_status' && typeof v === 'string') out[key] = DEPOSIT_TO_VARIANT.get(v) ?? v;
    else if (key === 'delivery_status' && typeof v === 'string') out[key] = DELIVERY_TO_VARIANT.get(v) ?? v;
    else if (key === 'publish_status') out[key] = VARIANT.publishStatus;
    else out[key] = rewriteValues(v);
  }
  if ('deposit_address' in out && 'id' in out) Object.assign(out, VARIANT_EXTRA_FIELDS.transaction);
  if ('event_id' in out && 'delivery_status' in out) Object.assign(out, VARIANT_EXTRA_FIELDS.webhookEvent);
  return out;
}

type Upstream = { status: number; headers: IncomingHttpHeaders; body: Buffer };

const FORWARDED_HEADERS = ['x-api-key', 'idempotency-key', 'content-type', 'accept'];

function forward(agent: Agent, origin: string, method: string, path: string, incoming: IncomingHttpHeaders, body: Buffer): Promise<Upstream> {
  const headers: Record<string, string | number> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = incoming[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (body.length > 0) headers['content-length'] = body.length;
  return new Promise((resolve, reject) => {
    const req = request(origin + path, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body.length > 0 ? body : undefined);
  });
}

/** Retry-After as an HTTP-date, rounded up so a client never wakes before the seconds passed. */
function retryAfterDate(seconds: string): string {
  const wait = Number(seconds);
  if (!Number.isFinite(wait)) return seconds;
  return new Date(Math.ceil((Date.now() + wait * 1000) / 1000) * 1000).toUTCString();
}

type Answer = { status: number; headers: Record<string, string>; body: string };

function translateAnswer(up: Upstream, route: { method: string; path: string; list: ListName | undefined }, shape: VariantShape): Answer {
  const headers: Record<string, string> = {};
  const contentType = up.headers['content-type'];
  if (contentType) headers['content-type'] = contentType;
  const requestId = up.headers['x-request-id'];
  if (typeof requestId === 'string') headers[VARIANT.requestIdHeader] = requestId;
  const replayed = up.headers['idempotent-replayed'];
  if (typeof replayed === 'string') headers['idempotent-replayed'] = replayed;
  const retryAfter = up.headers['retry-after'];
  if (typeof retryAfter === 'string') headers['retry-after'] = retryAfterDate(retryAfter);
  if (up.headers.connection === 'close') headers.connection = 'close';

  let body: Json;
  try {
    body = JSON.parse(up.body.toString('utf8'));
  } catch {
    return { status: up.status, headers, body: up.body.toString('utf8') };
  }
  let status = up.status;
  if (body && typeof body.error === 'object' && body.error !== null) {
    if (body.error.code === 'UNAUTHORIZED') body.error.code = VARIANT.unauthorizedCode;
    if (route.list && status === 400 && typeof body.error.message === 'string') body.error.message = renameInMessage(route.list, body.error.message);
  } else if (body && body.success === true) {
    if (status === 201 && route.method === 'POST' && (route.path === `${BASE_PATH}/quotes` || route.path === `${BASE_PATH}/transactions`)) status = 200;
    if (route.list) body = reshapeList(route.list, shape, body);
  }
  return { status, headers, body: JSON.stringify(rewriteValues(body)) };
}

function send(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

function listenLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest('hex');
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function variantSignature(body: Buffer | string, secret: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.`, body)}`;
}

type Relay = { url: string; close(): Promise<void> };

/**
 * The emulator's webhook endpoint: checks the emulator's own signature (nothing else may
 * post here), rewrites and re-signs the body, and forwards it to `target`.
 */
async function startRelay(opts: { target: string | undefined; secret: string; emulatorSecret: () => string; timeoutMs: number }): Promise<Relay> {
  const bodies = new Map<string, Buffer>();
  const stop = new AbortController();
  const deliveredBody = (raw: Buffer): Buffer => {
    let parsed: Json;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return raw;
    }
    const id = typeof parsed?.id === 'string' ? parsed.id : undefined;
    const cached = id === undefined ? undefined : bodies.get(id);
    if (cached) return cached;
    const body = Buffer.from(JSON.stringify(rewriteValues(parsed)), 'utf8');
    if (id !== undefined) bodies.set(id, body);
    return body;
  };
  const reply = (res: ServerResponse, status: number, text: string) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  };
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readAll(req);
      const given = String(req.headers['x-svc-webhook-signature'] ?? '');
      const expected = hmacHex(opts.emulatorSecret(), raw);
      if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
        return reply(res, 401, 'relay: not signed by the emulator');
      }
      if (opts.target === undefined) return reply(res, 503, 'the variant has no webhookUrl to deliver to');
      const body = deliveredBody(raw);
      try {
        const answer = await fetch(opts.target, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'offramp-variant',
            [VARIANT_SIGNATURE_HEADER]: variantSignature(body, opts.secret, Math.floor(Date.now() / 1000)),
          },
          body,
          signal: AbortSignal.any([stop.signal, AbortSignal.timeout(opts.timeoutMs)]),
        });
        const text = (await answer.text().catch(() => '')).slice(0, 200);
        reply(res, answer.status, text);
      } catch (err) {
        const e = err as { message?: string; cause?: { code?: string } };
        // A target that cannot be reached is a failed delivery, as the emulator would record it.
        reply(res, 500, `delivery failed: ${e.cause?.code ?? e.message ?? String(err)}`);
      }
    })().catch(() => reply(res, 500, 'relay failed'));
  });
  const port = await listenLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/relay`,
    close: async () => {
      stop.abort();
      await closeServer(server);
    },
  };
}

export async function startVariant(opts: VariantOptions = {}): Promise<RunningVariant> {
  const shape = opts.shape ?? 'beside';
  const apiKey = opts.apiKey ?? VARIANT_DEFAULT_API_KEY;
  const webhookSecret = opts.webhookSecret ?? VARIANT_DEFAULT_WEBHOOK_SECRET;
  const extra = opts.emulator ?? {};
  const retry = { maxAttempts: 3, baseDelayMs: 5, ...extra.webhookRetry };
  let emu: RunningEmulator | undefined;
  const relay = await startRelay({
    target: opts.webhookUrl,
    secret: webhookSecret,
    emulatorSecret: () => emu?.webhookSecret ?? '',
    timeoutMs: retry.timeoutMs ?? 5000,
  });
  try {
    emu = await startEmulator({
      port: 0,
      // The emulator underneath answers as the emulator: held to the document as well.
      onAnswer: holdToDocument,
      ...extra,
      host: '127.0.0.1',
      apiKeys: [apiKey, ...(extra.apiKeys ?? []).filter((k) => k !== apiKey)],
      webhookUrl: relay.url,
      webhookRetry: retry,
      ...(opts.seedRevenue !== undefined ? { seedRevenue: opts.seedRevenue } : {}),
    });
  } catch (err) {
    await relay.close();
    throw err;
  }
  const underneath = emu;

  const agent = new Agent({ keepAlive: true });
  const requests: VariantRequest[] = [];
  let html502Left = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readAll(req);
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1);
    const query = new URLSearchParams(rawQuery);
    requests.push({ method, path, query, rawQuery });
    if (html502Left > 0) {
      html502Left--;
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
      return;
    }
    const list = method === 'GET' ? LIST_PATHS.get(path) : undefined;
    const route = { method, path, list };
    if (!list) {
      // Other routes read no query, so none is forwarded.
      send(res, translateAnswer(await forward(agent, underneath.origin, method, path, req.headers, body), route, shape));
      return;
    }
    const { forward: emulatorQuery, refusal } = translateQuery(list, query);
    if (refusal === undefined && (list === 'webhooks' || (opts.reverseLists && list === 'transactions'))) {
      send(res, translateAnswer(await reversedPage(emulatorQuery, path, req.headers), route, shape));
      return;
    }
    if (refusal === undefined) {
      const up = await forward(agent, underneath.origin, method, `${path}?${emulatorQuery}`, req.headers, body);
      send(res, translateAnswer(up, route, shape));
      return;
    }
    // Key and rate limit come before validation, as in the emulator: a cheap read settles them.
    const probe = await forward(agent, underneath.origin, 'GET', `${BASE_PATH}/transactions?limit=1`, req.headers, Buffer.alloc(0));
    if (probe.status < 200 || probe.status >= 300) {
      send(res, translateAnswer(probe, { method: 'GET', path: `${BASE_PATH}/transactions`, list: undefined }, shape));
      return;
    }
    const timestamp = variantTime(new Date(underneath.clock.now()).toISOString());
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const requestId = probe.headers['x-request-id'];
    if (typeof requestId === 'string') headers[VARIANT.requestIdHeader] = requestId;
    send(res, { status: 400, headers, body: JSON.stringify({ error: { code: 'BAD_REQUEST', message: refusal, timestamp } }) });
  };

  /**
   * One page of the list in reverse: every record read from the emulator (filters as
   * forwarded), reversed, and cut at the variant's own offset cursor ("o<offset>").
   */
  const reversedPage = async (query: URLSearchParams, path: string, headers: IncomingHttpHeaders): Promise<Upstream> => {
    const limit = Number(query.get('limit'));
    const offset = Number(/^o(\d+)$/.exec(query.get('cursor') ?? '')?.[1] ?? 0);
    const all: Json[] = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams(query);
      q.set('limit', '100');
      if (cursor === null) q.delete('cursor');
      else q.set('cursor', cursor);
      const up = await forward(agent, underneath.origin, 'GET', `${path}?${q}`, headers, Buffer.alloc(0));
      if (up.status !== 200) return up;
      const page = JSON.parse(up.body.toString('utf8')).data;
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    all.reverse();
    const end = offset + limit;
    const data = { data: all.slice(offset, end), has_more: end < all.length, limit, next_cursor: end < all.length ? `o${end}` : null };
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ success: true, data })) };
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // The emulator dropped the connection (an injected fault) or went away: so does the variant.
      res.destroy();
    });
  });
  let port: number;
  try {
    port = await listenLoopback(server);
  } catch (err) {
    await underneath.close();
    await relay.close();
    throw err;
  }
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: origin + BASE_PATH,
    origin,
    apiKey,
    webhookSecret,
    emu: underneath,
    requests,
    failNext(n, kind) {
      if (kind !== 'html502') throw new RangeError(`unknown failure kind ${String(kind)}`);
      html502Left += n;
    },
    close() {
      closing ??= (async () => {
        await closeServer(server);
        await underneath.close();
        await relay.close();
        agent.destroy();
      })();
      return closing;
    },
  };
}
