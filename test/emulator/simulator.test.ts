// POST /sandbox/simulate: the seven events through the lifecycle, refusals, deposit
// fields, history reasons, the ledger row on completion, production mode.
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { RevenuePage, SIMULATOR_EVENTS, StatusHistory, Transaction } from '../../src/lib/schemas.js';
import { createManualClock } from '../../src/emulator/index.js';
import { closeAll, createTx, expectError, expectOk, idemKey, simulate, startApi, type Api } from './helpers.js';

afterEach(closeAll);

async function history(api: Api, id: string) {
  return expectOk(await api.get(`/transactions/${id}/status-history`), 200, StatusHistory);
}

async function walk(api: Api, id: string, events: string[]) {
  let last: z.infer<typeof Transaction> | undefined;
  for (const event of events) last = expectOk(await simulate(api, id, event), 200, Transaction);
  return last!;
}

describe('the happy path', () => {
  it('detected → confirmed → completed, with deposit fields, history reasons and a ledger row', async () => {
    const clock = createManualClock(Date.parse('2026-08-01T09:00:00.000Z'));
    const api = await startApi({ clock });
    const tx = await createTx(api, { fiat_amount: '200000', merchant_id: 'm-7', terminal_id: 't-3' });

    clock.advance(60_000);
    const detected = expectOk(await simulate(api, tx.id, 'deposit.detected', { deposit_id: 'dep_custom_1', blockchain_hash: '0xabc' }), 200, Transaction);
    expect(detected).toMatchObject({
      status: 'deposit_confirming',
      deposit_status: 'detected',
      deposit_id: 'dep_custom_1',
      confirmations: 1,
      required_confirmations: 15,
      received_at: '2026-08-01T09:01:00.000Z',
      confirmed_at: null,
    });

    clock.advance(60_000);
    const confirmed = expectOk(await simulate(api, tx.id, 'deposit.confirmed'), 200, Transaction);
    expect(confirmed).toMatchObject({ status: 'selling_crypto', deposit_status: 'confirmed', confirmations: 15, confirmed_at: '2026-08-01T09:02:00.000Z', deposit_id: 'dep_custom_1' });

    clock.advance(60_000);
    const completed = expectOk(await simulate(api, tx.id, 'transaction.completed'), 200, Transaction);
    expect(completed.status).toBe('completed');
    expect(completed.updated_at).toBe('2026-08-01T09:03:00.000Z');

    const h = await history(api, tx.id);
    expect(h.history.map((r) => `${r.from_status}>${r.to_status}:${r.reason}`)).toEqual([
      'pending>awaiting_deposit:transaction:created',
      'awaiting_deposit>deposit_confirming:deposit:detected',
      'deposit_confirming>selling_crypto:deposit:confirmed',
      'selling_crypto>order_filled:order:filled',
      'order_filled>completed:order:settled',
    ]);
    for (const row of h.history) expect(row.reason).toMatch(/^[a-z_]+:[a-z_]+$/);
    expect(h.history[1]!.metadata).toMatchObject({ source: 'simulator', deposit_id: 'dep_custom_1', blockchain_hash: '0xabc' });

    const ledger = expectOk(await api.get('/revenue?from=2026-08-01T00:00:00Z&to=2026-08-02T00:00:00Z'), 200, RevenuePage);
    expect(ledger.data).toEqual([
      {
        transaction_id: tx.id,
        merchant_id: 'm-7',
        merchant_reference: tx.merchant_reference,
        terminal_id: 't-3',
        crypto_currency: 'usdt',
        network: 'bep20',
        crypto_amount: completed.crypto_amount,
        amount: '200000.00',
        platform_fee: '2000.00',
        share: '500.00',
        ts: '2026-08-01T09:03:00.000Z',
      },
    ]);
  });

  it('generates a deposit id and a chain hash when none is given', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    const detected = expectOk(await simulate(api, tx.id, 'deposit.detected'), 200, Transaction);
    expect(detected.deposit_id).toMatch(/^dep_[0-9a-f]{24}$/);
    const h = await history(api, tx.id);
    expect(h.history[1]!.metadata!.blockchain_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('payout.settled is accepted once on a completed transaction and changes no status', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    await walk(api, tx.id, ['deposit.detected', 'deposit.confirmed', 'transaction.completed']);
    const settled = expectOk(await simulate(api, tx.id, 'payout.settled'), 200, Transaction);
    expect(settled.status).toBe('completed');
    expect((await history(api, tx.id)).history).toHaveLength(5);
    expectError(await simulate(api, tx.id, 'payout.settled'), 409, 'CONFLICT', /already applied/);
  });
});

describe('other outcomes', () => {
  it('fails from any non-final status, and refunds only a failed transaction that had a deposit', async () => {
    const api = await startApi();
    const noDeposit = await createTx(api);
    await walk(api, noDeposit.id, ['transaction.failed']);
    expectError(await simulate(api, noDeposit.id, 'transaction.refunded'), 409, 'CONFLICT', /needs a received deposit/);

    const withDeposit = await createTx(api);
    const refunded = await walk(api, withDeposit.id, ['deposit.detected', 'deposit.confirmed', 'transaction.failed', 'transaction.refunded']);
    expect(refunded).toMatchObject({ status: 'refunded', deposit_status: 'refunded' });
    expect((await history(api, withDeposit.id)).history.slice(-2).map((r) => r.reason)).toEqual(['transaction:failed', 'transaction:refunded']);
  });

  it('expires from awaiting_deposit with deposit:expired', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    expect((await walk(api, tx.id, ['transaction.expired'])).status).toBe('expired');
    expect((await history(api, tx.id)).history.at(-1)).toMatchObject({ reason: 'deposit:expired', metadata: { source: 'simulator' } });
  });

  it('writes no ledger row for a transaction that did not complete', async () => {
    const clock = createManualClock(Date.parse('2026-08-01T09:00:00.000Z'));
    const api = await startApi({ clock });
    const tx = await createTx(api);
    await walk(api, tx.id, ['deposit.detected', 'transaction.failed']);
    const ledger = expectOk(await api.get('/revenue?from=2026-08-01T00:00:00Z&to=2026-08-02T00:00:00Z'), 200, RevenuePage);
    expect(ledger.data).toEqual([]);
  });
});

