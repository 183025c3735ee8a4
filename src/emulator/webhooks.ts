// The webhook event log and its delivery worker. What is delivered, how it is signed and
// retried, and what chaos does are in docs/emulator.md ("Webhooks" among the "not shown"
// choices, and "Webhook chaos"). Why it is built this way:
// - the body is serialised at the first attempt, so an emulator without a webhook URL never
//   pays for it, and every redelivery sends the same bytes;
// - each attempt reads the URL, secret and clock when it starts: a retry already waiting goes
//   to a new URL with the new secret, and a timestamped-sha256 `t` is fresh, not refused as stale;
// - retries use the project's one backoff (src/lib/client/backoff.ts) without jitter, so a run repeats.
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { backoffDelay } from '../lib/client/backoff.js';
import type { Page } from '../lib/schemas.js';
import { EVENT_TYPES, ReplayResult, WebhookEvent } from '../lib/schemas.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../lib/vocabulary.js';
import { NO_ENDPOINT } from '../lib/webhooks/no-endpoint.js';
import { sign, WEBHOOK_HEADERS, type SchemeName } from '../lib/webhooks/signature.js';
import type { Registration } from '../lib/emulator-defaults.js';
import { iso } from './clock.js';
import { seqPage } from './cursor.js';
import { notFound } from './envelope.js';
import type { Query } from './params.js';
import { parseEnumParam, requireUuid } from './params.js';
import type { FaultRules } from './fault-rules.js';
import type { Random } from './prng.js';
import { viewOf, type EventRecord, type PartnerState } from './partners.js';
import type { Clock, EmulatorOptions, WebhookChaos } from './types.js';

export const DEFAULT_EVENTS_LIMIT = 20;
export const DEFAULT_RETRY = { maxAttempts: 6, baseDelayMs: 500 } as const;
/** The longest wait between two attempts, however many the ceiling allows. */
export const RETRY_CAP_MS = 60_000;
export const ATTEMPT_TIMEOUT_MS = 5000;
const MAX_PARALLEL_DELIVERIES = 8;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/**
 * Why no answer came, in last_error: our words, or the code alone; never an error's message
 * nor the endpoint's body (anyone with the partner's key reads it; docs/emulator.md, "Webhooks").
 */
const NO_ANSWER: Record<string, string> = { ECONNREFUSED: 'connection refused', ECONNRESET: 'connection reset', EPIPE: 'connection closed', UND_ERR_SOCKET: 'connection closed' };
export const NO_ENDPOINT_ERROR = `${NO_ENDPOINT} (offramp emulator webhooks set-url URL, or start the emulator with --webhook-url)`;
/** The longest a chaos-held event waits for a later one (or twice the chaos delay, if longer). */
export const HOLD_MS = 2000;

export type WebhookSettings = {
  /** Changed by setEndpoint while the emulator runs. */
  url: string | undefined;
  registeredBy?: Registration | undefined;
  secret: string;
  scheme: SchemeName;
  chaos?: WebhookChaos;
  /** Draws of the chaos (seeded, so `--seed` repeats them). */
  random: Random;
} & Required<NonNullable<EmulatorOptions['webhookRetry']>>;

export class Webhooks {
  private readonly agent: Agent;
  private readonly limit = pLimit(MAX_PARALLEL_DELIVERIES);
  private readonly running = new Set<Promise<void>>();
  /** Queued attempts and when each is due (performance.now()): what idle() waits for. */
  private readonly waiting = new Map<EventRecord, number>();
  private readonly stop = new AbortController();
  /** Events chaos holds back, until a later one of the same partner has been attempted. */
  private readonly held = new Set<EventRecord>();
  private readonly duplicateTimers = new Map<NodeJS.Timeout, number>();
  private readonly idleWaiters = new Set<{ before: number; resolve: () => void }>();
  private readonly holdMs: number;
  private closed = false;

