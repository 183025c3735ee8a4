// The webhook event log and its delivery worker (the spec, "Events").
// Every lifecycle step records an event whose delivery body is `{ id, type, data }`, with
// `data` the transaction snapshot at that moment (deposit events therefore carry
// deposit_id, deposit_status, confirmations, received_at... as the snapshot does). The
// body is serialised once (at the first attempt, so an emulator without a webhook URL never
// pays for it), and every redelivery sends the same bytes (and, except under
// timestamped-sha256, the same signature).
//
// Delivery (all "not shown" in the spec; our choices):
// - POST to the configured URL, `Content-Type: application/json`,
//   `X-SVC-Webhook-Signature` = the raw body signed with the webhook secret under the
//   configured scheme of the catalogue (src/lib/signature.ts; default hmac-sha256-hex,
//   lowercase hex HMAC-SHA256), `X-SVC-Webhook-Id` = the event id. Each attempt signs
//   anew: under timestamped-sha256 `t` is the emulator's clock at that attempt, as a
//   service stamping its sends would, so a retry is not refused as stale;
// - a 2xx answer means delivered; anything else (other status, refused connection, no
//   answer within 5 s) counts as a failed attempt and is retried after baseDelay × 2^(n−1)
//   until the attempt ceiling, then the event is `failed`;
// - delivery_status: `pending` (not yet attempted, or waiting for a retry), `delivered`,
//   `failed` (ceiling reached). `last_error` keeps the latest failure, even after a later
//   success, as a record of what went wrong;
// - with no webhook URL configured an attempt fails at once with last_error saying so, and
//   the event becomes `failed` after that single attempt: it is then visible to
//   `webhooks list --status failed` and replayable once a URL exists, which is what a
//   partner chasing "why did I get nothing" needs;
// - replay keeps the event id, sets the status back to `pending` and starts a new round
//   with a fresh retry budget; `attempts` keeps counting across rounds;
// - deliveries run in the background (at most 8 at once) and never delay an API answer.
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import type { Page, ReplayResult, WebhookEvent } from '../lib/schemas.js';
import { EVENT_TYPES } from '../lib/schemas.js';
import { sign, type SchemeName } from '../lib/signature.js';
import type { Clock } from './clock.js';
import { iso } from './clock.js';
import { seqPage } from './cursor.js';
import { notFound } from './envelope.js';
import type { Query } from './params.js';
import { checkOrder, parseDateParam, parseEnumParam, parseLimit, requireUuid } from './params.js';
import type { DeliveryStatus, EventRecord, PartnerState } from './store.js';

export const SIGNATURE_HEADER_NAME = 'X-SVC-Webhook-Signature';
export const EVENT_ID_HEADER_NAME = 'X-SVC-Webhook-Id';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];
export const DEFAULT_EVENTS_LIMIT = 20;
export const DEFAULT_WEBHOOK_SECRET = 'whsec_test_emulator';
export const DEFAULT_RETRY = { maxAttempts: 6, baseDelayMs: 500 } as const;
export const ATTEMPT_TIMEOUT_MS = 5000;
const MAX_PARALLEL_DELIVERIES = 8;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
export const NO_ENDPOINT_ERROR = 'no webhook endpoint configured (start the emulator with --webhook-url)';

export type WebhookSettings = {
  url: string | undefined;
  secret: string;
  /** Signature scheme of the catalogue (src/lib/signature.ts); default hmac-sha256-hex. */
  scheme?: SchemeName;
  maxAttempts: number;
  baseDelayMs: number;
  timeoutMs: number;
};

export class Webhooks {
  private readonly agent: Agent;
  private readonly limit = pLimit(MAX_PARALLEL_DELIVERIES);
  private readonly running = new Set<Promise<void>>();
  private readonly waiting = new Set<EventRecord>();
  private readonly stop = new AbortController();
  private closed = false;

