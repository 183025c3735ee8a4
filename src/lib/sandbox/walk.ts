// The walk: drive one staging transaction to an outcome with the simulator, reading the
// transaction after every step; `simulate walk`, `smoke` and `demo` each render the steps
// their own way (timeline.ts). Which events lead to which outcome: docs/sandbox.md.
//
// A step counts only once the transaction is seen in the status the step leads to (see
// `reached`): a simulator that answers 200 and changes nothing must not end in exit 0.
import { randomBytes, randomUUID } from 'node:crypto';
import { simulateEvent, transactionById } from '../client/checked-calls.js';
import type { Api } from '../client/api.js';
import { ApiError, CheckFailed, CliError, EXIT } from '../errors.js';
import { eventsValidFrom, isFinal, TRANSITIONS } from '../lifecycle.js';
import type { Transaction } from '../schemas.js';
import { createWithRecovery } from '../tx/create.js';
import { SANDBOX_PAIR, type SimulatorEvent } from '../vocabulary.js';
import { explainConflict, validEventsHint } from './conflict.js';

export const OUTCOMES = ['completed', 'failed', 'expired', 'refunded'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a new walk transaction is made of: the sandbox pair (SANDBOX_PAIR) and this modest NGN amount. */
export const WALK_FIAT_AMOUNT = '50000';

/** The simulator events that take a fresh transaction (awaiting_deposit) to `outcome`. */
export function eventsFor(outcome: Outcome, settle: boolean): SimulatorEvent[] {
  switch (outcome) {
    case 'completed':
      return ['deposit.detected', 'deposit.confirmed', 'transaction.completed', ...(settle ? (['payout.settled'] as const) : [])];
    case 'failed':
      return ['deposit.detected', 'deposit.confirmed', 'transaction.failed'];
    case 'refunded':
      return ['deposit.detected', 'deposit.confirmed', 'transaction.failed', 'transaction.refunded'];
    case 'expired':
      return ['transaction.expired'];
  }
}

/**
 * The rest of the path for a transaction already in `status`: the plan from its first
 * event that is valid now; [] when it already rests at the outcome; null when the
 * outcome cannot be reached from there.
 */
export function remainingEvents(status: string, outcome: Outcome, settle: boolean): SimulatorEvent[] | null {
  const plan = eventsFor(outcome, settle);
  const valid = new Set<string>(eventsValidFrom(status));
  const start = plan.findIndex((event) => valid.has(event));
  if (start >= 0) return plan.slice(start);
  return status === outcome ? [] : null;
}

/** A reference nobody else uses: `walk-20261122T143105Z-3f9a1c`. */
export function walkReference(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `walk-${stamp}-${randomBytes(3).toString('hex')}`;
}

export type StepName = 'read' | 'quote' | 'create' | SimulatorEvent;

/** One step as `--json` prints it: what was done, the status before and after, when. */
export type WalkStep = {
  step: StepName;
  status_before: string | null;
  status: string | null;
  at: string;
  ms: number;
  /** Identifiers worth showing: quote id and rate, reference, idempotency key. */
  detail?: Record<string, string>;
};

export type WalkHooks = {
  /** A step is about to start (spinners). */
  onBegin?(info: { n: number; total: number; step: StepName }): void;
  /** A line worth showing between steps (e.g. a create recovered after a lost answer). */
  onNote?(line: string): void;
  /** A step finished. */
  onStep?(info: { n: number; total: number; step: WalkStep }): void;
};

export type WalkOptions = {
  /** Walk this transaction; a new one is created when absent. */
  txId?: string;
  outcome: Outcome;
  settle: boolean;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** How long a step may take to show its status after the simulator answered (the global --timeout). */
  timeoutMs: number;
  /** Pause between reads while a step has not shown its status yet. */
  pollMs?: number;
  /** Merchant reference for a new transaction (default: walkReference). */
  reference?: string;
};

/** Reads while waiting for a step: often enough to follow a service, seldom enough to spare it. */
export const CONFIRM_POLL_MS = 500;

/** A walk stopped part-way, with the steps done so far, so smoke can still report on them. */
export class WalkInterrupted extends Error {
  constructor(
    override readonly cause: unknown,
    readonly steps: WalkStep[],
    readonly transactionId: string | undefined,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export async function runWalk(api: Api, opts: WalkOptions, hooks: WalkHooks = {}): Promise<{ transaction: Transaction; steps: WalkStep[] }> {
  const steps: WalkStep[] = [];
  let txId = opts.txId;
  let n = 0;
  let total = 0;

  /** Runs one step, times it, records it, tells the hooks. */
  const step = async (
    name: StepName,
    before: string | null,
    body: () => Promise<{ status: string | null; detail?: Record<string, string>; transaction?: Transaction }>,
  ) => {
    n += 1;
    hooks.onBegin?.({ n, total, step: name });
    const started = performance.now();
    const done = await body();
    const record: WalkStep = {
      step: name,
      status_before: before,
      status: done.status,
      at: opts.now().toISOString(),
      ms: Math.round(performance.now() - started),
      ...(done.detail ? { detail: done.detail } : {}),
    };
    steps.push(record);
    hooks.onStep?.({ n, total, step: record });
    return done;
  };

  try {
    let transaction: Transaction;
    let events: SimulatorEvent[];
    if (txId) {
      const id = txId;
      // The plan depends on where the transaction is now, so read it first; until then the
      // number of steps is not known (0).
      let rest: SimulatorEvent[] | null = null;
      const read = await step('read', null, async () => {
        const tx = await transactionById(api, id);
        rest = remainingEvents(tx.status, opts.outcome, opts.settle);
        if (rest) total = 1 + rest.length;
        return { status: tx.status, transaction: tx };
      });
      transaction = read.transaction!;
      if (rest === null) {
        throw new CliError(
          `transaction ${id} is ${transaction.status}; it cannot be walked to ${opts.outcome} from there`,
          'CONFLICT',
          EXIT.conflict,
          validEventsHint(transaction.status),
        );
      }
      events = rest;
    } else {
      events = eventsFor(opts.outcome, opts.settle);
      total = 2 + events.length;
      const quote = await step('quote', null, async () => {
        const q = (await api.quotes.create({ ...SANDBOX_PAIR, fiat_amount: WALK_FIAT_AMOUNT })).data;
        return { status: null, detail: { quote_id: q.quote_id, adjusted_rate: q.adjusted_rate, fiat_amount: WALK_FIAT_AMOUNT, crypto_currency: SANDBOX_PAIR.crypto_currency } };
      });
      const ref = opts.reference ?? walkReference(opts.now());
      const created = await step('create', null, async () => {
        const key = randomUUID();
        const body = { quote_id: quote.detail!.quote_id!, network: SANDBOX_PAIR.network, merchant_reference: ref };
        const retry = `offramp tx create --quote ${body.quote_id} --network ${body.network} --ref ${ref} --idempotency-key ${key}`;
        const { tx: summary } = await createWithRecovery(api, body, key, {
          note: hooks.onNote ?? (() => undefined),
          retry,
          keyGiven: false,
          token: SANDBOX_PAIR.crypto_currency,
        });
        txId = summary.id;
        const tx = await transactionById(api, summary.id);
        return {
          status: tx.status,
          transaction: tx,
          detail: { transaction_id: tx.id, merchant_reference: ref, idempotency_key: key, crypto_amount: tx.crypto_amount, amount: tx.amount },
        };
      });
      transaction = created.transaction!;
    }

    for (const event of events) {
      const id = transaction.id;
      const before = transaction.status;
      const done = await step(event, before, async () => {
        let answer: Transaction;
        try {
          answer = await simulateEvent(api, { transaction_id: id, event });
        } catch (err) {
          throw err instanceof ApiError && err.status === 409 ? await explainConflict(api, id, event, err) : err;
        }
        const tx = await reached(api, opts, event, before, answer);
        return { status: tx.status, transaction: tx };
      });
      transaction = done.transaction!;
    }
    return { transaction, steps };
  } catch (err) {
    throw new WalkInterrupted(err, steps, txId);
  }
}

/**
 * The transaction once a read (or the answer itself) shows the status `event` leads to. The
 * spec says simulated events go through "the same deposit and lifecycle machinery as normal
 * processing", so a service may apply one after it answered: the read is repeated until the
 * global --timeout has passed, then the step did not happen (exit 8).
 */
async function reached(api: Api, opts: WalkOptions, event: SimulatorEvent, before: string, answer: Transaction): Promise<Transaction> {
  // The status the event leads to (payout.settled changes none).
  const expected = TRANSITIONS[event].steps.at(-1)?.to ?? before;
  const started = opts.now().getTime();
  const deadline = started + opts.timeoutMs;
  let tx = await transactionById(api, answer.id);
  if (tx.status === expected) return tx;
  if (answer.status === expected) return answer;
  // A final status other than the one the step started from will not change any more.
  const finalElsewhere = () => tx.status !== before && isFinal(tx.status);
  while (!finalElsewhere()) {
    const left = deadline - opts.now().getTime();
    if (left <= 0) break;
    await opts.sleep(Math.min(opts.pollMs ?? CONFIRM_POLL_MS, left));
    tx = await transactionById(api, answer.id);
    if (tx.status === expected) return tx;
  }
  const waited = opts.now().getTime() - started;
  throw new CheckFailed(
    `step ${event} did not take effect: transaction ${tx.id} should be ${expected}, and is ${tx.status} (the simulator answered ${answer.status}; read for ${waited} ms after it)`,
    finalElsewhere()
      ? `\`offramp tx history ${tx.id}\` shows how it got there`
      : `a service may apply simulated events some time after it answers: a larger --timeout (now ${opts.timeoutMs} ms) waits longer; \`offramp tx history ${tx.id}\` shows what happened`,
  );
}

/**
 * The words after `offramp` and its global flags that continue a walk of transaction `txId`
 * stopped part-way: a walk of an existing transaction reads it first and takes the rest of
 * the path from there (remainingEvents).
 */
export function continuingWalk(txId: string, outcome: Outcome, settle: boolean): string[] {
  return ['simulate', 'walk', txId, '--outcome', outcome, ...(settle ? ['--settle'] : [])];
}