  constructor(
    private readonly settings: WebhookSettings,
    private readonly clock: Clock,
    private readonly faults: FaultRules,
    /** Told of every change to an event (the state file's cue). */
    private readonly changed: (evt: EventRecord) => void,
    /** Resolves once what changed so far is on disk: no event is sent before it is (journal.ts). */
    private readonly committed: () => Promise<void>,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 4000, connect: { timeout: settings.timeoutMs } });
    this.holdMs = Math.max(HOLD_MS, 2 * (settings.chaos?.delayMs?.[1] ?? 0));
  }

  /**
   * Records a new event about `aggregateId` and queues its first delivery. `data` is the
   * snapshot at this moment, kept even without a webhook URL, since a state export or a
   * restart with a URL may deliver it later.
   */
  record(partner: PartnerState, type: string, aggregateId: string, data: object): EventRecord {
    const now = this.clock.now();
    const evt = partner.addEvent(
      {
        seq: partner.eventList.length + 1,
        event_id: randomUUID(),
        aggregate_id: aggregateId,
        event_type: type,
        createdMs: now,
        created_at: iso(now),
        updated_at: iso(now),
        delivery_status: 'pending',
        attempts: 0,
        last_error: null,
        roundAttempts: 0,
      },
      data,
    );
    this.changed(evt);
    const chaos = this.settings.chaos;
    // One held event per partner at a time: the next event is the one that overtakes it.
    if (chaos?.reorder && ![...this.held].some((held) => held.owner === partner) && this.settings.random() < chaos.reorder) {
      this.held.add(evt);
      this.schedule(evt, this.holdMs);
    } else {
      this.schedule(evt, this.chaosDelay());
    }
    return evt;
  }

  /**
   * Where deliveries go and how they are signed, as the control plane answers it. The secret is
   * part of it: a holder of the control plane may replace the whole state, and `webhooks listen` verifies with it.
   */
  endpoint(): { url: string | null; secret: string; signature_scheme: SchemeName; registered_by: Registration | null } {
    const { url, secret, scheme, registeredBy } = this.settings;
    return { url: url ?? null, secret, signature_scheme: scheme, registered_by: registeredBy ?? null };
  }

  setEndpoint(url: string | undefined, secret?: string, registeredBy?: Registration): void {
    this.settings.url = url;
    this.settings.registeredBy = registeredBy;
    if (secret !== undefined) this.settings.secret = secret;
  }

  /** Queues delivery of a partner's pending events (after a state was loaded). */
  resume(partner: PartnerState): void {
    for (const evt of partner.eventList) {
      if (evt.delivery_status !== 'pending') continue;
      this.schedule(evt, evt.roundAttempts === 0 ? 0 : this.retryDelay(evt.roundAttempts));
    }
  }

  /** Stops every queued delivery of a partner that a reset or an import replaced. */
  forget(partner: PartnerState): void {
    for (const evt of partner.eventList) {
      this.cancelRetry(evt);
      this.held.delete(evt);
    }
  }

  get(partner: PartnerState, rawId: string): WebhookEvent {
    return telemetry(this.find(partner, rawId));
  }

  list(partner: PartnerState, query: Query): Page<WebhookEvent> {
    const rawTx = query.get('transaction_id');
    const txId = rawTx ? requireUuid('transaction_id', rawTx) : undefined;
    const type = parseEnumParam(query, 'event_type', EVENT_TYPES);
    const status = parseEnumParam(query, 'delivery_status', DELIVERY_STATUSES);
    return seqPage(partner.eventList, query, {
      kind: 'evt',
      defaultLimit: DEFAULT_EVENTS_LIMIT,
      keep: (evt) =>
        (txId === undefined || evt.aggregate_id === txId) &&
        (type === undefined || evt.event_type === type) &&
        (status === undefined || evt.delivery_status === status),
      view: telemetry,
    });
  }

  /** Requeues an event for redelivery under the same id (a new round, same bytes). */
  replay(partner: PartnerState, rawId: string): ReplayResult {
    const evt = this.find(partner, rawId);
    const now = this.clock.now();
    evt.delivery_status = 'pending';
    evt.updated_at = iso(now);
    this.changed(evt);
    if (evt.inFlight) {
      evt.replayQueued = true;
    } else {
      this.cancelRetry(evt);
      evt.roundAttempts = 0;
      this.schedule(evt, 0);
    }
    return { ...replayOf(evt), publish_status: 'pending', replay_scheduled_at: iso(now) };
  }

  /**
   * Resolves once no attempt is in flight and none is queued to start within `withinMs` (by
   * default, at all): a test knows then that nothing more arrives, without a sleep to show it.
   */
  idle(withinMs = Infinity): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.add({ before: performance.now() + withinMs, resolve });
      this.checkIdle();
    });
  }

  /** Stops retries and in-flight deliveries; resolves when nothing is left running. */
  async close(): Promise<void> {
    this.closed = true;
    for (const evt of this.waiting.keys()) this.cancelRetry(evt);
    for (const timer of this.duplicateTimers.keys()) clearTimeout(timer);
    this.duplicateTimers.clear();
    this.checkIdle();
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
    // An event whose change could not be journaled is undone (answered 503): it must not go out first.
    const start = () => void this.committed().then(send, () => this.cancelRetry(evt));
    const send = () => {
      this.cancelRetry(evt);
      if (evt.owner.detached) return;
      this.held.delete(evt);
      const injected = this.faults.takeWebhook(evt.event_type);
      if (injected) {
        // No request is made: the endpoint "answered" the rule's status.
        this.endAttempt(evt, `endpoint answered HTTP ${injected.status}: injected fault ${injected.id} (fault add --webhook)`);
        return;
      }
      if (this.settings.url === undefined) {
        this.endAttempt(evt, NO_ENDPOINT_ERROR);
        return;
      }
      this.run(() => this.attempt(evt));
    };
    if (delayMs <= 0) {
      // setImmediate, not a direct call: the API answer that caused the event goes out first.
      const handle = setImmediate(start);
      evt.cancelScheduled = () => clearImmediate(handle);
    } else {
      const handle = setTimeout(start, delayMs);
      evt.cancelScheduled = () => clearTimeout(handle);
    }
    this.waiting.set(evt, performance.now() + delayMs);
  }

  private cancelRetry(evt: EventRecord): void {
    evt.cancelScheduled?.();
    evt.cancelScheduled = null;
    if (this.waiting.delete(evt)) queueMicrotask(() => this.checkIdle());
  }

  /** Resolves the idle() waiters nothing holds up any more; called once what took an attempt off the queue has queued what follows it. */
  private checkIdle(): void {
    if (this.idleWaiters.size === 0) return;
    const due = [...this.waiting.values(), ...this.duplicateTimers.values()];
    for (const waiter of this.idleWaiters) {
      if (!this.closed && (this.running.size > 0 || due.some((at) => at < waiter.before))) continue;
      this.idleWaiters.delete(waiter);
      waiter.resolve();
    }
  }

  private async attempt(evt: EventRecord): Promise<void> {
    if (this.closed) return;
    evt.inFlight = true;
    const error = await this.send(evt, this.settings.url!);
    evt.inFlight = false;
    this.endAttempt(evt, error);
  }

  /** Runs a POST in the delivery pool, kept in `running` so that close() can wait for it. */
  private run(task: () => Promise<void>): void {
    const run = this.limit(task);
    this.running.add(run);
    void run.finally(() => {
      this.running.delete(run);
      this.checkIdle();
    });
  }

  /** The wait before retry n of a round: baseDelayMs, doubling (backoff's base is half the first delay). */
  private retryDelay(n: number): number {
    return backoffDelay(n, { baseMs: this.settings.baseDelayMs / 2, capMs: RETRY_CAP_MS, jitter: 0 });
  }

  /** The chaos delay of a first delivery or a duplicate: 0 without chaos. */
  private chaosDelay(): number {
    const range = this.settings.chaos?.delayMs;
    if (!range) return 0;
    return range[0] + Math.floor(this.settings.random() * (range[1] - range[0] + 1));
  }

  private scheduleDuplicate(evt: EventRecord): void {
    const delayMs = this.chaosDelay();
    const timer = setTimeout(() => {
      this.duplicateTimers.delete(timer);
      if (!this.closed && !evt.owner.detached && this.settings.url !== undefined) this.run(() => this.duplicate(evt));
      this.checkIdle();
    }, delayMs);
    this.duplicateTimers.set(timer, performance.now() + delayMs);
  }

  private async duplicate(evt: EventRecord): Promise<void> {
    if (this.closed) return;
    const error = await this.send(evt, this.settings.url!);
    if (this.closed) return;
    // A POST was made: it counts. The event was delivered already, and stays so.
    evt.attempts++;
    evt.updated_at = iso(this.clock.now());
    if (error !== null) evt.last_error = `duplicate (webhook chaos): ${error}`;
    this.changed(evt);
  }

  private endAttempt(evt: EventRecord, error: string | null): void {
    if (this.closed) return;
    evt.attempts++;
    evt.roundAttempts++;
    evt.updated_at = iso(this.clock.now());
    this.changed(evt);
    if (error === null) {
      evt.delivery_status = 'delivered';
      const duplicate = this.settings.chaos?.duplicate;
      if (duplicate && this.settings.url !== undefined && this.settings.random() < duplicate) this.scheduleDuplicate(evt);
    } else {
      evt.last_error = error;
      // Without an endpoint a retry cannot succeed, so the round ends at once.
      if (evt.roundAttempts >= this.settings.maxAttempts || this.settings.url === undefined) {
        evt.delivery_status = 'failed';
      } else {
        evt.delivery_status = 'pending';
        this.schedule(evt, this.retryDelay(evt.roundAttempts));
      }
    }
    if (evt.replayQueued) {
      evt.replayQueued = false;
      this.cancelRetry(evt);
      evt.delivery_status = 'pending';
      evt.roundAttempts = 0;
      this.schedule(evt, 0);
    }
    // Events held back for reordering go out once a later event of their partner was attempted.
    for (const held of this.held) {
      if (held.owner !== evt.owner || held.seq >= evt.seq) continue;
      this.held.delete(held);
      this.cancelRetry(held);
      this.schedule(held, 0);
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
          [WEBHOOK_HEADERS.signature]: sign(body, this.settings.secret, this.settings.scheme, new Date(this.clock.now())),
          [WEBHOOK_HEADERS.id]: evt.event_id,
        },
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        signal: AbortSignal.any([this.stop.signal, timeout]),
      });
      await res.body.dump();
      return res.statusCode >= 200 && res.statusCode < 300 ? null : `endpoint answered HTTP ${res.statusCode}`;
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      // Whichever of undici's timers or ours fires first, it is the same failure.
      if (timeout.aborted || TIMEOUT_CODES.has(code)) return `no answer within ${this.settings.timeoutMs} ms`;
      return `delivery failed: ${NO_ANSWER[code] ?? (/^[A-Z][A-Z0-9_]*$/.test(code) ? code : 'no answer')}`;
    }
  }
}

/** What the API shows of an event, which an EventRecord holds as it is: no payload. */
const telemetry: (evt: EventRecord) => WebhookEvent = viewOf(WebhookEvent);
/** A replay's answer: the event's own fields of it, which the replay completes. */
const replayOf: (evt: EventRecord) => ReplayResult = viewOf(ReplayResult);
