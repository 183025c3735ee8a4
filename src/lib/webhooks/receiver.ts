// The webhook receiver behind `offramp webhooks listen` and `offramp demo`: a loopback
// HTTP server that follows the spec's consumer order (the spec, Events, rule 4):
// verify the signature, deduplicate by event id, store the raw event, apply the status
// update idempotently, answer quickly.
//
// API
//
//   const receiver = await startReceiver({
//     port: 0,                    // 0 = a free port (default 0)
//     host: '127.0.0.1',          // default; the URL printed uses it
//     secret,                     // webhook secret (the HMAC key; src/lib/signature.ts)
//     scheme: 'hmac-sha256-hex',  // optional: accept only this scheme of the catalogue; default any
//     toleranceSec: 300,          // optional: for timestamped signatures, largest |t − now|
//     storePath: 'events.ndjson', // optional: durable NDJSON store; its ids count as seen
//     forwardTo: 'http://127.0.0.1:3000/hook', // optional: relay verified deliveries
//     onEvent(info) {},           // every delivery, after it was answered (DeliveryInfo)
//     onForward(result) {},       // the app's answer to each relay (ForwardResult)
//   });
//   receiver.url      // 'http://127.0.0.1:PORT/' — give this to the service
//   receiver.port
//   receiver.stats    // live counters (ReceiverStats)
//   receiver.status(txId)  // a transaction's latest status, forward-only
//   receiver.statuses()    // [txId, status][] for every transaction seen
//   receiver.loaded   // what opening the store found (StoreLoadReport), or undefined
//   await receiver.close()  // stops accepting, finishes deliveries in flight, syncs the store
//
// Behaviour (what the CLI contract fixes, and our choices where it is silent):
// - POST to any path is a delivery; other methods get 405. Bodies over 1 MiB get 413.
// - `X-SVC-Webhook-Signature` must verify against the raw body under a scheme of the
//   catalogue (src/lib/signature.ts), or the pinned one, compared in constant time;
//   otherwise 401 and nothing is stored. Any scheme by default: the spec does not say how
//   the service signs, and the CLI contract has the listener accept what verifies. The
//   scheme that matched is reported with the delivery and kept in the store.
// - A signed body that is not an event (`{ id, type, data }`) gets 400, not stored.
// - A new event id: the delivery (its exact body, the signature header as received, the
//   scheme that matched, the time received) is appended to the store as one line
//   (store.ts has the format) and synced to disk, then 200.
// - A known id (seen since start, or already in the store): 200, nothing stored, marked
//   `duplicate`. A second copy arriving while the first is being written waits for it.
// - Storing failed (disk full...): 500 so the service retries; the id is not remembered.
// - Statuses: see status-tracker.ts (an older event arriving late is `outOfOrder`).
// - Forwarding (when asked): every verified delivery, duplicates included, after the
//   answer; duplicates too because a replay must be able to reach an app that was down
//   the first time, and because the app should prove its own idempotency.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isScheme, SCHEMES, SIGNATURE_HEADER, verify, type SchemeName } from '../signature.js';
import { Forwarder, type ForwardResult } from './forwarder.js';
import { StatusTracker, eventFacts } from './status-tracker.js';
import { EventStore, formatStoredLine, parseEventText, type StoreLoadReport } from './store.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export type Outcome = 'accepted' | 'duplicate' | 'rejected' | 'invalid' | 'store_failed';

export type DeliveryInfo = {
  receivedAt: Date;
  path: string;
  /** What the receiver did; `rejected` = bad signature (401), `invalid` = signed but not an event (400). */
  outcome: Outcome;
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
  /** The body as received (UTF-8). */
  raw: string;
  /** The signature scheme that verified (absent when none did). */
  scheme?: SchemeName;
  /** Why it was refused or not stored. */
  error?: string;
};

export type ReceiverStats = {
  received: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  invalid: number;
  outOfOrder: number;
  storeFailures: number;
  forwarded: number;
  forwardFailures: number;
  /** Transactions with a known status. */
  transactions: number;
};

export type ReceiverOptions = {
  port?: number;
  host?: string;
  secret: string;
  /** Accept only this scheme of the catalogue; default: any that verifies. */
  scheme?: string;
  /** Timestamped signatures: largest difference from now, in seconds (default 300). */
  toleranceSec?: number;
  storePath?: string;
  forwardTo?: string;
  onEvent?: (info: DeliveryInfo) => void;
  onForward?: (result: ForwardResult) => void;
  now?: () => Date;
};

