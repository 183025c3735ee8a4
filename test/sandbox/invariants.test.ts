import { describe, expect, it } from 'vitest';
import {
  cancelRefused,
  deliveries,
  evaluate,
  eventsCoverSteps,
  expectedEventTypes,
  historyReasons,
  ledgerRow,
  statusOrder,
  type SmokeFacts,
} from '../../src/lib/sandbox/invariants.js';
import type { RevenueRow, StatusHistoryEntry, Transaction, WebhookEvent } from '../../src/lib/schemas.js';
import type { WalkStep } from '../../src/lib/sandbox/walk.js';

const TX = '0b6f3c1e-8d2a-4f51-9c1e-2a7d5e9b1c91';
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();

const tx = (status: string, amount = '50000.00') =>
  ({ id: TX, status, amount, crypto_amount: '32.42', crypto_currency: 'usdt', network: 'bep20', created_at: at(0) }) as unknown as Transaction;

const h = (from: string, to: string, reason: string, s: number): StatusHistoryEntry => ({ from_status: from, to_status: to, reason, changed_at: at(s), metadata: null });

const HISTORY = [
  h('pending', 'awaiting_deposit', 'transaction:created', 0),
  h('awaiting_deposit', 'deposit_confirming', 'deposit:detected', 1),
  h('deposit_confirming', 'selling_crypto', 'deposit:confirmed', 2),
  h('selling_crypto', 'order_filled', 'order:filled', 3),
  h('order_filled', 'completed', 'order:settled', 3),
];

const step = (name: WalkStep['step'], before: string | null, after: string | null): WalkStep => ({ step: name, status_before: before, status: after, at: at(0), ms: 1 });
const STEPS = [
  step('quote', null, null),
  step('create', null, 'awaiting_deposit'),
  step('deposit.detected', 'awaiting_deposit', 'deposit_confirming'),
  step('deposit.confirmed', 'deposit_confirming', 'selling_crypto'),
  step('transaction.completed', 'selling_crypto', 'completed'),
  step('payout.settled', 'completed', 'completed'),
];

let n = 0;
const evt = (type: string): WebhookEvent => ({
  event_id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  aggregate_id: TX,
  event_type: type,
  delivery_status: 'delivered',
  attempts: 1,
  last_error: null,
  created_at: at(0),
  updated_at: at(0),
});

const row = (amount: string): RevenueRow =>
  ({ transaction_id: TX, amount, share: '125.00', platform_fee: '500.00', crypto_amount: '32.42', crypto_currency: 'usdt', network: 'bep20', ts: at(3) }) as RevenueRow;

function goodFacts(): SmokeFacts {
  const events = ['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled'].map(evt);
  return {
    outcome: 'completed',
    transaction: tx('completed'),
    transactionId: TX,
    steps: STEPS,
    history: { ok: true, value: HISTORY },
    events: { ok: true, value: events },
    telemetry: Object.fromEntries(events.map((e) => [e.event_id, { ok: true, value: e }])),
    deliveries: { ok: true, value: events },
    ledger: { ok: true, value: { rows: [row('50000')], from: at(0), to: at(9) } },
    cancel: { ok: true, value: { accepted: false, httpStatus: 409, code: 'CONFLICT', message: 'cannot cancel' } },
  };
}