describe('refusals', () => {
  it('409 names the event and the current status for an invalid step', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    expectError(await simulate(api, tx.id, 'transaction.completed'), 409, 'CONFLICT', 'event transaction.completed is not valid for a transaction in status awaiting_deposit');
    expectError(await simulate(api, tx.id, 'deposit.confirmed'), 409, 'CONFLICT', /status awaiting_deposit/);
    expectError(await simulate(api, tx.id, 'payout.settled'), 409, 'CONFLICT', /payout.settled/);
    await api.post(`/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    for (const event of SIMULATOR_EVENTS) {
      expectError(await simulate(api, tx.id, event), 409, 'CONFLICT', /status cancelled/);
    }
    expect((await history(api, tx.id)).history).toHaveLength(2);
  });

  it('409 when deposit.confirmed names another deposit', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    await simulate(api, tx.id, 'deposit.detected', { deposit_id: 'dep_one' });
    expectError(await simulate(api, tx.id, 'deposit.confirmed', { deposit_id: 'dep_two' }), 409, 'CONFLICT', /dep_two does not match .* dep_one/);
  });

  it('400 for an unknown event lists all seven; 404 for an unknown transaction', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    const message = expectError(await simulate(api, tx.id, 'deposit.lost'), 400, 'BAD_REQUEST');
    for (const event of SIMULATOR_EVENTS) expect(message).toContain(event);
    expectError(await simulate(api, '00000000-0000-4000-8000-000000000000', 'deposit.detected'), 404, 'NOT_FOUND', /not found/);
  });

  it('403 FORBIDDEN in production mode, before anything else is looked at', async () => {
    const api = await startApi({ mode: 'production' });
    const tx = await createTx(api);
    expectError(await simulate(api, tx.id, 'deposit.detected'), 403, 'FORBIDDEN', /simulation is disabled in production/);
    expectError(await api.post('/sandbox/simulate', { nonsense: true }), 403, 'FORBIDDEN');
    expectError(await api.post('/sandbox/simulate', {}, { key: 'sk_wrong' }), 401, 'UNAUTHORIZED');
    expect((await api.get(`/transactions/${tx.id}`)).body.data.status).toBe('awaiting_deposit');
  });
});
