// The smoke invariants, each a pure function over the facts one walk collected:
// no I/O here, so each rule is unit-tested on hand-made facts.
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS } from '../config/profile.js';
import { isEdge, isForward } from '../lifecycle.js';
import { decimalEquals } from '../money.js';
import type { RevenueRow, StatusHistoryEntry, Transaction, WebhookEvent } from '../schemas.js';
import { DELIVERY_STATUSES } from '../vocabulary.js';
import { noEndpoint } from '../webhooks/no-endpoint.js';
import { isLoopbackHost } from '../client/url.js';
import type { Outcome, WalkStep } from './walk.js';

/** Something read from the service: the value, or why it could not be read. */
export type Fact<T> = { ok: true; value: T } | { ok: false; error: string };

export type CancelAttempt =
  /** The service accepted the cancel (2xx) and answered with this status. */
  | { accepted: true; status: string }
  /** The service refused it with this HTTP status and code. */
  | { accepted: false; httpStatus: number; code: string; message: string };

export type SmokeFacts = {
  outcome: Outcome;
  /** The walk's final snapshot; absent when the walk stopped part-way. */
  transaction?: Transaction;
  transactionId?: string;
  steps: WalkStep[];
  /** Why the walk stopped part-way, when it did. */
  walkError?: string;
  history?: Fact<StatusHistoryEntry[]>;
  /** Events listed by GET /webhooks/events?transaction_id=… */
  events?: Fact<WebhookEvent[]>;
  /** GET /webhooks/events/{id} for each listed event, by event id. */
  telemetry?: Record<string, Fact<WebhookEvent>>;
  /** The events listed again once each was delivered, failed or had an error (or the wait ran out). */
  deliveries?: Fact<WebhookEvent[]>;
  /** The delivery_status values that mean delivered and failed for this service (the profile's, else the emulator's). */
  deliveryNames?: DeliveryNames;
  /** When smoke received the deliveries itself: where, and the scheme each verified event's signature matched, by id. */
  receivedBySmoke?: { url: string; schemes: ReadonlyMap<string, string>; refused: ReadonlyMap<string, string> };
  /** Ledger rows for the transaction found in GET /revenue, and the window searched. */
  ledger?: Fact<{ rows: RevenueRow[]; from: string; to: string }>;
  cancel?: Fact<CancelAttempt>;
};

export type CheckStatus = 'pass' | 'fail' | 'skip';
export type CheckResult = { id: string; name: string; status: CheckStatus; detail: string };

export type Invariant = { id: string; name: string; check(facts: SmokeFacts): Verdict };
type Verdict = Omit<CheckResult, 'id' | 'name'>;

const pass = (detail: string) => ({ status: 'pass' as const, detail });
const fail = (detail: string) => ({ status: 'fail' as const, detail });
const skip = (detail: string) => ({ status: 'skip' as const, detail });

/** `<scope>:<word>` (the spec, "Status history entry"): lower-case words, `_` allowed. */
export const REASON_FORM = /^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$/;

/** A fact's value, or the failure saying why the check could not look at it. */
function valueOf<T>(f: SmokeFacts, fact: Fact<T> | undefined, absent: string, unreadable: string): T | Verdict {
  if (!fact) return fail(`not checked: ${f.walkError ? `the walk stopped (${f.walkError})` : absent}`);
  return fact.ok ? fact.value : fail(`could not ${unreadable}: ${fact.error}`);
}

/** The status history, or the failure saying why no check on it can pass. */
function historyOf(f: SmokeFacts): StatusHistoryEntry[] | Verdict {
  const history = valueOf(f, f.history, 'no history was read', 'read the status history');
  return Array.isArray(history) && history.length === 0 ? fail('the status history is empty') : history;
}

