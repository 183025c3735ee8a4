// Smoke, the I/O half: one walk, then read back what the service says about it (history,
// listed events and their telemetry, the ledger, a cancel attempt) into SmokeFacts, which
// invariants.ts judges. Reads that may lag behind the walk on a real service (events,
// ledger) are retried a few times before a missing item counts as missing.
import { randomUUID } from 'node:crypto';
import { answerAbout, statusHistory, webhookEvent } from '../client/checked-calls.js';
import type { Api } from '../client/api.js';
import { ApiError, AuthError, describeError, NetworkError, TimeoutError } from '../errors.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../schemas.js';
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS } from '../config/profile.js';
import { deliveryOver, expectedEventTypes, missingEvents, type CancelAttempt, type Fact, type SmokeFacts } from './invariants.js';
import { runWalk, WalkInterrupted, type WalkHooks, type WalkOptions } from './walk.js';

/** The walk's (a new transaction, with payout.settled after a completion), then the reads of lagging data: tries and the pause between them. */
export type CollectOptions = Pick<WalkOptions, 'outcome' | 'now' | 'sleep' | 'timeoutMs'> & { hooks?: WalkHooks; tries?: number; pauseMs?: number };

/** Errors that mean "could not talk to the service" rather than "the service broke a rule". */
export function isUnreachable(err: unknown): boolean {
  return (
    err instanceof NetworkError ||
    err instanceof TimeoutError ||
    err instanceof AuthError ||
    (err instanceof ApiError && (err.status === 401 || err.status === 403))
  );
}

export async function collectFacts(api: Api, opts: CollectOptions): Promise<SmokeFacts> {
  const { hooks, tries, pauseMs, ...walk } = opts;
  const facts: SmokeFacts = { outcome: opts.outcome, steps: [] };
  try {
    const walked = await runWalk(api, { ...walk, settle: opts.outcome === 'completed' }, hooks);
    facts.transaction = walked.transaction;
    facts.transactionId = walked.transaction.id;
    facts.steps = walked.steps;
  } catch (err) {
    if (!(err instanceof WalkInterrupted)) throw err;
    if (isUnreachable(err.cause)) throw err.cause;
    facts.steps = err.steps;
    facts.walkError = describeError(err.cause);
    if (err.transactionId) facts.transactionId = err.transactionId;
  }
  const id = facts.transactionId;
  if (!id) return facts;

  const retry = { tries: tries ?? 4, pauseMs: pauseMs ?? 250, sleep: opts.sleep };

  facts.history = await read(async () => (await statusHistory(api, id)).history);

  const expected = expectedEventTypes(facts.steps);
  const listEvents = async () => {
    const events: WebhookEvent[] = [];
    for await (const e of api.webhooks.all({ transaction_id: id })) events.push(e);
    return events;
  };
  facts.events = await eventually(retry, (events) => missingEvents(events.map((e) => e.event_type), expected).length === 0, listEvents);
  if (facts.events.ok) {
    facts.telemetry = {};
    for (const e of facts.events.value) {
      facts.telemetry[e.event_id] = await read(() => webhookEvent(api, e.event_id));
    }
    // Deliveries run in the background, retried by the service: read again until each is
    // delivered or failed, within the step timeout.
    const service = api.service ?? {};
    const names = {
      delivered: service.deliveredStatus ?? DEFAULT_DELIVERED_STATUS,
      failed: service.failedStatus ?? DEFAULT_FAILED_STATUS,
      named: service.deliveredStatus !== undefined || service.failedStatus !== undefined,
    };
    facts.deliveryNames = names;
    const tries = Math.max(retry.tries, Math.ceil(opts.timeoutMs / retry.pauseMs));
    facts.deliveries = await eventually({ ...retry, tries }, (events) => events.every((e) => deliveryOver(e, names)), listEvents);
  }

  const tx = facts.transaction;
  if (tx?.status === 'completed') {
    facts.ledger = await eventually(retry, (v) => v.rows.length > 0, () => ledgerRows(api, tx, opts.now()));
    facts.cancel = await read(async (): Promise<CancelAttempt> => {
      try {
        const answer = answerAbout(await api.transactions.cancel(id, randomUUID()), id, 'asked to cancel transaction');
        return { accepted: true, status: answer.status };
      } catch (err) {
        if (err instanceof ApiError) return { accepted: false, httpStatus: err.status, code: err.code, message: err.message };
        throw err;
      }
    });
  }
  return facts;
}

/**
 * The ledger rows of `tx` in GET /revenue, and the window searched. The row is dated at
 * completion: from a minute before creation to a minute from now covers it with room for
 * clock skew, well inside the 90-day limit.
 */
export async function ledgerRows(api: Api, tx: Transaction, now: Date): Promise<{ rows: RevenueRow[]; from: string; to: string }> {
  const from = new Date(Date.parse(tx.created_at) - 60_000).toISOString();
  const to = new Date(now.getTime() + 60_000).toISOString();
  const rows: RevenueRow[] = [];
  for await (const row of api.revenue.all({ from, to })) if (row.transaction_id === tx.id) rows.push(row);
  return { rows, from, to };
}

async function read<T>(fn: () => Promise<T>): Promise<Fact<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (isUnreachable(err)) throw err;
    return { ok: false, error: describeError(err) };
  }
}

/** Reads until `done` holds or the tries run out; the last answer stands either way. */
async function eventually<T>(
  retry: { tries: number; pauseMs: number; sleep(ms: number): Promise<void> },
  done: (value: T) => boolean,
  fn: () => Promise<T>,
): Promise<Fact<T>> {
  let last: Fact<T> = { ok: false, error: 'not read' };
  for (let i = 0; i < retry.tries; i++) {
    if (i > 0) await retry.sleep(retry.pauseMs);
    last = await read(fn);
    if (last.ok && done(last.value)) return last;
  }
  return last;
}

