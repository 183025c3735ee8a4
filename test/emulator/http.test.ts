// The protocol: base path, wrapper and envelope, unknown routes, malformed input, body
// limit, authentication and partner scoping.
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction, TransactionSummary } from '../../src/lib/schemas.js';
import { DEFAULT_API_KEY } from '../../src/emulator/index.js';
import { closeAll, createTx, directBody, expectError, expectOk, idemKey, KEY, startApi, type Api } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(closeAll);

describe('base path and envelopes', () => {
  it('listens on 127.0.0.1 under /api/v1/partner with the documented default key', () => {
    expect(api.emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/partner$/);
    expect(api.emu.host).toBe('127.0.0.1');
    expect(DEFAULT_API_KEY).toBe(KEY);
    expect(api.emu.apiKeys).toEqual([KEY]);
  });

  it('wraps success as { success: true, data } and gives every answer a request id', async () => {
    const created = await api.post('/transactions', directBody(), { idempotencyKey: idemKey() });
    const summary = expectOk(created, 201, TransactionSummary);
    const read = await api.get(`/transactions/${summary.id}`);
    expect(read.body.success).toBe(true);
    expectOk(read, 200, Transaction);
    expect(read.headers.get('x-request-id')).not.toBe(created.headers.get('x-request-id'));
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope, with or without a key', async () => {
    expectError(await api.get('/nothing-here'), 404, 'NOT_FOUND', /No route for GET \/api\/v1\/partner\/nothing-here/);
    expectError(await api.get('/nothing-here', { key: null }), 404, 'NOT_FOUND');
    expectError(await api.call('DELETE', '/transactions'), 404, 'NOT_FOUND');
    const outside = await fetch(`${api.emu.origin}/api/v2/partner/transactions`, { headers: { 'x-api-key': KEY } });
    expect(outside.status).toBe(404);
  });
});

describe('malformed requests are 400 BAD_REQUEST naming the field', () => {
  it('refuses bodies that are not JSON objects', async () => {
    const key = idemKey();
    expectError(await api.post('/transactions', undefined, { raw: '{"fiat_amount":', idempotencyKey: key }), 400, 'BAD_REQUEST', /not valid JSON/);
    expectError(await api.post('/transactions', undefined, { raw: '[1,2]', idempotencyKey: key }), 400, 'BAD_REQUEST', /JSON object/);
    expectError(await api.post('/quotes', undefined, { raw: '' }), 400, 'BAD_REQUEST', /body is required/);
  });

  it('names fields of the wrong type, missing fields and bad uuids', async () => {
    const wrongType = await api.post('/transactions', directBody({ fiat_amount: 1500 }), { idempotencyKey: idemKey() });
    expectError(wrongType, 400, 'BAD_REQUEST', /^fiat_amount: /);
    const missing = await api.post('/transactions', { fiat_amount: '10.00', crypto_currency: 'usdt', network: 'bep20' }, { idempotencyKey: idemKey() });
    expectError(missing, 400, 'BAD_REQUEST', /merchant_reference is required/);
    const badQuote = await api.post('/transactions', { quote_id: 'not-a-uuid', merchant_reference: 'x' }, { idempotencyKey: idemKey() });
    expectError(badQuote, 400, 'BAD_REQUEST', /quote_id: Invalid UUID/);
    expectError(await api.get('/transactions/not-a-uuid'), 400, 'BAD_REQUEST', /id must be a UUID/);
    expectError(await api.get('/webhooks/events/123'), 400, 'BAD_REQUEST', /event_id must be a UUID/);
    expectError(await api.post('/sandbox/simulate', { event: 'deposit.detected' }), 400, 'BAD_REQUEST', /transaction_id is required/);
  });

  it('names bad query parameters: limits, dates, enums, cursors', async () => {
    expectError(await api.get('/transactions?limit=0'), 400, 'BAD_REQUEST', /limit must be an integer from 1 to 100/);
    expectError(await api.get('/transactions?limit=101'), 400, 'BAD_REQUEST', /limit/);
    expectError(await api.get('/transactions?limit=abc'), 400, 'BAD_REQUEST', /limit/);
    expectError(await api.get('/transactions?from=yesterday'), 400, 'BAD_REQUEST', /from must be an RFC 3339 date-time/);
    expectError(await api.get('/transactions?from=2026-01-01'), 400, 'BAD_REQUEST', /from must be an RFC 3339/);
    expectError(await api.get('/transactions?status=done'), 400, 'BAD_REQUEST', /status must be one of pending, awaiting_deposit/);
    expectError(await api.get('/transactions?cursor=%%%'), 400, 'BAD_REQUEST', /cursor is not valid/);
    expectError(await api.get('/webhooks/events?delivery_status=lost'), 400, 'BAD_REQUEST', /delivery_status must be one of pending, delivered, failed/);
    expectError(await api.get('/revenue?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&include_summary=yes'), 400, 'BAD_REQUEST', /include_summary must be true or false/);
  });

  it('refuses a body over 64 KiB and closes that connection', async () => {
    const reply = await api.post('/transactions', directBody({ merchant_reference: 'x'.repeat(70 * 1024) }), { idempotencyKey: idemKey() });
    expectError(reply, 400, 'BAD_REQUEST', /too large \(at most 64 KiB\)/);
    expect(reply.headers.get('connection')).toBe('close');
  });

  it('refuses a chunked body over 64 KiB too', async () => {
    const chunks = Readable.from(
      (function* () {
        for (let i = 0; i < 20; i++) yield Buffer.alloc(8 * 1024, 'a');
      })(),
    );
    const res = await request(`${api.emu.url}/quotes`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: chunks,
    }).catch((err: Error) => err);
    // Either the 400 arrives before the server closes the socket, or the upload is cut off.
    if (!(res instanceof Error)) {
      expect(res.statusCode).toBe(400);
      expect(await res.body.text()).toMatch(/too large/);
    }
  });
});

