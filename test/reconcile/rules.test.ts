// Reconciliation rules, one per kind of discrepancy, on hand-made data.
import { describe, expect, it } from 'vitest';
import { impliedEventTypes, reconcile, type ReconcileInput } from '../../src/lib/reconcile/check.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../../src/lib/schemas.js';
import { replayCommand } from '../../src/lib/webhooks/replay-command.js';
import { StatusTracker, eventFacts } from '../../src/lib/webhooks/status-tracker.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function tx(n: number, status: string, extra: Partial<Transaction> = {}): Transaction {
  const deposited = ['deposit_confirming', 'selling_crypto', 'order_filled', 'completed', 'refunded'].includes(status);
  const confirmed = ['selling_crypto', 'order_filled', 'completed'].includes(status);
  return {
    id: id(n),
    deposit_address: '0xabc',
    network: 'bep20',
    expires_at: '2026-11-01T10:30:00.000Z',
    status,
    crypto_currency: 'usdt',
    crypto_amount: '98.039215',
    rate: '1530.00',
    amount: '150000.00',
    deposit_status: deposited ? 'confirmed' : null,
    created_at: '2026-11-01T10:00:00.000Z',
    updated_at: '2026-11-01T10:05:00.000Z',
    deposit_id: deposited ? `dep_${n}` : null,
    received_at: deposited ? '2026-11-01T10:01:00.000Z' : null,
    confirmed_at: confirmed ? '2026-11-01T10:02:00.000Z' : null,
    merchant_reference: `ref-${n}`,
    ...extra,
  } as Transaction;
}

function row(t: Transaction, extra: Partial<RevenueRow> = {}): RevenueRow {
  return {
    transaction_id: t.id,
    merchant_id: null,
    merchant_reference: t.merchant_reference ?? null,
    terminal_id: null,
    crypto_currency: 'usdt',
    network: 'bep20',
    crypto_amount: t.crypto_amount,
    amount: t.amount,
    platform_fee: '1500.00',
    share: '375.00',
    ts: '2026-11-01T10:05:00.000Z',
    ...extra,
  };
}

let evtSeq = 0;
function events(t: Transaction, types: string[], status = 'delivered'): WebhookEvent[] {
  return types.map((type) => ({
    event_id: id(9000 + ++evtSeq),
    aggregate_id: t.id,
    event_type: type,
    delivery_status: status,
    attempts: 1,
    last_error: status === 'delivered' ? null : 'endpoint answered HTTP 500',
    created_at: t.created_at,
    updated_at: t.updated_at,
  }));
}

const FULL = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed'];

function run(partial: Partial<ReconcileInput>) {
  return reconcile({ transactions: [], ledger: [], events: [], earlier: new Map(), replayCommand: (ids) => replayCommand({ profile: 'staging' }, ids), ...partial });
}

