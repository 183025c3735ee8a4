// Idempotency-Key on create and cancel: required, replayed, conflicting, scoped, retained.
import { afterEach, describe, expect, it } from 'vitest';
import { TransactionSummary } from '../../src/lib/schemas.js';
import { createManualClock } from '../../src/emulator/index.js';
import { closeAll, createTx, directBody, expectError, expectOk, idemKey, simulate, startApi } from './helpers.js';

afterEach(closeAll);

describe('Idempotency-Key', () => {
  it('a body nested past any real request is a 400, first time and replayed (never a 500 comparing the two)', async () => {
    const api = await startApi();
    const key = idemKey();
    let nested = '{"x":1}';
    for (let i = 0; i < 10_000; i++) nested = `{"a":${nested}}`;
    const text = `{"fiat_amount":"5000","crypto_currency":"usdt","network":"bep20","merchant_reference":"deep-1","extra":${nested}}`;
    for (const raw of [text, text.replace('{"fiat', '{ "fiat')]) {
      const reply = await api.post('/transactions', undefined, { raw, idempotencyKey: key });
      expectError(reply, 400, 'BAD_REQUEST', /nested more than 32 levels deep/);
    }
  });

  it('is required on create and on cancel (400 naming the header)', async () => {
    const api = await startApi();
    expectError(await api.post('/transactions', directBody()), 400, 'BAD_REQUEST', /Idempotency-Key header is required/);
    const tx = await createTx(api);
    expectError(await api.post(`/transactions/${tx.id}/cancel`), 400, 'BAD_REQUEST', /Idempotency-Key header is required/);
    expectError(await api.post('/transactions', directBody(), { idempotencyKey: 'x'.repeat(256) }), 400, 'BAD_REQUEST', /1 to 255 visible ASCII/);
    // Nothing was created without a key.
    expect((await api.get('/transactions')).body.data.data).toHaveLength(1);
  });

  it('replays the first create answer exactly for the same key and body, creating nothing more', async () => {
    const api = await startApi();
    const key = idemKey();
    const body = directBody();
    const first = await api.post('/transactions', body, { idempotencyKey: key });
    expectOk(first, 201, TransactionSummary);
    // Same body with other key order and whitespace still counts as the same request.
    const reordered = `{ "merchant_reference": ${JSON.stringify(body.merchant_reference)}, "network": "bep20",\n "crypto_currency": "usdt", "fiat_amount": "150000.00" }`;
    const second = await api.post('/transactions', undefined, { idempotencyKey: key, raw: reordered });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const list = (await api.get('/transactions')).body.data.data;
    expect(list).toHaveLength(1);
    const created = (await api.get(`/webhooks/events?event_type=transaction.created`)).body.data.data;
    expect(created).toHaveLength(1);
  });

  it('answers 409 CONFLICT when the same key comes with another body', async () => {
    const api = await startApi();
    const key = idemKey();
    await api.post('/transactions', directBody(), { idempotencyKey: key });
    const other = await api.post('/transactions', directBody(), { idempotencyKey: key });
    expectError(other, 409, 'CONFLICT', new RegExp(`Idempotency-Key ${key} was already used for a different request`));
    expect((await api.get('/transactions')).body.data.data).toHaveLength(1);
  });

  it('replays a stored business error too (a duplicate reference stays the same 409)', async () => {
    const api = await startApi();
    await createTx(api, { merchant_reference: 'R-1' });
    const key = idemKey();
    const first = await api.post('/transactions', directBody({ merchant_reference: 'r-1' }), { idempotencyKey: key });
    expectError(first, 409, 'CONFLICT', /already exists/);
    const again = await api.post('/transactions', directBody({ merchant_reference: 'r-1' }), { idempotencyKey: key });
    expect(again.text).toBe(first.text);
  });

  it('stores nothing for a request that failed validation, so the fixed request may reuse the key', async () => {
    const api = await startApi();
    const key = idemKey();
    expectError(await api.post('/transactions', directBody({ fiat_amount: 'ten' }), { idempotencyKey: key }), 400, 'BAD_REQUEST');
    expectOk(await api.post('/transactions', directBody(), { idempotencyKey: key }), 201, TransactionSummary);
  });

  it('replays a cancel’s first answer; the same key on another transaction is a conflict', async () => {
    const api = await startApi();
    const a = await createTx(api);
    const b = await createTx(api);
    const key = idemKey();
    const first = await api.post(`/transactions/${a.id}/cancel`, undefined, { idempotencyKey: key });
    expect(first.status).toBe(200);
    expect(first.body.message).toBe('Transaction cancelled');
    const replay = await api.post(`/transactions/${a.id}/cancel`, undefined, { idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    // A new key on the cancelled transaction is a fresh intent, refused by the state.
    expectError(await api.post(`/transactions/${a.id}/cancel`, undefined, { idempotencyKey: idemKey() }), 409, 'CONFLICT', /status cancelled/);
    expectError(await api.post(`/transactions/${b.id}/cancel`, undefined, { idempotencyKey: key }), 409, 'CONFLICT', /already used for a different request/);
    expect((await api.get(`/transactions/${b.id}`)).body.data.status).toBe('awaiting_deposit');
  });

  it('replays a refused cancel as refused, even after the state changed', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    await simulate(api, tx.id, 'deposit.detected');
    const key = idemKey();
    const first = await api.post(`/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: key });
    expectError(first, 409, 'CONFLICT', /deposit_confirming/);
    await simulate(api, tx.id, 'transaction.failed');
    const again = await api.post(`/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: key });
    expect(again.text).toBe(first.text);
  });

  it('is scoped per partner and per route', async () => {
    const api = await startApi({ apiKeys: ['sk_a', 'sk_b'] });
    const key = idemKey();
    const a = await api.post('/transactions', directBody(), { idempotencyKey: key, key: 'sk_a' });
    const b = await api.post('/transactions', directBody(), { idempotencyKey: key, key: 'sk_b' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    // The create key does not collide with the same key on the cancel route.
    const cancel = await api.post(`/transactions/${a.body.data.id}/cancel`, undefined, { idempotencyKey: key, key: 'sk_a' });
    expect(cancel.status).toBe(200);
  });

  it('keeps keys 24 hours', async () => {
    const clock = createManualClock();
    const api = await startApi({ clock });
    const key = idemKey();
    const body = directBody();
    const first = await api.post('/transactions', body, { idempotencyKey: key });
    clock.advance(24 * 60 * 60_000);
    expect((await api.post('/transactions', body, { idempotencyKey: key })).text).toBe(first.text);
    clock.advance(1);
    // Forgotten: the same request now executes again and meets its own reference.
    const later = await api.post('/transactions', body, { idempotencyKey: key });
    expectError(later, 409, 'CONFLICT', /merchant_reference .* already exists/);
  });
});