export const statusOrder: Invariant = {
  id: 'status-order',
  name: 'the statuses went in a valid order',
  check(f) {
    const history = historyOf(f);
    if (!Array.isArray(history)) return history;
    for (const [i, h] of history.entries()) {
      const where = `history entry ${i + 1}`;
      if (!isEdge(h.from_status, h.to_status)) return fail(`${where}: ${h.from_status} → ${h.to_status} is not a lifecycle transition`);
      const prev = history[i - 1];
      if (prev && prev.to_status !== h.from_status) {
        return fail(`${where} starts from ${h.from_status}, but the entry before it ended at ${prev.to_status}`);
      }
      if (prev && Date.parse(h.changed_at) < Date.parse(prev.changed_at)) {
        return fail(`${where} (${h.changed_at}) is dated before the entry before it (${prev.changed_at})`);
      }
    }
    // What the walk read after each step must only ever move forward.
    for (const s of f.steps) {
      if (s.status_before && s.status && s.status !== s.status_before && !isForward(s.status_before, s.status)) {
        return fail(`after ${s.step} the transaction read ${s.status}, which cannot follow ${s.status_before}`);
      }
    }
    const last = history[history.length - 1]!.to_status;
    if (f.transaction && f.transaction.status !== last) {
      return fail(`the history ends at ${last} but the transaction reads ${f.transaction.status}`);
    }
    if (last !== f.outcome) return fail(`the walk was to end at ${f.outcome} but the history ends at ${last}`);
    const path = [history[0]!.from_status, ...history.map((h) => h.to_status)];
    return pass(path.join(' → '));
  },
};

export const historyReasons: Invariant = {
  id: 'history-reasons',
  name: 'every history reason has the scope:word form',
  check(f) {
    const history = historyOf(f);
    if (!Array.isArray(history)) return history;
    const bad = history
      .map((h, i) => ({ h, i }))
      .filter(({ h }) => !REASON_FORM.test(h.reason))
      .map(({ h, i }) => `entry ${i + 1} (${h.from_status} → ${h.to_status}): ${JSON.stringify(h.reason)}`);
    if (bad.length) return fail(`not of the form scope:word: ${bad.join('; ')}`);
    return pass(history.map((h) => h.reason).join(', '));
  },
};

/** The webhook event type each walk step should have produced. */
export function expectedEventTypes(steps: WalkStep[]): string[] {
  return steps.flatMap((s) => (s.step === 'create' ? ['transaction.created'] : s.step === 'quote' || s.step === 'read' ? [] : [s.step]));
}

/** The expected event types that the types seen do not account for, each seen counting once. */
export function missingEvents(seen: (string | undefined)[], expected: string[]): string[] {
  const left = [...seen];
  return expected.filter((type) => {
    const i = left.indexOf(type);
    if (i >= 0) left.splice(i, 1);
    return i < 0;
  });
}

/** The events listed about the walk's transaction, or the failure saying why none could be checked. */
function transactionEvents(f: SmokeFacts, listing: Fact<WebhookEvent[]> | undefined): WebhookEvent[] | Verdict {
  const events = valueOf(f, listing, 'no events were listed', 'list the events');
  return Array.isArray(events) ? events.filter((e) => !f.transactionId || e.aggregate_id === f.transactionId) : events;
}

export const eventsCoverSteps: Invariant = {
  id: 'events-cover-steps',
  name: 'the events listed for the transaction cover the steps taken, each with its telemetry readable',
  check(f) {
    const listed = transactionEvents(f, f.events);
    if (!Array.isArray(listed)) return listed;
    const missing = missingEvents(listed.map((e) => e.event_type), expectedEventTypes(f.steps));
    if (missing.length) {
      return fail(`no event listed for: ${missing.join(', ')} (listed: ${listed.map((e) => e.event_type).join(', ') || 'none'})`);
    }
    const unreadable: string[] = [];
    for (const e of listed) {
      const t = f.telemetry?.[e.event_id];
      if (!t) unreadable.push(`${e.event_type} ${e.event_id}: not read`);
      else if (!t.ok) unreadable.push(`${e.event_type} ${e.event_id}: ${t.error}`);
      else if (t.value.event_id !== e.event_id || t.value.event_type !== e.event_type || t.value.aggregate_id !== e.aggregate_id) {
        unreadable.push(`${e.event_type} ${e.event_id}: telemetry describes another event (${t.value.event_type} ${t.value.event_id})`);
      }
    }
    if (unreadable.length) return fail(`telemetry not readable: ${unreadable.join('; ')}`);
    return pass(`${listed.length} events (${listed.map((e) => `${e.event_type} ${deliveryState(e)}`).join(', ')}); telemetry read for each`);
  },
};

