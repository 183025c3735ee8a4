// The transaction lifecycle as data: which simulator event (or partner action) moves a
// transaction from which status to which, with which history reasons. The emulator runs
// transactions through it; the CLI reads it to explain a 409, to know when `tx watch` is
// done, and to keep a webhook listener's status from moving backwards. Most edges are the
// spec's "not shown": our choices are listed in docs/emulator.md, "Lifecycle".
import { TRANSACTION_STATUSES, type SimulatorEvent, type TransactionStatus } from './vocabulary.js';

export type Step = { to: TransactionStatus; reason: string };

export type Transition = {
  /** Statuses the event is valid from. */
  from: readonly TransactionStatus[];
  /** Status changes it makes, in order; empty when it only emits a webhook. */
  steps: readonly Step[];
  /** Extra condition beyond the status, checked by `refusal`. */
  needsDeposit?: boolean;
  /** Valid at most once per transaction (payout.settled). */
  once?: boolean;
};

/**
 * Statuses a transaction normally rests in. `failed` counts as final for watching
 * (the transaction will not complete), though a refund may still follow it.
 */
export const FINAL_STATUSES: readonly TransactionStatus[] = ['completed', 'failed', 'expired', 'cancelled', 'refunded'];

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

export const TRANSITIONS: Record<SimulatorEvent, Transition> = {
  'deposit.detected': {
    from: ['awaiting_deposit'],
    steps: [{ to: 'deposit_confirming', reason: 'deposit:detected' }],
  },
  'deposit.confirmed': {
    from: ['deposit_confirming'],
    steps: [{ to: 'selling_crypto', reason: 'deposit:confirmed' }],
  },
  'transaction.completed': {
    from: ['selling_crypto'],
    steps: [
      { to: 'order_filled', reason: 'order:filled' },
      { to: 'completed', reason: 'order:settled' },
    ],
  },
  'transaction.failed': {
    from: TRANSACTION_STATUSES.filter((s) => !isFinal(s)),
    steps: [{ to: 'failed', reason: 'transaction:failed' }],
  },
  'transaction.expired': {
    from: ['awaiting_deposit'],
    steps: [{ to: 'expired', reason: 'deposit:expired' }],
  },
  'transaction.refunded': {
    from: ['failed'],
    steps: [{ to: 'refunded', reason: 'transaction:refunded' }],
    needsDeposit: true,
  },
  'payout.settled': {
    from: ['completed'],
    steps: [],
    once: true,
  },
};

/** The first history row of every transaction: created straight into awaiting_deposit. */
export const CREATED_STEP = { from: 'pending', to: 'awaiting_deposit', reason: 'transaction:created' } as const;

/** Cancellation is allowed only before any deposit was seen. */
export const CANCELLABLE: readonly TransactionStatus[] = ['pending', 'awaiting_deposit'];
export const CANCEL_STEP: Step = { to: 'cancelled', reason: 'partner:cancelled' };

/** Deposit deadline passed with nothing received: the edge transaction.expired takes. */
export const EXPIRY_STEP: Step = TRANSITIONS['transaction.expired'].steps[0]!;

export type TransactionFacts = { status: string; hasDeposit: boolean; payoutSettled: boolean };

/** Why `event` is not a valid step for the transaction, or null when it is. */
export function refusal(event: SimulatorEvent, tx: TransactionFacts): string | null {
  const t = TRANSITIONS[event];
  if (!(t.from as readonly string[]).includes(tx.status)) {
    return `event ${event} is not valid for a transaction in status ${tx.status}`;
  }
  if (t.needsDeposit && !tx.hasDeposit) return `event ${event} needs a received deposit to refund`;
  if (t.once && tx.payoutSettled) return `event ${event} was already applied to this transaction`;
  return null;
}

/** Simulator events that are valid from a status (ignoring the deposit/once conditions). */
export function eventsValidFrom(status: string): SimulatorEvent[] {
  return (Object.keys(TRANSITIONS) as SimulatorEvent[]).filter((e) =>
    (TRANSITIONS[e].from as readonly string[]).includes(status),
  );
}

const EDGES: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const edges = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  };
  add(CREATED_STEP.from, CREATED_STEP.to);
  for (const from of CANCELLABLE) add(from, CANCEL_STEP.to);
  add('awaiting_deposit', EXPIRY_STEP.to);
  for (const t of Object.values(TRANSITIONS)) {
    for (const from of t.from) {
      let at: string = from;
      for (const step of t.steps) {
        add(at, step.to);
        at = step.to;
      }
    }
  }
  return edges;
})();

/** Whether the lifecycle has a direct edge from one status to another. */
export function isEdge(from: string, to: string): boolean {
  return EDGES.get(from)?.has(to) ?? false;
}

/** Whether `to` can follow `from` through one or more edges (a forward move). */
export function isForward(from: string, to: string): boolean {
  const reached = new Set(EDGES.get(from));
  // A Set's iterator also visits what is added while it runs: this walks every path out of `from`.
  for (const at of reached) for (const next of EDGES.get(at) ?? []) reached.add(next);
  return reached.has(to);
}

/** Which transaction status a lifecycle webhook event reports: where its last step leads (payout.settled: completed, where it is valid). */
export const STATUS_OF_EVENT: Record<string, TransactionStatus> = {
  'transaction.created': CREATED_STEP.to,
  ...Object.fromEntries(Object.entries(TRANSITIONS).map(([event, t]) => [event, t.steps.at(-1)?.to ?? t.from[0]!])),
};