describe('authentication', () => {
  it('answers 401 UNAUTHORIZED to a missing or unknown key on every route', async () => {
    const tx = await createTx(api);
    expectError(await api.get(`/transactions/${tx.id}`, { key: null }), 401, 'UNAUTHORIZED', /missing X-API-KEY/);
    expectError(await api.get(`/transactions/${tx.id}`, { key: 'sk_wrong' }), 401, 'UNAUTHORIZED', /invalid API key/);
    expectError(await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '1.00' }, { key: '' }), 401, 'UNAUTHORIZED');
    expectError(await api.get('/revenue', { key: 'sk_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await api.post('/sandbox/simulate', { transaction_id: tx.id, event: 'deposit.detected' }, { key: null }), 401, 'UNAUTHORIZED');
    // Nothing happened to the transaction.
    expect((await api.get(`/transactions/${tx.id}`)).body.data.status).toBe('awaiting_deposit');
  });
});

describe('partner scoping', () => {
  let two: Api;
  beforeAll(async () => {
    two = await startApi({ apiKeys: ['sk_partner_a', 'sk_partner_b'] });
  });

  it('serves each key as its own partner: the other partner’s records are 404', async () => {
    const a = await createTx(two, { merchant_reference: 'SHARED-REF' }, 'sk_partner_a');
    expectError(await two.get(`/transactions/${a.id}`, { key: 'sk_partner_b' }), 404, 'NOT_FOUND', /Transaction .* not found/);
    expectError(await two.get('/transactions/reference/SHARED-REF', { key: 'sk_partner_b' }), 404, 'NOT_FOUND');
    expectError(await two.get(`/transactions/${a.id}/status-history`, { key: 'sk_partner_b' }), 404, 'NOT_FOUND');
    expectError(
      await two.post(`/transactions/${a.id}/cancel`, undefined, { key: 'sk_partner_b', idempotencyKey: idemKey() }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await two.post('/sandbox/simulate', { transaction_id: a.id, event: 'deposit.detected' }, { key: 'sk_partner_b' }),
      404,
      'NOT_FOUND',
    );
    // References are unique per partner only: B may use the same one.
    const b = await createTx(two, { merchant_reference: 'shared-ref' }, 'sk_partner_b');
    expect(b.id).not.toBe(a.id);
    const listB = await two.get('/transactions', { key: 'sk_partner_b' });
    expect(listB.body.data.data.map((t: { id: string }) => t.id)).toEqual([b.id]);
    const eventsB = await two.get('/webhooks/events', { key: 'sk_partner_b' });
    expect(eventsB.body.data.data.every((e: { aggregate_id: string }) => e.aggregate_id === b.id)).toBe(true);
    const eventOfA = (await two.get('/webhooks/events', { key: 'sk_partner_a' })).body.data.data[0].event_id;
    expectError(await two.get(`/webhooks/events/${eventOfA}`, { key: 'sk_partner_b' }), 404, 'NOT_FOUND', /Webhook event .* not found/);
    expectError(await two.post(`/webhooks/events/${eventOfA}/replay`, undefined, { key: 'sk_partner_b' }), 404, 'NOT_FOUND');
  });
});