describe('smoke invariants', () => {
  it('all hold for a clean completed walk (amounts compared as decimals: 50000 = 50000.00)', () => {
    const results = evaluate(goodFacts());
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['status-order', 'pass'],
      ['history-reasons', 'pass'],
      ['events-cover-steps', 'pass'],
      ['deliveries', 'pass'],
      ['ledger-row', 'pass'],
      ['cancel-refused', 'pass'],
    ]);
    expect(results[0]!.detail).toBe('pending → awaiting_deposit → deposit_confirming → selling_crypto → order_filled → completed');
  });

  describe('status order', () => {
    it('fails on an edge the lifecycle does not have', () => {
      const f = goodFacts();
      f.history = { ok: true, value: [HISTORY[0]!, h('awaiting_deposit', 'completed', 'order:settled', 1)] };
      expect(statusOrder.check(f)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/awaiting_deposit → completed is not a lifecycle transition/) });
    });
    it('fails when entries do not chain', () => {
      const f = goodFacts();
      f.history = { ok: true, value: [...HISTORY].reverse() };
      expect(statusOrder.check(f).status).toBe('fail');
    });
    it('fails when dated backwards', () => {
      const f = goodFacts();
      f.history = { ok: true, value: [HISTORY[0]!, { ...HISTORY[1]!, changed_at: '2026-11-21T00:00:00.000Z' }] };
      f.outcome = 'completed';
      expect(statusOrder.check(f).detail).toMatch(/dated before/);
    });
    it('fails when an observed status moved backwards', () => {
      const f = goodFacts();
      f.steps = [...STEPS.slice(0, 3), step('deposit.confirmed', 'deposit_confirming', 'awaiting_deposit')];
      expect(statusOrder.check(f).detail).toMatch(/cannot follow deposit_confirming/);
    });
    it('fails when the history does not end at the outcome or disagrees with the snapshot', () => {
      const f = goodFacts();
      f.history = { ok: true, value: HISTORY.slice(0, 3) };
      expect(statusOrder.check(f).detail).toMatch(/ends at selling_crypto but the transaction reads completed/);
      f.transaction = tx('selling_crypto');
      expect(statusOrder.check(f).detail).toMatch(/to end at completed/);
    });
    it('fails when the history could not be read', () => {
      const f = goodFacts();
      f.history = { ok: false, error: 'NOT_FOUND: gone' };
      expect(statusOrder.check(f)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/NOT_FOUND/) });
    });
  });

  it('history reasons must be scope:word', () => {
    const f = goodFacts();
    f.history = { ok: true, value: [HISTORY[0]!, { ...HISTORY[1]!, reason: 'Deposit detected' }, { ...HISTORY[2]!, reason: 'deposit:' }] };
    const r = historyReasons.check(f);
    expect(r.status).toBe('fail');
    expect(r.detail).toContain('entry 2 (awaiting_deposit → deposit_confirming): "Deposit detected"');
    expect(r.detail).toContain('"deposit:"');
    f.history = { ok: true, value: [] };
    expect(historyReasons.check(f).status).toBe('fail');
  });

  describe('events cover steps', () => {
    it('maps steps to the events they should produce', () => {
      expect(expectedEventTypes(STEPS)).toEqual(['transaction.created', 'deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']);
    });
    it('fails when a step has no event', () => {
      const f = goodFacts();
      f.events = { ok: true, value: (f.events as { value: WebhookEvent[] }).value.filter((e) => e.event_type !== 'deposit.confirmed') };
      expect(eventsCoverSteps.check(f)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^no event listed for: deposit\.confirmed/) });
    });
    it('counts repeats: two detections need two events', () => {
      const f = goodFacts();
      f.steps = [...STEPS, step('deposit.detected', 'awaiting_deposit', 'deposit_confirming')];
      expect(eventsCoverSteps.check(f).status).toBe('fail');
    });
    it('ignores events about another transaction', () => {
      const f = goodFacts();
      const events = (f.events as { value: WebhookEvent[] }).value.map((e) => (e.event_type === 'payout.settled' ? { ...e, aggregate_id: '11111111-1111-4111-8111-111111111111' } : e));
      f.events = { ok: true, value: events };
      expect(eventsCoverSteps.check(f).detail).toMatch(/payout\.settled/);
    });
    it('fails when telemetry is unreadable or describes another event', () => {
      const f = goodFacts();
      const [first, second] = (f.events as { value: WebhookEvent[] }).value;
      f.telemetry![first!.event_id] = { ok: false, error: 'NOT_FOUND: no such event' };
      expect(eventsCoverSteps.check(f).detail).toMatch(/telemetry not readable: transaction\.created .*NOT_FOUND/);
      f.telemetry![first!.event_id] = { ok: true, value: second! };
      expect(eventsCoverSteps.check(f).detail).toMatch(/describes another event/);
      delete f.telemetry![first!.event_id];
      expect(eventsCoverSteps.check(f).detail).toMatch(/not read/);
    });
  });

  describe('ledger row', () => {
    it('fails when missing, doubled or of another amount', () => {
      const f = goodFacts();
      f.ledger = { ok: true, value: { rows: [], from: at(0), to: at(9) } };
      expect(ledgerRow.check(f).detail).toMatch(/no ledger row/);
      f.ledger = { ok: true, value: { rows: [row('50000.00'), row('50000.00')], from: at(0), to: at(9) } };
      expect(ledgerRow.check(f).detail).toMatch(/2 ledger rows/);
      f.ledger = { ok: true, value: { rows: [row('49999.99')], from: at(0), to: at(9) } };
      expect(ledgerRow.check(f)).toMatchObject({ status: 'fail', detail: 'ledger amount 49999.99 differs from the transaction\'s 50000.00' });
    });
    it('is skipped for other outcomes and fails when completion was never reached', () => {
      expect(ledgerRow.check({ ...goodFacts(), outcome: 'refunded' }).status).toBe('skip');
      expect(ledgerRow.check({ ...goodFacts(), transaction: tx('selling_crypto') }).status).toBe('fail');
    });
  });

  describe('cancel refused', () => {
    it('fails when the cancel is accepted or refused with another status', () => {
      const f = goodFacts();
      f.cancel = { ok: true, value: { accepted: true, status: 'cancelled' } };
      expect(cancelRefused.check(f)).toMatchObject({ status: 'fail', detail: 'the cancel was accepted (status now cancelled)' });
      f.cancel = { ok: true, value: { accepted: false, httpStatus: 400, code: 'BAD_REQUEST', message: 'no' } };
      expect(cancelRefused.check(f).detail).toMatch(/HTTP 400 BAD_REQUEST, not 409/);
      f.cancel = { ok: false, error: 'INTERNAL_ERROR: boom' };
      expect(cancelRefused.check(f).status).toBe('fail');
    });
    it('is skipped for other outcomes', () => {
      expect(cancelRefused.check({ ...goodFacts(), outcome: 'expired' }).status).toBe('skip');
    });
  });

  describe('deliveries', () => {
    const withEvents = (change: (e: WebhookEvent, i: number) => Partial<WebhookEvent>) => {
      const f = goodFacts();
      f.deliveries = { ok: true, value: f.events!.ok ? f.events!.value.map((e, i) => ({ ...e, ...change(e, i) })) : [] };
      return f;
    };
    it('passes when every event was delivered, saying how many needed a retry', () => {
      expect(deliveries.check(withEvents((_, i) => (i === 1 ? { attempts: 3, last_error: 'endpoint answered HTTP 503' } : {})))).toEqual({ status: 'pass', detail: '5 delivered (1 after a retry)' });
    });
    it('fails when deliveries to a configured endpoint failed, or are failing and retried', () => {
      const r = deliveries.check(withEvents((_, i) => (i === 0 ? { delivery_status: 'failed', attempts: 6, last_error: 'endpoint answered HTTP 500: boom' } : i === 1 ? { delivery_status: 'pending', attempts: 1, last_error: 'no answer within 5000 ms' } : {})));
      expect(r).toEqual({
        status: 'fail',
        detail: '2 of 5 deliveries failed: transaction.created failed after 6 attempts: endpoint answered HTTP 500: boom; deposit.detected pending after 1 attempt: no answer within 5000 ms',
      });
    });
    it('is skipped, saying so, when there is no endpoint; fails on events never attempted within the wait', () => {
      const none = withEvents(() => ({ delivery_status: 'failed', last_error: 'no webhook endpoint configured (offramp emulator webhooks set-url URL, or start the emulator with --webhook-url)' }));
      expect(deliveries.check(none)).toEqual({ status: 'skip', detail: 'skipped: no webhook endpoint (5 events recorded, none sent)' });
      // The events check names what happened to them: recorded, not failed.
      none.events = none.deliveries;
      none.telemetry = Object.fromEntries(none.events!.ok ? none.events!.value.map((e) => [e.event_id, { ok: true as const, value: e }]) : []);
      expect(eventsCoverSteps.check(none)).toMatchObject({ status: 'pass', detail: expect.stringContaining('(transaction.created recorded (no endpoint), deposit.detected recorded (no endpoint),') });
      expect(eventsCoverSteps.check(none).detail).not.toMatch(/failed/);
      // One event recorded while the others were delivered (the endpoint set part-way): not delivered, not failed.
      const late = withEvents((_, i) => (i === 0 ? { delivery_status: 'failed', last_error: 'no webhook endpoint configured' } : {}));
      expect(deliveries.check(late)).toEqual({ status: 'fail', detail: '1 of 5 events not delivered within the wait: transaction.created recorded (no endpoint)' });
      const waiting = withEvents((_, i) => (i === 4 ? { delivery_status: 'pending', attempts: 0 } : {}));
      expect(deliveries.check(waiting)).toEqual({ status: 'fail', detail: '1 of 5 events not delivered within the wait: payout.settled pending' });
    });
    it("with smoke's own receiver: every delivered event must have reached it; no answer on loopback names --receive-at", () => {
      const f = withEvents(() => ({}));
      const ids = f.deliveries!.ok ? f.deliveries!.value.map((e) => e.event_id) : [];
      f.receivedBySmoke = { url: 'http://127.0.0.1:40001/', schemes: new Map(ids.map((id) => [id, 'hmac-sha256-hex'])), refused: new Map() };
      expect(deliveries.check(f)).toEqual({ status: 'pass', detail: "5 delivered to smoke's receiver, each signature verified with the emulator's secret (hmac-sha256-hex)" });
      f.receivedBySmoke = { url: 'http://127.0.0.1:40001/', schemes: new Map(ids.slice(1).map((id) => [id, 'hmac-sha256-hex'])), refused: new Map() };
      expect(deliveries.check(f)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^1 of 5 events the service reports delivered never reached smoke's receiver at http:\/\/127\.0\.0\.1:40001\/: transaction\.created /) });
      const refused = withEvents(() => ({ delivery_status: 'failed', last_error: 'connect ECONNREFUSED 127.0.0.1:40001' }));
      refused.receivedBySmoke = { url: 'http://127.0.0.1:40001/', schemes: new Map(), refused: new Map() };
      expect(deliveries.check(refused).detail).toMatch(/^5 of 5 deliveries failed \(to smoke's receiver at http:\/\/127\.0\.0\.1:40001\/: an emulator in a container cannot reach it; give --receive-at URL\): /);
    });
    it('is skipped, naming them, when the service says words the profile does not name', () => {
      const f = withEvents((_, i) => ({ delivery_status: i === 0 ? 'succeeded' : 'queued' }));
      expect(deliveries.check(f)).toEqual({
        status: 'skip',
        detail: 'skipped: the service reports delivery_status "succeeded", "queued", which the profile does not name as delivered or failed (offramp conform --save records its words)',
      });
    });
    it("reads the service's own words for delivered and failed", () => {
      const f = withEvents((_, i) => ({ delivery_status: i === 2 ? 'errored' : 'succeeded', last_error: i === 2 ? 'HTTP 500' : null }));
      f.deliveryNames = { delivered: 'succeeded', failed: 'errored', named: true };
      expect(deliveries.check(f)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^1 of 5 deliveries failed: deposit\.confirmed errored after 1 attempt: HTTP 500$/) });
    });
  });

  it('a walk that stopped part-way adds a failing walk check and fails what it could not check', () => {
    const results = evaluate({ outcome: 'completed', steps: STEPS.slice(0, 2), walkError: 'CONFLICT: refused', transactionId: TX });
    expect(results[0]).toMatchObject({ id: 'walk', status: 'fail', detail: 'CONFLICT: refused' });
    expect(results.filter((r) => r.status === 'fail')).toHaveLength(7);
  });
});