describe('reconcile', () => {
  it('a completed transaction with its row and every event delivered is clean', () => {
    const t = tx(1, 'completed');
    expect(run({ transactions: [t], ledger: [row(t)], events: events(t, [...FULL, 'payout.settled']) })).toEqual([]);
    // Amounts compare as decimals: 150000 equals 150000.00.
    expect(run({ transactions: [t], ledger: [row(t, { amount: '150000' })], events: events(t, FULL) })).toEqual([]);
  });

  it('compares amounts exactly, however many digits: the 18th decimal of a token amount counts', () => {
    const t = tx(1, 'completed', { crypto_amount: '1000.123456789012345678', amount: '12345678901234567890.12' });
    expect(run({ transactions: [t], ledger: [row(t, { crypto_amount: '1000.1234567890123456780' })], events: events(t, FULL) })).toEqual([]);
    const found = run({ transactions: [t], ledger: [row(t, { crypto_amount: '1000.123456789012345679', amount: '12345678901234567890.13' })], events: events(t, FULL) });
    expect(found.map((d) => [d.kind, d.detail])).toEqual([
      ['amount_mismatch', 'amount 12345678901234567890.13 in the ledger, 12345678901234567890.12 on the transaction; crypto_amount 1000.123456789012345679 in the ledger, 1000.123456789012345678 on the transaction'],
    ]);
  });

  it('finds each kind of discrepancy', () => {
    const noRow = tx(1, 'completed');
    const notDone = tx(2, 'selling_crypto');
    const wrong = tx(3, 'completed');
    const twice = tx(4, 'completed');
    const undelivered = tx(5, 'awaiting_deposit');
    const ghost = id(6);
    const found = run({
      transactions: [noRow, notDone, wrong, twice, undelivered],
      ledger: [
        row(notDone),
        row(wrong, { amount: '150000.01', crypto_amount: '98.039216' }),
        row(twice),
        row(twice, { ts: '2026-11-01T10:06:00.000Z' }),
        row(tx(6, 'completed'), { transaction_id: ghost, merchant_reference: 'seed-1' }),
      ],
      events: [
        ...events(noRow, ['transaction.created', 'deposit.detected', 'transaction.completed']),
        ...events(notDone, ['transaction.created', 'deposit.detected', 'deposit.confirmed']),
        ...events(wrong, FULL),
        ...events(twice, FULL),
        ...events(undelivered, ['transaction.created'], 'failed'),
      ],
      earlier: new Map([[ghost, null]]),
    });
    const kinds = found.map((d) => [d.merchant_reference, d.kind]);
    expect(kinds).toEqual([
      ['ref-1', 'completed_without_ledger_row'],
      ['ref-1', 'event_missing'],
      ['ref-2', 'ledger_row_not_completed'],
      ['ref-3', 'amount_mismatch'],
      ['ref-4', 'duplicate_ledger_rows'],
      ['ref-5', 'event_not_delivered'],
      ['seed-1', 'ledger_row_without_transaction'],
    ]);
    expect(found[1]!.detail).toMatch(/no deposit\.confirmed event/);
    expect(found[1]!.fix).toBeUndefined();
    expect(found[3]!.detail).toBe('amount 150000.01 in the ledger, 150000.00 on the transaction; crypto_amount 98.039216 in the ledger, 98.039215 on the transaction');
    expect(found[5]!.fix).toBe(`offramp --profile staging webhooks replay ${found[5]!.event_id}`);
    expect(found[5]!.detail).toBe('transaction.created is failed after 1 attempt (endpoint answered HTTP 500)');
  });

  it('reads delivery words as the profile names them; a word it does not know is its own finding, never a guess', () => {
    const t = tx(1, 'completed');
    const words = { delivered: 'succeeded', failed: 'errored' };
    expect(run({ transactions: [t], ledger: [row(t)], events: events(t, FULL, 'succeeded'), delivery: words })).toEqual([]);
    const failed = run({ transactions: [t], ledger: [row(t)], events: events(t, ['transaction.created'], 'errored'), delivery: words });
    expect(failed.filter((d) => d.kind !== 'event_missing').map((d) => d.kind)).toEqual(['event_not_delivered']);
    // Without the words: "succeeded" is neither delivered nor failed to the CLI.
    const unknown = run({ transactions: [t], ledger: [row(t)], events: events(t, FULL, 'succeeded') });
    expect(unknown.map((d) => d.kind)).toEqual(Array(4).fill('event_status_unknown'));
    expect(unknown[0]!.detail).toBe('transaction.created has delivery_status "succeeded", which is neither "delivered" nor "failed"');
    expect(unknown[0]!.fix).toMatch(/offramp conform --save/);
  });

  it('checks ledger rows of earlier transactions against them', () => {
    const earlier = tx(7, 'failed');
    const found = run({ ledger: [row(earlier)], earlier: new Map([[earlier.id, earlier]]) });
    expect(found.map((d) => d.kind)).toEqual(['ledger_row_not_completed']);
  });
});

describe('impliedEventTypes', () => {
  it('follows the snapshot and the shortest lifecycle path', () => {
    expect(impliedEventTypes(tx(1, 'awaiting_deposit'))).toEqual(['transaction.created']);
    expect(impliedEventTypes(tx(1, 'cancelled'))).toEqual(['transaction.created']);
    expect(impliedEventTypes(tx(1, 'expired'))).toEqual(['transaction.created', 'transaction.expired']);
    expect(impliedEventTypes(tx(1, 'completed')).sort()).toEqual([...FULL].sort());
    expect(impliedEventTypes(tx(1, 'refunded')).sort()).toEqual(['deposit.detected', 'transaction.created', 'transaction.failed', 'transaction.refunded']);
    expect(impliedEventTypes(tx(1, 'failed'))).toEqual(['transaction.created', 'transaction.failed']);
  });
});

describe('webhook status tracking', () => {
  it('moves forward only; the same status again is not out of order', () => {
    const t = new StatusTracker();
    expect(t.apply('a', 'awaiting_deposit')).toEqual({ status: 'awaiting_deposit', outOfOrder: false });
    expect(t.apply('a', 'completed').status).toBe('completed');
    expect(t.apply('a', 'deposit_confirming')).toEqual({ status: 'completed', outOfOrder: true });
    expect(t.apply('a', 'completed').outOfOrder).toBe(false);
    expect(t.apply('b', 'failed').status).toBe('failed');
    expect(t.apply('b', 'refunded').status).toBe('refunded');
    expect(t.apply(undefined, 'failed')).toEqual({ status: undefined, outOfOrder: false });
  });

  it('reads the transaction and status from the event', () => {
    expect(eventFacts('deposit.detected', { id: 'tx-1', status: 'whatever' })).toEqual({ transactionId: 'tx-1', status: 'deposit_confirming' });
    expect(eventFacts('custom.event', { transaction_id: 'tx-2', status: 'failed' })).toEqual({ transactionId: 'tx-2', status: 'failed' });
    expect(eventFacts('custom.event', undefined)).toEqual({});
  });

  it('replay commands quote an odd profile name', () => {
    expect(replayCommand({}, ['a', 'b'])).toBe('offramp webhooks replay a b');
    expect(replayCommand({ profile: "my prof'" }, ['a'])).toBe(`offramp --profile 'my prof'\\''' webhooks replay a`);
  });
});
