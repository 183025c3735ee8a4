// The webhook receiver behind `webhooks listen` and `demo`: a loopback HTTP server that
// follows the spec's consumer order (Events, rule 4). docs/webhooks.md ("Receiving locally")
// is the reference for each step's answer, the store, the forwarding and the tally.
//
// Any signature scheme verifies by default: the spec does not say how the service signs. A
// store that fails answers 503 so the service retries, and the id is not remembered. A bad
// signature is shown whatever `eventTypes` says: it is how a wrong secret shows itself.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, sign, verify, WEBHOOK_HEADERS, type SchemeName } from './signature.js';
import { headerValue } from '../client/transport.js';
import { ForwardLog } from './forward-log.js';
import { Forwarder, forwardedHeaders, type ForwarderOptions, type ForwardItem, type ForwardResult } from './forwarder.js';
import { StatusTracker, eventFacts, type EventFacts } from './status-tracker.js';
import { EventStore, formatStoredLine, parseEventText, type StoredEvent, type StoreLoadTally, type StoreOptions } from './store.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** What became of one delivery at the listener. */
export type Reception = 'accepted' | 'duplicate' | 'rejected' | 'invalid' | 'too_large' | 'store_failed';

export type DeliveryInfo = {
  receivedAt: Date;
  /** What the receiver did; `rejected` = bad signature (401), `invalid` = signed but not an event (400). */
  reception: Reception;
  httpStatus: number;
  verified: boolean;
  duplicate: boolean;
  outOfOrder: boolean;
  /** Event id and type (for an unverified delivery: as the body claims, unchecked). */
  id: string | undefined;
  type: string | undefined;
  transactionId: string | undefined;
  /** The transaction's latest status after this delivery (forward-only). */
  status: string | undefined;
  /** The status this event reports (differs from `status` when out of order). */
  eventStatus: string | undefined;
  scheme?: SchemeName;
  /** Why it was refused or not stored. */
  error?: string;
};

/**
 * The tally, counted in this order: what `webhooks listen` prints at exit and GET /healthz answers, each count as
 * docs/webhooks.md ("The tally, `/healthz` and the exit code") says; `filtered` are verified
 * events of types outside `eventTypes` (stored, not shown, not forwarded).
 */
const COUNTS = ['received', 'stored', 'duplicates', 'rejected', 'forwarded', 'owed', 'badSignature', 'notEvent', 'tooLarge', 'storeFailures', 'outOfOrder', 'filtered', 'forwardFailures', 'transactions'] as const;
export type ReceiverStats = Record<(typeof COUNTS)[number], number>;

export type ForwardOptions = Omit<ForwarderOptions, 'onResult' | 'onTaken'>;

export type ReceiverOptions = {
  port?: number;
  host?: string;
  secret: string;
  /** Accept only this scheme of the catalogue; default: any that verifies. */
  scheme?: SchemeName;
  /** Timestamped signatures: largest difference from now, in seconds (default 300). */
  toleranceSec?: number;
  storePath?: string;
  storeOptions?: StoreOptions;
  forward?: ForwardOptions;
  /** Which event types are shown and forwarded; default all. */
  eventTypes?: (type: string | undefined) => boolean;
  onEvent?: (info: DeliveryInfo) => void;
  onForward?: (result: ForwardResult) => void;
  now?: () => Date;
};