/** An event's delivery in words: one the service had nowhere to send was recorded, not failed. */
export function deliveryState(e: WebhookEvent): string {
  return noEndpoint(e.last_error) ? 'recorded (no endpoint)' : e.delivery_status;
}

/** `named`: the profile gave the service's words; without them a word that is not the emulator's cannot be judged. */
export type DeliveryNames = { delivered: string; failed: string; named?: boolean };

/** A delivery_status that is neither of the service's words nor one of the emulator's: the check cannot judge it. */
function unknownStatus(status: string, names: DeliveryNames): boolean {
  return status !== names.delivered && status !== names.failed && !(DELIVERY_STATUSES as readonly string[]).includes(status);
}

/**
 * Whether an event's delivery is over: delivered, failed, or (when the profile names no
 * words) told in a word the check cannot judge. With the service's words named, any other
 * word is one of its "not yet" words. A pending event whose attempt failed is not over: the
 * service retries it, and may yet deliver it.
 */
export function deliveryOver(e: WebhookEvent, names: DeliveryNames): boolean {
  return e.delivery_status === names.delivered || e.delivery_status === names.failed || (!names.named && unknownStatus(e.delivery_status, names));
}

export const deliveries: Invariant = {
  id: 'deliveries',
  name: "the transaction's webhook events were delivered to the endpoint",
  check(f) {
    const events = transactionEvents(f, f.deliveries);
    if (!Array.isArray(events)) return events;
    const names = f.deliveryNames ?? { delivered: DEFAULT_DELIVERED_STATUS, failed: DEFAULT_FAILED_STATUS };
    if (events.length === 0) return fail('no events listed for the transaction');
    // Words the profile does not name (a service's own vocabulary): not a failure of the service.
    const unknown = [...new Set(events.map((e) => e.delivery_status).filter((s) => unknownStatus(s, names)))];
    if (unknown.length > 0 && !names.named) {
      return skip(`skipped: the service reports delivery_status ${unknown.map((s) => JSON.stringify(s)).join(', ')}, which the profile does not name as delivered or failed (offramp conform --save records its words)`);
    }
    const delivered = events.filter((e) => e.delivery_status === names.delivered);
    const undelivered = events.filter((e) => e.delivery_status !== names.delivered);
    // Every attempt failed for want of an endpoint: nothing to check, and no failure either.
    if (undelivered.length === events.length && undelivered.every((e) => noEndpoint(e.last_error))) {
      return skip(`skipped: no webhook endpoint (${events.length} events recorded, none sent)`);
    }
    const failing = undelivered.filter((e) => !noEndpoint(e.last_error) && (e.delivery_status === names.failed || e.last_error));
    const own = f.receivedBySmoke;
    if (failing.length > 0) {
      // The service keeps only a status; smoke's own receiver knows why it refused.
      const why = (e: WebhookEvent) => (own?.refused.has(e.event_id) ? `: ${own.refused.get(e.event_id)}` : '');
      const shown = failing.map((e) => `${e.event_type} ${e.delivery_status} after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}: ${e.last_error ?? 'no error given'}${why(e)}`);
      // No answer at this machine's loopback, where smoke listens by default: an emulator in a container cannot reach it.
      const unanswered = own && isLoopbackHost(new URL(own.url).hostname) && failing.every((e) => !e.last_error?.startsWith('endpoint answered'));
      const unreachable = unanswered ? ` (to smoke's receiver at ${own.url}: an emulator in a container cannot reach it; give --receive-at URL)` : own ? ` (to smoke's receiver at ${own.url})` : '';
      return fail(`${failing.length} of ${events.length} deliveries failed${unreachable}: ${shown.join('; ')}`);
    }
    if (undelivered.length > 0) {
      return fail(`${undelivered.length} of ${events.length} events not delivered within the wait: ${undelivered.map((e) => `${e.event_type} ${deliveryState(e)}`).join(', ')}`);
    }
    const retried = delivered.filter((e) => e.attempts > 1).length;
    if (!own) return pass(`${delivered.length} delivered${retried ? ` (${retried} after a retry)` : ''}`);
    const lost = delivered.filter((e) => !own.schemes.has(e.event_id));
    if (lost.length > 0) return fail(`${lost.length} of ${events.length} events the service reports delivered never reached smoke's receiver at ${own.url}: ${lost.map((e) => `${e.event_type} ${e.event_id}`).join(', ')}`);
    const schemes = [...new Set(delivered.map((e) => own.schemes.get(e.event_id)))].join(', ');
    return pass(`${delivered.length} delivered${retried ? ` (${retried} after a retry)` : ''} to smoke's receiver, each signature verified with the emulator's secret (${schemes})`);
  },
};

