// The emulator serves the document at GET /__emulator/openapi.json under the control
// plane's access rules, and its answers are held to it (test/helpers/openapi.ts): an answer
// the document forbids is reported, naming the call and the rule it broke.
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { documentChecker, DOCUMENT_PATH } from '../helpers/openapi.js';
import { startVariant } from '../helpers/variant-server.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const committed = parse(readFileSync(DOCUMENT_PATH, 'utf8'));

describe('GET /__emulator/openapi.json', () => {
  it('answers the document, as JSON, to a loopback client', async () => {
    const emu = await emulatorFor();
    closers.push(emu.close);
    const res = await fetch(`${emu.emulator.controlUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(committed);
  });

  it('with an admin token, only to a client that sends it', async () => {
    const emu = await emulatorFor({ adminToken: 'admin-token-openapi' });
    closers.push(emu.close);
    const without = await fetch(`${emu.emulator.controlUrl}/openapi.json`);
    expect(without.status).toBe(401);
    // An API key is no way in: the control plane takes none.
    const withKey = await fetch(`${emu.emulator.controlUrl}/openapi.json`, { headers: { 'x-api-key': TEST_KEY } });
    expect(withKey.status).toBe(401);
    const withToken = await fetch(`${emu.emulator.controlUrl}/openapi.json`, { headers: { authorization: 'Bearer admin-token-openapi' } });
    expect(withToken.status).toBe(200);
    expect(((await withToken.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});

describe('an answer the document forbids', () => {
  const check = documentChecker();
  const answer = (route: string, status: number, body: unknown, headers: Record<string, string> = {}) => ({
    method: route.split(' ')[0]!,
    route,
    path: `/api/v1/partner${route.split(' ')[1]!}`,
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  });
  const quote = { quote_id: '0f8e2b1c-4d5a-4b6c-8d7e-9f0a1b2c3d4e', base_rate: '1550.00', adjusted_rate: '1542.25', amount: '5000.00', expires_at: '2026-01-31T12:02:00.000Z' };

  it('is named with the call and what broke: a number for a decimal, a missing field, a status, a header', () => {
    expect(check(answer('POST /quotes', 201, { success: true, data: quote }))).toEqual([]);
    expect(check(answer('POST /quotes', 201, { success: true, data: { ...quote, amount: 5000 } }))).toEqual([
      'POST /api/v1/partner/quotes → 201: body/data/amount must be string',
    ]);
    const { expires_at: _gone, ...noExpiry } = quote;
    expect(check(answer('POST /quotes', 201, { success: true, data: noExpiry }))[0]).toMatch(/must have required property 'expires_at'/);
    expect(check(answer('POST /sandbox/simulate', 201, { success: true, data: {} }))[0]).toMatch(/^POST \/api\/v1\/partner\/sandbox\/simulate → 201: /);
    const limited = { error: { code: 'RATE_LIMITED', message: 'slow down', timestamp: '2026-01-31T12:00:00Z' } };
    expect(check(answer('GET /transactions', 429, limited, { 'retry-after': '1' }))).toEqual([]);
    expect(check(answer('GET /transactions', 429, limited))).toEqual(['GET /api/v1/partner/transactions → 429: header Retry-After is missing']);
    expect(check(answer('GET /transactions/:id', 404, { error: { code: 'MISSING', message: 'no', timestamp: '2026-01-31T12:00:00Z' } }))[0]).toMatch(/code must be equal to constant/);
    expect(check(answer('GET /transactions', 200, { success: true, data: [] }, { 'content-type': 'text/html' }))[0]).toMatch(/content type text\/html is not the document's/);
  });

  it('is no looser than the spec where it is precise: an object as data, the create and cancel subsets, the notices, the ledger strings', () => {
    const id = '0f8e2b1c-4d5a-4b6c-8d7e-9f0a1b2c3d4e';
    const summary = { id, deposit_address: '0xabc', network: 'bep20', expires_at: '2026-01-31T12:30:00.000Z', status: 'awaiting_deposit', rate: '1542.25', amount: '20000.00', crypto_amount: '12.967984', crypto_currency: 'usdt', merchant_reference: 'order-1', merchant_id: null, terminal_id: null };
    const cancelled = { ...summary, status: 'cancelled' };
    const at = 'POST /api/v1/partner';
    expect(check(answer('POST /transactions', 201, { success: true, data: summary }))).toEqual([]);
    expect(check(answer('POST /transactions', 201, { success: true, data: { ...summary, status: 'completed' } }))).toEqual([`${at}/transactions → 201: body/data/status must be equal to constant`]);
    const { merchant_id: _m, terminal_id: _t, ...bare } = summary;
    expect(check(answer('POST /transactions', 201, { success: true, data: bare }))).toEqual([
      `${at}/transactions → 201: body/data must have required property 'merchant_id', body/data must have required property 'terminal_id'`,
    ]);
    const cancel = 'POST /transactions/:id/cancel';
    expect(check(answer(cancel, 200, { success: true, data: cancelled, message: 'Transaction cancelled' }))).toEqual([]);
    expect(check(answer(cancel, 200, { success: true, data: cancelled }))[0]).toMatch(/must have required property 'message'/);
    expect(check(answer(cancel, 200, { success: true, data: summary, message: 'Transaction cancelled' }))[0]).toMatch(/body\/data\/status must be equal to constant/);
    const replay = { event_id: id, aggregate_id: id, event_type: 'deposit.detected', attempts: 2, publish_status: 'pending', replay_scheduled_at: '2026-01-31T12:00:00.000Z' };
    expect(check(answer('POST /webhooks/events/:event_id/replay', 200, { success: true, data: replay, message: 'Webhook replay scheduled' }))).toEqual([]);
    expect(check(answer('POST /webhooks/events/:event_id/replay', 200, { success: true, data: replay, message: null }))[0]).toMatch(/body\/message must be string/);
    // The wrapper's data is an object: a bare list of items is not it.
    expect(check(answer('GET /transactions', 200, { success: true, data: [] }))).toEqual(['GET /api/v1/partner/transactions → 200: body/data must be object']);
    expect(check(answer('GET /webhooks/events', 200, { success: true, data: [] }))).toEqual(['GET /api/v1/partner/webhooks/events → 200: body/data must be object']);
    const row = { transaction_id: id, merchant_id: '', merchant_reference: 'order-1', terminal_id: '', crypto_currency: 'usdt', network: 'bep20', crypto_amount: '1.5', amount: '2300.00', platform_fee: '23.00', share: '5.75', ts: '2026-01-31T12:00:00.000Z' };
    const page = (r: object) => ({ success: true, data: { data: [r], has_more: false, limit: 50, next_cursor: null } });
    expect(check(answer('GET /revenue', 200, page(row)))).toEqual([]);
    expect(check(answer('GET /revenue', 200, page({ ...row, merchant_reference: null })))).toEqual(['GET /api/v1/partner/revenue → 200: body/data/data/0/merchant_reference must be string']);
  });

  it('holds a webhook delivery to its entry under webhooks: the body for its type, the signature header', () => {
    const body = { id: '0f8e2b1c-4d5a-4b6c-8d7e-9f0a1b2c3d4e', type: 'deposit.detected', data: { id: 'x' } };
    const signed = { 'x-svc-webhook-signature': 'a'.repeat(64) };
    expect(check.delivery(signed, JSON.stringify(body))).toEqual([]);
    expect(check.delivery({}, JSON.stringify(body))).toEqual(['the deposit.detected delivery: header X-SVC-Webhook-Signature is missing']);
    expect(check.delivery(signed, JSON.stringify({ ...body, type: 'deposit.lost' }))).toEqual(['the deposit.lost delivery: the document has no such webhook']);
    expect(check.delivery(signed, JSON.stringify({ ...body, id: 42 }))[0]).toMatch(/^the deposit\.detected delivery: body\/id must be string/);
  });

  it("fails a real server's answer: the variant's revenue page is not the spec's Revenue page", async () => {
    const variant = await startVariant();
    closers.push(variant.close);
    const query = `from=${encodeURIComponent('2026-01-01T00:00:00Z')}&to=${encodeURIComponent('2026-02-01T00:00:00Z')}`;
    const res = await fetch(`${variant.baseUrl}/revenue?${query}`, { headers: { 'x-api-key': variant.apiKey } });
    const problems = check({ method: 'GET', route: 'GET /revenue', path: '/api/v1/partner/revenue', status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    expect(problems).toEqual(['GET /api/v1/partner/revenue → 200: body/data must be object']);
  });
});
