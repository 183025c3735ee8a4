// Reconciliation rules (docs/finance.md, "`offramp reconcile`"): given a window's
// transactions, the ledger rows that may belong to them and their webhook events, list what
// does not agree, per transaction. Pure: the command fetches, this decides, so every rule is
// tested without a server. Events are checked beside the ledger because the spec says
// "webhook delivery timing must not be the only source of truth".
import { DEFAULT_DELIVERED_STATUS, DEFAULT_FAILED_STATUS, PENDING_STATUS } from '../config/profile.js';
import { decimalEquals } from '../money.js';
import { TRANSITIONS } from '../lifecycle.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../schemas.js';
import type { SimulatorEvent } from '../vocabulary.js';

export const DISCREPANCY_KINDS = [
  'completed_without_ledger_row',
  'ledger_row_not_completed',
  'ledger_row_without_transaction',
  'duplicate_ledger_rows',
  'amount_mismatch',
  'event_missing',
  'event_not_delivered',
  'event_status_unknown',
] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

export type Discrepancy = {
  transaction_id: string;
  merchant_reference: string | null;
  kind: DiscrepancyKind;
  detail: string;
  event_id?: string;
  event_type?: string;
  /** The command that fixes it, when one does. */
  fix?: string;
};

export type ReconcileInput = {
  /** Transactions created in the window: ledger and events are checked. */
  transactions: Transaction[];
  /** Ledger rows of those transactions, and every row stamped inside the window. */
  ledger: RevenueRow[];
  /** Events of the window's transactions. */
  events: WebhookEvent[];
  /** Transactions behind in-window ledger rows that were created before the window (null: not found). */
  earlier: Map<string, Transaction | null>;
  replayCommand: (eventIds: string[]) => string;
  /** The service's words for a delivered and a failed event (docs/api.md, profile settings). */
  delivery?: { delivered: string; failed: string };
};

export function reconcile(input: ReconcileInput): Discrepancy[] {
  const out: Discrepancy[] = [];
  const delivery = input.delivery ?? { delivered: DEFAULT_DELIVERED_STATUS, failed: DEFAULT_FAILED_STATUS };
  const rowsByTx = groupBy(input.ledger, (r) => r.transaction_id);
  const eventsByTx = groupBy(input.events, (e) => e.aggregate_id);

  const checkLedger = (txId: string, tx: Transaction | null, rows: RevenueRow[]) => {
    const ref = tx?.merchant_reference ?? rows[0]?.merchant_reference ?? null;
    const add = (kind: DiscrepancyKind, detail: string) => out.push({ transaction_id: txId, merchant_reference: ref, kind, detail });
    if (!tx) {
      if (rows.length > 0) add('ledger_row_without_transaction', `ledger row at ${rows[0]!.ts}, but the service has no such transaction`);
      return;
    }
    if (rows.length > 1) add('duplicate_ledger_rows', `${rows.length} ledger rows (at ${rows.map((r) => r.ts).join(', ')})`);
    if (tx.status === 'completed' && rows.length === 0) add('completed_without_ledger_row', `completed (updated ${tx.updated_at}) but no ledger row`);
    if (tx.status !== 'completed' && rows.length > 0) add('ledger_row_not_completed', `ledger row at ${rows[0]!.ts}, but the transaction is ${tx.status}`);
    for (const row of rows) {
      const diffs: string[] = [];
      if (!decimalEquals(row.amount, tx.amount)) diffs.push(`amount ${row.amount} in the ledger, ${tx.amount} on the transaction`);
      if (!decimalEquals(row.crypto_amount, tx.crypto_amount)) diffs.push(`crypto_amount ${row.crypto_amount} in the ledger, ${tx.crypto_amount} on the transaction`);
      if (diffs.length) add('amount_mismatch', diffs.join('; '));
    }
  };

  for (const tx of input.transactions) {
    checkLedger(tx.id, tx, rowsByTx.get(tx.id) ?? []);
    const add = (kind: DiscrepancyKind, detail: string, e?: WebhookEvent, fix?: string) =>
      out.push({ transaction_id: tx.id, merchant_reference: tx.merchant_reference ?? null, kind, detail, ...(e ? { event_id: e.event_id, event_type: e.event_type, fix } : {}) });
    const events = eventsByTx.get(tx.id) ?? [];
    const present = new Set(events.map((e) => e.event_type));
    const missing = impliedEventTypes(tx).filter((type) => !present.has(type));
    if (missing.length > 0) add('event_missing', `status ${tx.status} but no ${missing.join(', ')} event in the history (nothing to replay; ask the service operator)`);
    for (const e of events) {
      if (e.delivery_status === delivery.delivered) continue;
      if (e.delivery_status !== delivery.failed && e.delivery_status !== PENDING_STATUS) {
        // A word the CLI does not know could mean either; calling it undelivered (or
        // delivered) would be a guess presented as a finding.
        const detail = `${e.event_type} has delivery_status "${e.delivery_status}", which is neither "${delivery.delivered}" nor "${delivery.failed}"`;
        add('event_status_unknown', detail, e, '`offramp conform --save` records the words this service uses');
      } else {
        const detail = `${e.event_type} is ${e.delivery_status} after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}${e.last_error ? ` (${e.last_error})` : ''}`;
        add('event_not_delivered', detail, e, input.replayCommand([e.event_id]));
      }
    }
  }
  for (const [txId, tx] of input.earlier) checkLedger(txId, tx, rowsByTx.get(txId) ?? []);
  return out;
}

/**
 * The lifecycle events a transaction's snapshot proves happened: `transaction.created`
 * always; `deposit.detected` when a deposit was seen; `deposit.confirmed` when it was
 * confirmed; and the events on the shortest lifecycle path to the current status
 * (lifecycle.TRANSITIONS). `payout.settled` is never implied: no snapshot field shows it.
 */
export function impliedEventTypes(tx: Pick<Transaction, 'status' | 'deposit_id' | 'received_at' | 'confirmed_at'>): string[] {
  const types = new Set<string>(['transaction.created']);
  if (tx.deposit_id || tx.received_at) types.add('deposit.detected');
  if (tx.confirmed_at) types.add('deposit.confirmed');
  for (const event of pathTo(tx.status)) types.add(event);
  return [...types];
}

/** Simulator events leading from awaiting_deposit to `status` by the fewest steps. */
function pathTo(status: string): SimulatorEvent[] {
  const start = 'awaiting_deposit';
  const queue: { at: string; path: SimulatorEvent[] }[] = [{ at: start, path: [] }];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const { at, path } = queue.shift()!;
    if (at === status) return path;
    for (const [event, t] of Object.entries(TRANSITIONS) as [SimulatorEvent, (typeof TRANSITIONS)[SimulatorEvent]][]) {
      const last = t.steps[t.steps.length - 1];
      if (!last || !(t.from as readonly string[]).includes(at) || seen.has(last.to)) continue;
      seen.add(last.to);
      queue.push({ at: last.to, path: [...path, event] });
    }
  }
  return [];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}