export type Receiver = {
  url: string;
  port: number;
  readonly stats: ReceiverStats;
  loaded: StoreLoadReport | undefined;
  status(transactionId: string): string | undefined;
  /** Every transaction with its latest status, in first-seen order. */
  statuses(): [transactionId: string, status: string][];
  close(): Promise<void>;
};

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  if (!options.secret) throw new Error('startReceiver: a webhook secret is required');
  if (options.scheme !== undefined && !isScheme(options.scheme)) {
    throw new RangeError(`startReceiver: unknown signature scheme "${options.scheme}"; the catalogue: ${SCHEMES.join(', ')}`);
  }
  const verifyOptions = {
    ...(options.scheme !== undefined ? { scheme: options.scheme } : {}),
    ...(options.toleranceSec !== undefined ? { toleranceSec: options.toleranceSec } : {}),
  };
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? (() => new Date());
  const tracker = new StatusTracker();
  const seen = new Set<string>();
  /** Ids whose first copy is being written: a second copy waits for the outcome. */
  const writing = new Map<string, Promise<boolean>>();
  const counters = { received: 0, accepted: 0, duplicates: 0, rejected: 0, invalid: 0, outOfOrder: 0, storeFailures: 0, forwarded: 0, forwardFailures: 0 };

  let store: EventStore | undefined;
  let loaded: StoreLoadReport | undefined;
  if (options.storePath) {
    const opened = await EventStore.open(options.storePath, (event) => {
      seen.add(event.id);
      const facts = eventFacts(event.type, event.data);
      tracker.apply(facts.transactionId, facts.status);
    });
    store = opened.store;
    loaded = opened.report;
  }

  const forwarder = options.forwardTo
    ? new Forwarder(options.forwardTo, (result) => {
        if (result.ok) counters.forwarded++;
        else counters.forwardFailures++;
        options.onForward?.(result);
      })
    : undefined;

  // Deliveries being handled; close() waits until none is left.
  let inFlight = 0;
  let idle: (() => void) | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = now();
    const path = req.url ?? '/';
    if (req.method !== 'POST') {
      await drain(req);
      reply(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'POST webhook deliveries here' } }, { allow: 'POST' });
      return;
    }
    const raw = await readBody(req);
    if (raw === undefined) {
      reply(res, 413, { error: { code: 'TOO_LARGE', message: `body over ${MAX_BODY_BYTES} bytes` } });
      return;
    }
    counters.received++;
    const text = raw.toString('utf8');
    const base = { receivedAt, path, raw: text, duplicate: false, outOfOrder: false };
    const signature = headerValue(req.headers[SIGNATURE_HEADER]);

    const checked = verify(raw, options.secret, signature, { ...verifyOptions, now: receivedAt });
    if (!checked.ok) {
      counters.rejected++;
      const claimed = parseEvent(text);
      const error = signature?.trim() ? checked.reason : `no ${SIGNATURE_HEADER} header`;
      reply(res, 401, { error: { code: 'BAD_SIGNATURE', message: error } });
      emit({ ...base, outcome: 'rejected', httpStatus: 401, verified: false, id: claimed?.id, type: claimed?.type, transactionId: undefined, status: undefined, eventStatus: undefined, error });
      return;
    }

    const event = parseEvent(text);
    if (!event) {
      counters.invalid++;
      const error = 'signed body is not a webhook event ({ id, type, data })';
      reply(res, 400, { error: { code: 'NOT_AN_EVENT', message: error } });
      emit({ ...base, outcome: 'invalid', httpStatus: 400, verified: true, scheme: checked.scheme, id: undefined, type: undefined, transactionId: undefined, status: undefined, eventStatus: undefined, error });
      return;
    }
    const facts = eventFacts(event.type, event.data);
    const info = { ...base, verified: true, scheme: checked.scheme, id: event.id, type: event.type, transactionId: facts.transactionId };

    const pending = writing.get(event.id);
    const firstCopyStored = pending ? await pending : seen.has(event.id);
    if (firstCopyStored) {
      counters.duplicates++;
      replyText(res, 200, DUPLICATE_BODY);
      const status = facts.transactionId ? tracker.get(facts.transactionId) : undefined;
      emit({ ...info, outcome: 'duplicate', httpStatus: 200, duplicate: true, status, eventStatus: facts.status });
      forwarder?.forward(event.id, raw, req.headers);
      return;
    }

    seen.add(event.id);
    if (store) {
      const line = formatStoredLine({ body: raw, receivedAt, scheme: checked.scheme, signature: signature!, id: event.id, type: event.type });
      const stored = store.append(line).then(
        () => true,
        (err: Error) => {
          seen.delete(event.id);
          counters.storeFailures++;
          emit({ ...info, outcome: 'store_failed', httpStatus: 500, status: undefined, eventStatus: facts.status, error: `could not store the event: ${err.message}` });
          return false;
        },
      );
      writing.set(event.id, stored);
      const ok = await stored;
      writing.delete(event.id);
      if (!ok) {
        reply(res, 500, { error: { code: 'STORE_FAILED', message: 'the listener could not store the event; retry later' } });
        return;
      }
    }
    counters.accepted++;
    const applied = tracker.apply(facts.transactionId, facts.status);
    if (applied.outOfOrder) counters.outOfOrder++;
    replyText(res, 200, ACCEPTED_BODY);
    emit({ ...info, outcome: 'accepted', httpStatus: 200, status: applied.status, eventStatus: applied.eventStatus, outOfOrder: applied.outOfOrder });
    forwarder?.forward(event.id, raw, req.headers);
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
    handle(req, res)
      .catch((err: Error) => {
        if (!res.headersSent) reply(res, 500, { error: { code: 'INTERNAL', message: err.message } });
      })
      .then(() => {
        if (--inFlight === 0) idle?.();
      });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    loaded,
    get stats(): ReceiverStats {
      return { ...counters, transactions: tracker.size };
    },
    status: (transactionId) => tracker.get(transactionId),
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
      })();
      return closing;
    },
  };
}

/** A delivery's body as an event: what the store reads as one, with a type and data besides. */
function parseEvent(text: string): { id: string; type: string; data: Record<string, unknown> } | undefined {
  const event = parseEventText(text);
  return event?.type !== undefined && event.data ? { id: event.id, type: event.type, data: event.data } : undefined;
}

/** The raw body, or undefined when it is over MAX_BODY_BYTES (events, not an async iterator: cheaper per request). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req) {
    // discard
  }
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

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export type { ForwardResult, StoreLoadReport };