  constructor(
    private readonly settings: WebhookSettings,
    private readonly clock: Clock,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 4000, connect: { timeout: settings.timeoutMs } });
  }

  /**
   * Records a new event about `aggregateId` and queues its first delivery. `data` is taken
   * now (the snapshot at this moment); it is a function so that an emulator without a
   * webhook URL, which never sends anything, does not pay for building it.
   */
  record(partner: PartnerState, type: string, aggregateId: string, data: () => object): EventRecord {
    const now = this.clock.now();
    const eventId = randomUUID();
    const evt: EventRecord = {
      seq: partner.eventList.length + 1,
      event_id: eventId,
      aggregate_id: aggregateId,
      event_type: type,
      createdMs: now,
      created_at: iso(now),
      updated_at: iso(now),
      delivery_status: 'pending',
      attempts: 0,
      last_error: null,
      // Without a URL nothing is ever sent, so the snapshot is not kept.
      payload: this.settings.url === undefined ? null : data(),
      body: null,
      roundAttempts: 0,
      inFlight: false,
      replayQueued: false,
      cancelScheduled: null,
    };
    partner.events.set(eventId, evt);
    partner.eventList.push(evt);
    this.schedule(evt, 0);
    return evt;
  }

  get(partner: PartnerState, rawId: string): WebhookEvent {
    return telemetry(this.find(partner, rawId));
  }

  list(partner: PartnerState, query: Query): Page<WebhookEvent> {
    const limit = parseLimit(query, DEFAULT_EVENTS_LIMIT);
    const rawTx = query.get('transaction_id');
    const txId = rawTx ? requireUuid('transaction_id', rawTx) : undefined;
    const type = parseEnumParam(query, 'event_type', EVENT_TYPES);
    const status = parseEnumParam(query, 'delivery_status', DELIVERY_STATUSES);
    const from = parseDateParam(query, 'from');
    const to = parseDateParam(query, 'to');
    checkOrder(from, to);
    return seqPage(partner.eventList, {
      kind: 'evt',
      cursor: query.get('cursor'),
      limit,
      newestFirst: false,
      keep: (evt) =>
        (txId === undefined || evt.aggregate_id === txId) &&
        (type === undefined || evt.event_type === type) &&
        (status === undefined || evt.delivery_status === status) &&
        (from === undefined || evt.createdMs >= from) &&
        (to === undefined || evt.createdMs <= to),
      view: telemetry,
    });
  }

  /** Requeues an event for redelivery under the same id (a new round, same bytes). */
  replay(partner: PartnerState, rawId: string): ReplayResult {
    const evt = this.find(partner, rawId);
    const now = this.clock.now();
    evt.delivery_status = 'pending';
    evt.updated_at = iso(now);
    if (evt.inFlight) {
      evt.replayQueued = true;
    } else {
      this.cancelRetry(evt);
      evt.roundAttempts = 0;
      this.schedule(evt, 0);
    }
    return {
      event_id: evt.event_id,
      aggregate_id: evt.aggregate_id,
      event_type: evt.event_type,
      attempts: evt.attempts,
      publish_status: 'pending',
      replay_scheduled_at: iso(now),
    };
  }

  /** Stops retries and in-flight deliveries; resolves when nothing is left running. */
  async close(): Promise<void> {
    this.closed = true;
    for (const evt of this.waiting) this.cancelRetry(evt);
    // Queued attempts are left to run: they see `closed` and return at once (clearing the
    // queue instead would leave their promises pending, and this wait with them).
    this.stop.abort();
    await Promise.allSettled([...this.running]);
    await this.agent.close().catch(() => undefined);
  }

  private find(partner: PartnerState, rawId: string): EventRecord {
    const evt = partner.events.get(requireUuid('event_id', rawId));
    if (!evt) throw notFound(`Webhook event ${rawId} not found`);
    return evt;
  }

  private schedule(evt: EventRecord, delayMs: number): void {
    if (this.closed) return;
    const start = () => {
      evt.cancelScheduled = null;
      this.waiting.delete(evt);
      if (this.settings.url === undefined) {
        // Nothing to send to: the attempt fails at once, without a network round.
        this.settle(evt, NO_ENDPOINT_ERROR);
        return;
      }
      const run = this.limit(() => this.attempt(evt));
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    };
    if (delayMs <= 0) {
      // setImmediate, not a direct call: the API answer that caused the event goes out first.
      const handle = setImmediate(start);
      evt.cancelScheduled = () => clearImmediate(handle);
    } else {
      const handle = setTimeout(start, delayMs);
      evt.cancelScheduled = () => clearTimeout(handle);
    }
    this.waiting.add(evt);
  }

  private cancelRetry(evt: EventRecord): void {
    evt.cancelScheduled?.();
    evt.cancelScheduled = null;
    this.waiting.delete(evt);
  }

  private async attempt(evt: EventRecord): Promise<void> {
    if (this.closed) return;
    evt.inFlight = true;
    const error = await this.send(evt, this.settings.url!);
    evt.inFlight = false;
    this.settle(evt, error);
  }

  /** Records the outcome of one attempt and decides what comes next. */
  private settle(evt: EventRecord, error: string | null): void {
    if (this.closed) return;
    evt.attempts++;
    evt.roundAttempts++;
    evt.updated_at = iso(this.clock.now());
    if (error === null) {
      evt.delivery_status = 'delivered';
    } else {
      evt.last_error = error;
      // Without an endpoint a retry cannot succeed, so the round ends at once.
      if (evt.roundAttempts >= this.settings.maxAttempts || this.settings.url === undefined) {
        evt.delivery_status = 'failed';
      } else {
        evt.delivery_status = 'pending';
        this.schedule(evt, this.settings.baseDelayMs * 2 ** (evt.roundAttempts - 1));
      }
    }
    if (evt.replayQueued) {
      evt.replayQueued = false;
      this.cancelRetry(evt);
      evt.delivery_status = 'pending';
      evt.roundAttempts = 0;
      this.schedule(evt, 0);
    }
  }

  /** One delivery attempt; answers null on a 2xx, else what went wrong. */
  private async send(evt: EventRecord, url: string): Promise<string | null> {
    if (evt.body === null) {
      evt.body = JSON.stringify({ id: evt.event_id, type: evt.event_type, data: evt.payload });
      evt.payload = null;
    }
    const body = evt.body;
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'offramp-emulator',
          [SIGNATURE_HEADER_NAME]: sign(body, this.settings.secret, this.settings.scheme, new Date(this.clock.now())),
          [EVENT_ID_HEADER_NAME]: evt.event_id,
        },
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        signal: AbortSignal.any([this.stop.signal, timeout]),
      });
      if (res.statusCode >= 200 && res.statusCode < 300) {
        await res.body.dump();
        return null;
      }
      const text = (await res.body.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 120);
      return `endpoint answered HTTP ${res.statusCode}${text ? `: ${text}` : ''}`;
    } catch (err) {
      const e = err as { code?: string; message?: string };
      // Whichever of undici's timers or ours fires first, it is the same failure.
      if (timeout.aborted || (e.code !== undefined && TIMEOUT_CODES.has(e.code))) return `no answer within ${this.settings.timeoutMs} ms`;
      return `delivery failed: ${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}`;
    }
  }
}

export function telemetry(evt: EventRecord): WebhookEvent {
  return {
    event_id: evt.event_id,
    aggregate_id: evt.aggregate_id,
    event_type: evt.event_type,
    delivery_status: evt.delivery_status,
    attempts: evt.attempts,
    last_error: evt.last_error,
    created_at: evt.created_at,
    updated_at: evt.updated_at,
  };
}