export type Receiver = {
  url: string;
  port: number;
  readonly stats: ReceiverStats;
  loaded: StoreLoadTally | undefined;
  /** Events owed to the app since an earlier run: `queued` are forwarded now, `heldBack` are not (no forwarding, or another type than `eventTypes`). */
  backlog: { queued: number; heldBack: number };
  /** The forward log's path, when forwarding with a store. */
  forwardLogPath: string | undefined;
  /** Every transaction with its latest status, in first-seen order. */
  statuses(): [transactionId: string, status: string][];
  close(): Promise<void>;
};

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? (() => new Date());
  const shown = options.eventTypes ?? (() => true);
  const tracker = new StatusTracker();
  const seen = new Set<string>();
  /** Ids whose first copy is being written: a second copy waits for that write. */
  const writing = new Map<string, Promise<void>>();
  /** Ids owed to the app and queued in the forwarder: a duplicate of one is not relayed again. */
  const owedIds = new Set<string>();
  // `owed` and `transactions` are read from the forwarder and the tracker when asked.
  const tally = Object.fromEntries(COUNTS.map((count) => [count, 0])) as ReceiverStats;
  const forwarding = options.forward !== undefined;

  // Owed events of earlier runs, in store order, until the forward log says which were taken.
  const owedFromStore: StoredEvent[] = [];
  let store: EventStore | undefined;
  let loaded: StoreLoadTally | undefined;
  let log: ForwardLog | undefined;
  const backlog = { queued: 0, heldBack: 0 };
  try {
    if (options.storePath) {
      ({ store, tally: loaded } = await EventStore.open(
        options.storePath,
        (event) => {
          seen.add(event.id);
          const facts = eventFacts(event.type, event.data);
          tracker.apply(facts.transactionId, facts.status);
          if (event.forward) owedFromStore.push(event);
        },
        options.storeOptions,
      ));
      // Not forwarding: the log is only read (if there is one), to say what is owed.
      log = await ForwardLog.open(options.storePath, { create: forwarding });
    }
  } catch (err) {
    await store?.close().catch(() => undefined);
    throw err;
  }
  const owedNow = owedFromStore.filter((e) => !log?.taken.has(e.id));
  owedFromStore.length = 0;
  if (!forwarding) {
    backlog.heldBack = owedNow.length;
    await log?.close();
    log = undefined;
  }

  const forwarder = options.forward
    ? new Forwarder({
        ...options.forward,
        onResult: (result) => {
          if (result.ok) tally.forwarded++;
          else tally.forwardFailures++;
          options.onForward?.(result);
        },
        onTaken: (item, status) => {
          owedIds.delete(item.id);
          log?.record({ id: item.id, status, at: now(), to: options.forward!.url });
        },
      })
    : undefined;

  /** Fresh signatures for a late forward of a timestamped delivery: an old `t` would be refused as a replay. */
  const resignerFor = (scheme: string | undefined, body: Buffer): (() => string) | undefined =>
    scheme === 'timestamped-sha256' ? () => sign(body, options.secret, scheme, now()) : undefined;

  const forwardOwed = (item: Omit<ForwardItem, 'owed'>) => {
    owedIds.add(item.id);
    forwarder!.send({ ...item, owed: true });
  };

  if (forwarder) {
    for (const e of owedNow) {
      if (!shown(e.type)) {
        backlog.heldBack++;
        continue;
      }
      backlog.queued++;
      const resign = resignerFor(e.scheme, e.body);
      forwardOwed({
        id: e.id,
        type: e.type,
        body: e.body,
        headers: { 'content-type': 'application/json', [WEBHOOK_HEADERS.id]: e.id, ...(e.signature ? { [SIGNATURE_HEADER]: e.signature } : {}) },
        ...(resign ? { resign, late: true } : {}),
      });
    }
  }

  // Deliveries being handled; close() waits until none is left.
  let inFlight = 0;
  let idle: (() => void) | undefined;

  const stats = (): ReceiverStats => ({ ...tally, owed: forwarder?.owed ?? 0, transactions: tracker.size });

  // A delivery is handled synchronously up to its store write: no async function and no
  // await per request, because their promises cost a measurable share of the listener's
  // throughput (BENCHMARKS.md, "Webhook listener"). `deliver` answers at once, or returns
  // the promise of its answer when it waits for the disk (its own line, or a first copy's).

  /** A verified event on its way through dedupe and the store. */
  type Verified = {
    res: ServerResponse;
    raw: Buffer;
    headers: IncomingMessage['headers'];
    receivedAt: Date;
    scheme: SchemeName;
    signature: string;
    id: string;
    type: string;
    facts: EventFacts;
    show: boolean;
  };

  const info = (v: Verified, reception: Reception, httpStatus: number, status: string | undefined, extra?: { outOfOrder?: boolean; error?: string }): DeliveryInfo => ({
    receivedAt: v.receivedAt, reception, httpStatus, verified: true, duplicate: reception === 'duplicate', outOfOrder: extra?.outOfOrder ?? false,
    id: v.id, type: v.type, transactionId: v.facts.transactionId, status, eventStatus: v.facts.status, scheme: v.scheme,
    ...(extra?.error !== undefined ? { error: extra.error } : {}),
  });

  /** A delivery refused (413, 401 or 400): answered and shown; nothing stored. */
  const refuse = (
    res: ServerResponse, receivedAt: Date, httpStatus: number, code: string, error: string,
    claimed?: { id?: string; type?: string }, scheme?: SchemeName,
  ): undefined => {
    tally.rejected++;
    // Over the cap the rest of the body is never read: the connection goes with the answer.
    reply(res, httpStatus, { error: { code, message: error } }, httpStatus === 413 ? { connection: 'close' } : {});
    const reception: Reception = httpStatus === 413 ? 'too_large' : httpStatus === 401 ? 'rejected' : 'invalid';
    emit({
      receivedAt, reception, httpStatus, verified: scheme !== undefined, duplicate: false, outOfOrder: false, id: claimed?.id, type: claimed?.type,
      transactionId: undefined, status: undefined, eventStatus: undefined, ...(scheme !== undefined ? { scheme } : {}), error,
    });
  };

  const deliver = (req: IncomingMessage, res: ServerResponse, raw: Buffer | undefined, receivedAt: Date): Promise<void> | undefined => {
    if (raw === undefined) {
      tally.tooLarge++;
      return refuse(res, receivedAt, 413, 'TOO_LARGE', `body over ${MAX_BODY_BYTES} bytes`);
    }
    const signature = headerValue(req.headers[SIGNATURE_HEADER]);
    const checked = verify(raw, options.secret, signature, { scheme: options.scheme, toleranceSec: options.toleranceSec, now: receivedAt });
    if (!checked.ok) {
      tally.badSignature++;
      return refuse(res, receivedAt, 401, 'BAD_SIGNATURE', signature?.trim() ? checked.reason : `no ${SIGNATURE_HEADER} header`, parseEvent(raw));
    }
    const event = parseEvent(raw);
    if (!event) {
      tally.notEvent++;
      return refuse(res, receivedAt, 400, 'NOT_AN_EVENT', 'signed body is not a webhook event ({ id, type, data })', undefined, checked.scheme);
    }
    return admit({
      res, raw, headers: req.headers, receivedAt, scheme: checked.scheme, signature: signature!, id: event.id, type: event.type,
      facts: eventFacts(event.type, event.data), show: shown(event.type),
    });
  };

  /**
   * Dedupe, then store. A copy that arrives while its first copy is being written waits
   * for that write and is then looked at again: a duplicate if it was stored; if storing
   * failed, the first of the waiting copies to run stores it (the others wait on that one).
   */
  const admit = (v: Verified): Promise<void> | undefined => {
    const pending = writing.get(v.id);
    if (pending) return pending.then(() => admit(v));
    if (seen.has(v.id)) return duplicate(v);
    seen.add(v.id);
    if (!store) return accept(v);
    const line = formatStoredLine({ body: v.raw, receivedAt: v.receivedAt, scheme: v.scheme, signature: v.signature, id: v.id, type: v.type, forward: forwarding && v.show });
    const stored = store.append(line).then(
      () => {
        writing.delete(v.id);
        accept(v);
      },
      (err: Error) => {
        writing.delete(v.id);
        seen.delete(v.id);
        tally.storeFailures++;
        reply(v.res, 503, { error: { code: 'STORE_FAILED', message: 'the listener could not store the event; retry later' } }, { 'retry-after': '1' });
        emit(info(v, 'store_failed', 503, undefined, { error: `not stored: ${err.message}` }));
      },
    );
    writing.set(v.id, stored);
    return stored;
  };

  const duplicate = (v: Verified): undefined => {
    tally.duplicates++;
    replyText(v.res, 200, DUPLICATE_BODY);
    if (!v.show) {
      tally.filtered++;
      return;
    }
    emit(info(v, 'duplicate', 200, v.facts.transactionId ? tracker.get(v.facts.transactionId) : undefined));
    // An event still owed is on its way already; any other copy is relayed once.
    if (forwarder && !owedIds.has(v.id)) forwarder.send({ id: v.id, type: v.type, body: v.raw, headers: forwardedHeaders(v.headers), owed: false });
  };

  const accept = (v: Verified): undefined => {
    tally.stored++;
    const applied = tracker.apply(v.facts.transactionId, v.facts.status);
    if (applied.outOfOrder) tally.outOfOrder++;
    replyText(v.res, 200, ACCEPTED_BODY);
    if (!v.show) {
      tally.filtered++;
      return;
    }
    emit(info(v, 'accepted', 200, applied.status, { outOfOrder: applied.outOfOrder }));
    if (forwarder) {
      const resign = resignerFor(v.scheme, v.raw);
      forwardOwed({ id: v.id, type: v.type, body: v.raw, headers: forwardedHeaders(v.headers), ...(resign ? { resign } : {}) });
    }
  };

  /** GET /healthz, or 405 for any other request that is not a POST. */
  const other = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    await once(req.resume(), 'end');
    const path = req.url ?? '/';
    if (req.method === 'GET' && (path === '/healthz' || path.startsWith('/healthz?'))) return reply(res, 200, stats());
    reply(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'POST webhook deliveries here (GET /healthz for the tally)' } }, { allow: 'POST' });
  };

  const emit = (info: DeliveryInfo) => {
    try {
      options.onEvent?.(info);
    } catch {
      // A display callback must never take the receiver down.
    }
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    let finished = false;
    // Once per request, even if the request stream errs after its end.
    const done = (err?: unknown): void => {
      if (finished) return;
      finished = true;
      if (err !== undefined && !res.headersSent) reply(res, 500, { error: { code: 'INTERNAL', message: (err as Error).message } });
      if (--inFlight === 0) idle?.();
    };
    const fail = (err: unknown) => done(err ?? new Error('unknown error'));
    const receivedAt = now();
    if (req.method !== 'POST') {
      other(req, res).then(() => done(), fail);
      return;
    }
    tally.received++;
    readBody(
      req,
      (raw) => {
        let answer: Promise<void> | undefined;
        try {
          answer = deliver(req, res, raw, receivedAt);
        } catch (err) {
          return fail(err);
        }
        if (answer) answer.then(() => done(), fail);
        else done();
      },
      fail,
    );
  });
  server.keepAliveTimeout = 5000;
  try {
    await once(server.listen(options.port ?? 0, host), 'listening');
  } catch (err) {
    await forwarder?.close();
    await log?.close();
    await store?.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    loaded,
    backlog,
    forwardLogPath: log?.path,
    get stats(): ReceiverStats {
      return stats();
    },
    statuses: () => [...tracker.entries()],
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
        server.closeAllConnections();
        await stopped;
        await store?.close();
        await forwarder?.close();
        await log?.close();
      })();
      return closing;
    },
  };
}

/** A delivery's body as an event: what the store reads as one, with a type and data besides. */
function parseEvent(raw: Buffer): { id: string; type: string; data: Record<string, unknown> } | undefined {
  const event = parseEventText(raw.toString('utf8'));
  return event?.type !== undefined && event.data ? { id: event.id, type: event.type, data: event.data } : undefined;
}

/** The raw body, or undefined once it is known to be over MAX_BODY_BYTES, the rest unread (a callback: no promise per request). */
function readBody(req: IncomingMessage, done: (raw: Buffer | undefined) => void, fail: (err: Error) => void): void {
  req.on('error', fail);
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return done(undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
    req.off('data', onData).off('end', onEnd);
    chunks.length = 0;
    done(undefined);
  };
  const onEnd = () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  req.on('data', onData).on('end', onEnd);
}

const ACCEPTED_BODY = JSON.stringify({ received: true, duplicate: false });
const DUPLICATE_BODY = JSON.stringify({ received: true, duplicate: true });

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  replyText(res, status, JSON.stringify(body), headers);
}

function replyText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
