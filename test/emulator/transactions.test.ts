// Transactions: both pricing modes, derivation and rounding, deposit address and deadline,
// unique references, reads, lists and their cursors, cancel, history and expiry.
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { pageOf, Quote, StatusHistory, Transaction, TransactionSummary } from '../../src/lib/schemas.js';
import { createManualClock } from '../../src/emulator/index.js';
import {
  closeAll,
  createTx,
  directBody,
  eventually,
  expectError,
  expectOk,
  idemKey,
  ref,
  simulate,
  startApi,
  webhookReceiver,
  type Api,
} from './helpers.js';

afterEach(closeAll);

const TxPage = pageOf(Transaction);

async function quote(api: Api, body: Record<string, string>) {
  return expectOk(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', ...body }), 201, Quote);
}

describe('create: pricing modes', () => {
  it('direct mode derives crypto_amount = fiat / adjusted rate, rounded down to 6 places', async () => {
    const clock = createManualClock(Date.parse('2026-05-01T08:00:00.000Z'));
    const api = await startApi({ clock });
    const reply = await api.post('/transactions', directBody({ fiat_amount: '150000', crypto_currency: 'USDT', network: 'BEP20' }), {
      idempotencyKey: idemKey(),
    });
    const tx = expectOk(reply, 201, TransactionSummary);
    // 150000 / 1542.25 = 97.2604960...: rounded down to 6 places.
    expect(tx).toMatchObject({
      status: 'awaiting_deposit',
      rate: '1542.25',
      amount: '150000.00',
      crypto_amount: '97.260496',
      crypto_currency: 'usdt',
      network: 'bep20',
      expires_at: '2026-05-01T08:30:00.000Z',
      merchant_id: null,
      terminal_id: null,
    });
    expect(tx.deposit_address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(Object.keys(tx).sort()).toEqual(
      ['id', 'deposit_address', 'network', 'expires_at', 'status', 'rate', 'amount', 'crypto_amount', 'crypto_currency', 'merchant_reference', 'merchant_id', 'terminal_id'].sort(),
    );
  });

  it('quote mode with a fiat quote uses the quote’s rate and amount', async () => {
    const api = await startApi();
    const q = await quote(api, { fiat_amount: '50000.50' });
    const tx = expectOk(
      await api.post('/transactions', { quote_id: q.quote_id, network: 'bep20', merchant_reference: ref(), merchant_id: 'm-1', terminal_id: 't-9' }, { idempotencyKey: idemKey() }),
      201,
      TransactionSummary,
    );
    // 50000.50 / 1542.25 = 32.4204895...: down to 32.420489 where rounding to nearest would give ...490.
    expect(tx).toMatchObject({ rate: q.adjusted_rate, amount: '50000.50', crypto_amount: '32.420489', merchant_id: 'm-1', terminal_id: 't-9' });
  });

  it('quote mode with a crypto quote derives amount = tokens × rate, rounded down to kobo', async () => {
    const api = await startApi();
    const q = await quote(api, { crypto_amount: '12.345678' });
    const tx = expectOk(
      await api.post('/transactions', { quote_id: q.quote_id, network: 'bep20', merchant_reference: ref() }, { idempotencyKey: idemKey() }),
      201,
      TransactionSummary,
    );
    // 12.345678 × 1542.25 = 19040.1218955
    expect(tx).toMatchObject({ crypto_amount: '12.345678', amount: '19040.12' });
    // 1.000004 × 1542.25 = 1542.256169: down to .25, where rounding to nearest would give .26.
    const q2 = await quote(api, { crypto_amount: '1.000004' });
    const tx2 = (await api.post('/transactions', { quote_id: q2.quote_id, merchant_reference: ref() }, { idempotencyKey: idemKey() })).body.data;
    expect(tx2).toMatchObject({ crypto_amount: '1.000004', amount: '1542.25' });
  });

  it('refuses both modes together, neither mode, an incomplete direct mode and a mismatched quote network', async () => {
    const api = await startApi();
    const q = await quote(api, { fiat_amount: '100' });
    const both = await api.post('/transactions', { quote_id: q.quote_id, fiat_amount: '100', crypto_currency: 'usdt', network: 'bep20', merchant_reference: ref() }, { idempotencyKey: idemKey() });
    expectError(both, 400, 'BAD_REQUEST', /either quote mode \(quote_id\) or direct mode .* not both/);
    expectError(await api.post('/transactions', { merchant_reference: ref() }, { idempotencyKey: idemKey() }), 400, 'BAD_REQUEST', /provide either quote_id/);
    expectError(await api.post('/transactions', { fiat_amount: '100', merchant_reference: ref() }, { idempotencyKey: idemKey() }), 400, 'BAD_REQUEST', /missing crypto_currency, network/);
    const mismatch = await api.post('/transactions', { quote_id: q.quote_id, network: 'trc20', merchant_reference: ref() }, { idempotencyKey: idemKey() });
    expectError(mismatch, 400, 'BAD_REQUEST', /network trc20 does not match the quote's network bep20/);
  });

  it('refuses rate and crypto_amount in the body: the service sets them', async () => {
    const api = await startApi();
    expectError(await api.post('/transactions', directBody({ rate: '2000' }), { idempotencyKey: idemKey() }), 400, 'BAD_REQUEST', /rate is set by the service/);
    expectError(await api.post('/transactions', directBody({ crypto_amount: '1' }), { idempotencyKey: idemKey() }), 400, 'BAD_REQUEST', /crypto_amount is set by the service/);
  });

  it('allows only usdt on bep20 in staging, naming the pair; production accepts other pairs and gives Tron addresses', async () => {
    const staging = await startApi();
    const wrong = await staging.post('/transactions', directBody({ crypto_currency: 'usdt', network: 'trc20' }), { idempotencyKey: idemKey() });
    expectError(wrong, 400, 'BAD_REQUEST', /crypto_currency usdt on network bep20/);
    const production = await startApi({ mode: 'production' });
    const tron = expectOk(
      await production.post('/transactions', directBody({ crypto_currency: 'usdt', network: 'trc20' }), { idempotencyKey: idemKey() }),
      201,
      TransactionSummary,
    );
    expect(tron.deposit_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });
});

describe('merchant_reference', () => {
  it('is unique per partner, case-insensitively: a duplicate is 409 naming the existing transaction', async () => {
    const api = await startApi();
    const first = await createTx(api, { merchant_reference: 'Invoice-77' });
    const dup = await api.post('/transactions', directBody({ merchant_reference: 'INVOICE-77' }), { idempotencyKey: idemKey() });
    expectError(dup, 409, 'CONFLICT', new RegExp(`merchant_reference INVOICE-77 already exists \\(transaction ${first.id}\\)`));
  });

  it('finds the transaction case-insensitively, including references that need escaping', async () => {
    const api = await startApi();
    const created = await createTx(api, { merchant_reference: 'Shop/42 #7' });
    const byRef = expectOk(await api.get(`/transactions/reference/${encodeURIComponent('SHOP/42 #7')}`), 200, Transaction);
    expect(byRef.id).toBe(created.id);
    expect(byRef.merchant_reference).toBe('Shop/42 #7');
    expectError(await api.get('/transactions/reference/nope'), 404, 'NOT_FOUND', /merchant_reference nope not found/);
  });
});

describe('merchant_reference and dot segments', () => {
  it('refuses "." and "..": as a path segment they are folded away, even percent-encoded, so they could not be read back', async () => {
    const api = await startApi();
    for (const dots of ['.', '..']) {
      const refused = await api.post('/transactions', directBody({ merchant_reference: dots }), { idempotencyKey: idemKey() });
      expectError(refused, 400, 'BAD_REQUEST', `merchant_reference must not be "${dots}": as a path segment it is folded away, so it could not be read back by reference`);
    }
    expect(expectOk(await api.get('/transactions'), 200, TxPage).data).toEqual([]);
    // Dots that are not a whole segment round-trip by the path form, and so does a literal %2e (sent as %252e).
    for (const dotted of ['...', '.hidden', 'a..b', '%2e%2E']) {
      const created = await createTx(api, { merchant_reference: dotted });
      expect(expectOk(await api.get(`/transactions/reference/${encodeURIComponent(dotted)}`), 200, Transaction).id).toBe(created.id);
    }
  });
});

describe('RFC 3339 date-times in the query', () => {
  it('takes lower-case t and z, and a leap second (23:59:60 UTC, in any offset); refuses :60 elsewhere and days that do not exist', async () => {
    const clock = createManualClock(Date.parse('2016-12-31T23:59:59.500Z'));
    const api = await startApi({ clock });
    const tx = await createTx(api);
    const ids = async (query: string) => expectOk(await api.get(`/transactions?${query}`), 200, TxPage).data.map((t) => t.id);
    expect(await ids('from=2016-12-31t23:59:59z&to=2017-01-01t00:00:00z')).toEqual([tx.id]);
    // The leap second ends the minute: a window up to it holds the transaction made in its last second.
    expect(await ids('to=2016-12-31T23:59:60Z')).toEqual([tx.id]);
    expect(await ids('to=2017-01-01T00:59:60.5%2B01:00')).toEqual([tx.id]);
    expect(await ids('from=2016-12-31T23:59:60Z')).toEqual([]);
    for (const bad of ['2016-12-31T22:59:60Z', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01 00:00:00Z']) {
      expectError(await api.get(`/transactions?from=${encodeURIComponent(bad)}`), 400, 'BAD_REQUEST', /^from must be an RFC 3339 date-time/);
    }
    expectOk(await api.get('/revenue?from=2016-12-01t00:00:00z&to=2016-12-31T23:59:60Z'), 200, z.unknown());
  });
});

describe('reads', () => {
  it('GET /transactions/{id} answers the full snapshot, with null deposit fields before any deposit', async () => {
    const clock = createManualClock(Date.parse('2026-05-01T08:00:00.000Z'));
    const api = await startApi({ clock });
    const created = await createTx(api);
    const tx = expectOk(await api.get(`/transactions/${created.id}`), 200, Transaction);
    expect(tx).toMatchObject({
      ...created,
      deposit_status: null,
      confirmations: null,
      confirmed_at: null,
      deposit_id: null,
      received_at: null,
      required_confirmations: null,
      created_at: '2026-05-01T08:00:00.000Z',
      updated_at: '2026-05-01T08:00:00.000Z',
    });
    expectError(await api.get('/transactions/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND', /Transaction 00000000-0000-4000-8000-000000000000 not found/);
  });

  it('status history starts with pending → awaiting_deposit, transaction:created', async () => {
    const api = await startApi();
    const created = await createTx(api);
    const history = expectOk(await api.get(`/transactions/${created.id}/status-history`), 200, StatusHistory);
    expect(history.id).toBe(created.id);
    expect(history.status).toBe('awaiting_deposit');
    expect(history.history).toHaveLength(1);
    expect(history.history[0]).toMatchObject({ from_status: 'pending', to_status: 'awaiting_deposit', reason: 'transaction:created', metadata: { mode: 'direct' } });
    expectError(await api.get('/transactions/00000000-0000-4000-8000-000000000000/status-history'), 404, 'NOT_FOUND');
  });
});

describe('GET /transactions', () => {
  it('pages newest first, 20 by default, with an opaque cursor that stays stable under inserts', async () => {
    const api = await startApi();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await createTx(api)).id);
    const newestFirst = [...ids].reverse();

    const first = expectOk(await api.get('/transactions'), 200, TxPage);
    expect(first.limit).toBe(20);
    expect(first.has_more).toBe(true);
    expect(first.data.map((t) => t.id)).toEqual(newestFirst.slice(0, 20));
    expect(first.next_cursor).toEqual(expect.any(String));

    // Records created between pages must neither shift nor repeat what follows.
    await createTx(api);
    await createTx(api);
    const second = expectOk(await api.get(`/transactions?cursor=${first.next_cursor}`), 200, TxPage);
    expect(second.data.map((t) => t.id)).toEqual(newestFirst.slice(20));
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
  });

  it('honours limit and walks every page with it', async () => {
    const api = await startApi();
    for (let i = 0; i < 7; i++) await createTx(api);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: z.infer<typeof TxPage> = expectOk(await api.get(`/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`), 200, TxPage);
      expect(page.limit).toBe(3);
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((t) => t.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
  });

  it('filters by status and by a created_at window', async () => {
    const clock = createManualClock(Date.parse('2026-06-01T00:00:00.000Z'));
    const api = await startApi({ clock });
    const early = await createTx(api);
    clock.advance(60_000);
    const middle = await createTx(api);
    clock.advance(60_000);
    const late = await createTx(api);
    expectOk(await simulate(api, middle.id, 'transaction.failed'), 200, Transaction);

    const failed = expectOk(await api.get('/transactions?status=failed'), 200, TxPage);
    expect(failed.data.map((t) => t.id)).toEqual([middle.id]);
    const windowed = expectOk(await api.get('/transactions?from=2026-06-01T00:01:00Z&to=2026-06-01T00:02:00Z'), 200, TxPage);
    expect(windowed.data.map((t) => t.id)).toEqual([late.id, middle.id]);
    const upTo = expectOk(await api.get('/transactions?to=2026-06-01T00:00:00Z'), 200, TxPage);
    expect(upTo.data.map((t) => t.id)).toEqual([early.id]);
    expectError(await api.get('/transactions?from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z'), 400, 'BAD_REQUEST', /to must not be before from/);
  });

  it('rejects a cursor from another list', async () => {
    const api = await startApi();
    for (let i = 0; i < 3; i++) await createTx(api);
    const events = (await api.get('/webhooks/events?limit=1')).body.data;
    expectError(await api.get(`/transactions?cursor=${events.next_cursor}`), 400, 'BAD_REQUEST', /cursor is not valid/);
  });
});

describe('cancel', () => {
  it('cancels from awaiting_deposit with the cancelled notice and a partner:cancelled history row', async () => {
    const api = await startApi();
    const created = await createTx(api);
    const reply = await api.post(`/transactions/${created.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    const tx = expectOk(reply, 200, TransactionSummary);
    expect(reply.body.message).toBe('Transaction cancelled');
    expect(tx.status).toBe('cancelled');
    expect(Object.keys(tx)).not.toContain('created_at');
    const history = expectOk(await api.get(`/transactions/${created.id}/status-history`), 200, StatusHistory);
    expect(history.history.at(-1)).toMatchObject({ from_status: 'awaiting_deposit', to_status: 'cancelled', reason: 'partner:cancelled' });
  });

  it('refuses with 409 naming the status once a deposit was seen, and after completion', async () => {
    const api = await startApi();
    const created = await createTx(api);
    await simulate(api, created.id, 'deposit.detected');
    const confirming = await api.post(`/transactions/${created.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    expectError(confirming, 409, 'CONFLICT', 'Transaction cannot be cancelled in status deposit_confirming');
    await simulate(api, created.id, 'deposit.confirmed');
    await simulate(api, created.id, 'transaction.completed');
    const completed = await api.post(`/transactions/${created.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    expectError(completed, 409, 'CONFLICT', 'Transaction cannot be cancelled in status completed');
    expect((await api.get(`/transactions/${created.id}`)).body.data.status).toBe('completed');
  });

  it('answers 404 for an unknown transaction', async () => {
    const api = await startApi();
    const reply = await api.post('/transactions/00000000-0000-4000-8000-000000000000/cancel', undefined, { idempotencyKey: idemKey() });
    expectError(reply, 404, 'NOT_FOUND');
  });
});

describe('deposit deadline', () => {
  it('expires an untouched transaction 30 minutes after creation, without anyone asking', async () => {
    const clock = createManualClock(Date.parse('2026-07-01T10:00:00.000Z'));
    const api = await startApi({ clock });
    const created = await createTx(api);
    expect(created.expires_at).toBe('2026-07-01T10:30:00.000Z');

    clock.advance(30 * 60_000);
    expect((await api.get(`/transactions/${created.id}`)).body.data.status).toBe('awaiting_deposit');

    clock.advance(1);
    // The expiry event exists before anything reads the transaction itself.
    const events = (await api.get(`/webhooks/events?transaction_id=${created.id}&event_type=transaction.expired`)).body.data.data;
    expect(events).toHaveLength(1);
    const tx = expectOk(await api.get(`/transactions/${created.id}`), 200, Transaction);
    expect(tx.status).toBe('expired');
    const history = expectOk(await api.get(`/transactions/${created.id}/status-history`), 200, StatusHistory);
    expect(history.history.at(-1)).toMatchObject({ from_status: 'awaiting_deposit', to_status: 'expired', reason: 'deposit:expired', metadata: { trigger: 'deadline' } });

    // A deposit after the deadline is refused: late deposits need manual recovery.
    expectError(await simulate(api, created.id, 'deposit.detected'), 409, 'CONFLICT', /not valid for a transaction in status expired/);
    expectError(await api.post(`/transactions/${created.id}/cancel`, undefined, { idempotencyKey: idemKey() }), 409, 'CONFLICT', /status expired/);
  });

  it('does not expire a transaction that already moved on', async () => {
    const clock = createManualClock();
    const api = await startApi({ clock });
    const moving = await createTx(api);
    const cancelled = await createTx(api);
    await simulate(api, moving.id, 'deposit.detected');
    await api.post(`/transactions/${cancelled.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    clock.advance(2 * 60 * 60_000);
    expect((await api.get(`/transactions/${moving.id}`)).body.data.status).toBe('deposit_confirming');
    expect((await api.get(`/transactions/${cancelled.id}`)).body.data.status).toBe('cancelled');
    const expired = (await api.get('/webhooks/events?event_type=transaction.expired')).body.data.data;
    expect(expired).toHaveLength(0);
  });

  it('is swept by a timer on a non-manual clock: the expiry webhook goes out with no request made', async () => {
    const receiver = await webhookReceiver();
    let now = Date.now();
    const api = await startApi({ clock: { now: () => now }, webhookUrl: receiver.url });
    const created = await createTx(api);
    await eventually(() => expect(receiver.deliveries.map((d) => d.body.type)).toEqual(['transaction.created']));
    now += 31 * 60_000;
    await eventually(() => expect(receiver.deliveries.map((d) => d.body.type)).toEqual(['transaction.created', 'transaction.expired']), 3000);
    expect(receiver.deliveries[1]!.body.data).toMatchObject({ id: created.id, status: 'expired' });
    await receiver.close();
  });
});