export const ledgerRow: Invariant = {
  id: 'ledger-row',
  name: "a completed transaction has its ledger row in GET /revenue with amount equal to the transaction's",
  check(f) {
    if (f.outcome !== 'completed') return skip(`the walk ends at ${f.outcome}; only a completed transaction has a ledger row`);
    if (!f.transaction || f.transaction.status !== 'completed') return fail('not checked: the transaction did not reach completed');
    if (!f.ledger) return fail('not checked: the ledger was not read');
    if (!f.ledger.ok) return fail(`could not read GET /revenue: ${f.ledger.error}`);
    const { rows, from, to } = f.ledger.value;
    const tx = f.transaction;
    if (rows.length === 0) return fail(`no ledger row for ${tx.id} in GET /revenue from ${from} to ${to}`);
    if (rows.length > 1) return fail(`${rows.length} ledger rows for ${tx.id} (expected one)`);
    const row = rows[0]!;
    if (!decimalEquals(row.amount, tx.amount)) return fail(`ledger amount ${row.amount} differs from the transaction's ${tx.amount}`);
    return pass(`one row, amount ${row.amount} NGN as on the transaction, share ${row.share}`);
  },
};

export const cancelRefused: Invariant = {
  id: 'cancel-refused',
  name: 'a cancel of the completed transaction is refused with 409',
  check(f) {
    if (f.outcome !== 'completed') return skip(`the walk ends at ${f.outcome}; the rule is about completed transactions`);
    if (!f.transaction || f.transaction.status !== 'completed') return fail('not checked: the transaction did not reach completed');
    if (!f.cancel) return fail('not checked: no cancel was sent');
    if (!f.cancel.ok) return fail(`the cancel got no answer: ${f.cancel.error}`);
    const c = f.cancel.value;
    if (c.accepted) return fail(`the cancel was accepted (status now ${c.status})`);
    if (c.httpStatus !== 409) return fail(`the cancel was refused with HTTP ${c.httpStatus} ${c.code}, not 409`);
    return pass(`409 ${c.code}: ${c.message}`);
  },
};

export const INVARIANTS: readonly Invariant[] = [statusOrder, historyReasons, eventsCoverSteps, deliveries, ledgerRow, cancelRefused];

/** The check that fails when the walk did not reach its outcome. */
export const walkFailed = (outcome: string, detail: string): CheckResult => ({ id: 'walk', name: `the walk reached ${outcome}`, status: 'fail', detail });

/** Every invariant over the facts, plus a failing `walk` check when the walk stopped part-way. */
export function evaluate(facts: SmokeFacts): CheckResult[] {
  const results = INVARIANTS.map((inv) => ({ id: inv.id, name: inv.name, ...inv.check(facts) }));
  if (facts.walkError) results.unshift(walkFailed(facts.outcome, facts.walkError));
  return results;
}
