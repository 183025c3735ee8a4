// The control plane (/__emulator/) against a started emulator: health, the clock, resets,
// targeted faults on matching and non-matching routes, webhook faults healed by retry,
// the whole state out and in, and who may use it.
import { afterEach, describe, expect, it } from 'vitest';
import { pageOf, WebhookEvent } from '../../src/lib/schemas.js';
import { authorize } from '../../src/emulator/control.js';
import { createManualClock, startEmulator } from '../../src/emulator/index.js';
import { closeAll, createTx, directBody, eventually, expectError, idemKey, KEY, readReply, simulate, startApi, webhookReceiver, type Api, type Reply } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A control-plane request: no API key, a JSON body (or a document sent as it is). */
async function control(api: Api, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  return readReply(await fetch(`${api.emu.controlUrl}${path}`, init));
}

async function receiver(answer?: Parameters<typeof webhookReceiver>[0]) {
  const r = await webhookReceiver(answer);
  cleanups.push(r.close);
  return r;
}

const EventPage = pageOf(WebhookEvent);
async function eventsOf(api: Api, txId: string) {
  const reply = await api.get(`/webhooks/events?transaction_id=${txId}`);
  expect(reply.status).toBe(200);
  return EventPage.parse(reply.body.data).data;
}

describe('GET /__emulator/health', () => {
  it('answers the emulator’s url, mode, clock and state file, and never a key', async () => {
    const api = await startApi({ apiKeys: ['sk_control_secret_key_1'] });
    const h = await control(api, 'GET', '/health');
    expect(h.status).toBe(200);
    expect(h.body.data).toMatchObject({ status: 'ok', url: api.emu.url, mode: 'staging', clock_offset_ms: 0, partners: 1, fault_rules: 0, state_file: null });
    expect(h.text).not.toContain('sk_control_secret_key_1');
    expect(h.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('is outside the partner base path: no key, and the API’s 404 for unknown control routes', async () => {
    const api = await startApi();
    expectError((await control(api, 'GET', '/nope')), 404, 'NOT_FOUND', /No control route for GET \/__emulator\/nope/);
    // The API itself still wants its key.
    expect((await api.get('/transactions', { key: null })).status).toBe(401);
  });
});

describe('POST /__emulator/clock', () => {
  it('expires an awaiting transaction with its history row and transaction.expired webhook, and a quote', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url });
    const tx = await createTx(api);
    const quote = (await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '5000' })).body.data;
    const done = await createTx(api);
    await simulate(api, done.id, 'deposit.detected');

    const moved = await control(api, 'POST', '/clock', { advance: '31m' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ advanced_ms: 31 * 60_000, offset_ms: 31 * 60_000, expired_transactions: 1 });

    const history = (await api.get(`/transactions/${tx.id}/status-history`)).body.data;
    expect(history.status).toBe('expired');
    expect(history.history.at(-1)).toMatchObject({ from_status: 'awaiting_deposit', to_status: 'expired', reason: 'deposit:expired', metadata: { trigger: 'deadline' } });
    // The one with a deposit is not touched.
    expect((await api.get(`/transactions/${done.id}`)).body.data.status).toBe('deposit_confirming');
    await eventually(() => expect(hooks.deliveries.map((d) => d.body.type)).toContain('transaction.expired'));
    const delivered = hooks.deliveries.find((d) => d.body.type === 'transaction.expired')!;
    expect(delivered.body.data).toMatchObject({ id: tx.id, status: 'expired' });
    const events = await eventsOf(api, tx.id);
    expect(events.map((e) => e.event_type)).toEqual(['transaction.expired', 'transaction.created']);
    // Business time moved for everything: the quote is past its 120 s.
    expectError(await api.post('/transactions', directBody({ quote_id: quote.quote_id, fiat_amount: undefined, crypto_currency: undefined, network: undefined }), { idempotencyKey: idemKey() }), 400, 'BAD_REQUEST', /expired/);
    // Timestamps written now carry the moved time.
    const later = await createTx(api);
    expect(Date.parse((await api.get(`/transactions/${later.id}`)).body.data.created_at)).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  it('moves a ManualClock the test passed in, and refuses what is not a duration', async () => {
    const clock = createManualClock(Date.parse('2026-05-01T00:00:00Z'));
    const api = await startApi({ clock });
    const moved = await control(api, 'POST', '/clock', { advance_ms: 90_000 });
    expect(moved.body.data).toMatchObject({ now: '2026-05-01T00:01:30.000Z', offset_ms: 0 });
    expect(clock.now()).toBe(Date.parse('2026-05-01T00:01:30Z'));
    for (const bad of [{ advance: '30' }, { advance: '-5m' }, { advance_ms: -1 }, { advance: '5m', advance_ms: 1 }, { hours: 1 }]) {
      const r = await control(api, 'POST', '/clock', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('POST /__emulator/reset', () => {
  it('forgets everything, or one partner’s data; an unknown key is 404 and is not echoed', async () => {
    const other = 'sk_test_other_partner';
    const api = await startApi({ apiKeys: [KEY, other] });
    const mine = await createTx(api);
    const theirs = await createTx(api, {}, other);
    await control(api, 'POST', '/clock', { advance: '1m' });
    await control(api, 'POST', '/faults', { route: 'GET /revenue', status: 500 });

    const one = await control(api, 'POST', '/reset', { partner: other });
    expect(one.status).toBe(200);
    expect(one.text).not.toContain(other);
    expect((await api.get(`/transactions/${theirs.id}`, { key: other })).status).toBe(404);
    expect((await api.get(`/transactions/${mine.id}`)).status).toBe(200);
    // A reference used before the reset is free again for that partner.
    expect((await api.post('/transactions', directBody({ merchant_reference: theirs.merchant_reference }), { idempotencyKey: idemKey(), key: other })).status).toBe(201);

    const unknown = await control(api, 'POST', '/reset', { partner: 'sk_not_served_here' });
    expectError(unknown, 404, 'NOT_FOUND');
    expect(unknown.text).not.toContain('sk_not_served_here');

    expect((await control(api, 'POST', '/reset')).body.data).toEqual({ reset: 'all' });
    expect((await api.get(`/transactions/${mine.id}`)).status).toBe(404);
    expect((await api.get('/transactions')).body.data.data).toEqual([]);
    expect((await control(api, 'GET', '/health')).body.data).toMatchObject({ clock_offset_ms: 0, fault_rules: 0 });
  });
});

describe('request bodies', () => {
  it('refuses a malformed body on every route that takes one, naming the field, and changes nothing', async () => {
    const api = await startApi({ webhookUrl: 'http://127.0.0.1:9/first' });
    const bad: [string, string, unknown, RegExp][] = [
      ['POST', '/reset', { partner: '' }, /partner/],
      ['POST', '/reset', { partner: 'x', all: true }, /unknown field all/],
      ['POST', '/clock', { advance_ms: 1.5 }, /advance_ms: must be a whole number of milliseconds, at most a year/],
      ['POST', '/clock', { advance_ms: 1e12 }, /advance_ms: must be a whole number of milliseconds, at most a year/],
      ['POST', '/clock', {}, /advance/],
      ['PUT', '/webhooks', {}, /url is required/],
      ['PUT', '/webhooks', { url: 'ftp://127.0.0.1/x' }, /url: must be an http/],
      ['PUT', '/webhooks', { url: null, secret: 'two words' }, /secret/],
      ['PUT', '/webhooks', { url: null, expect_url: 'nope' }, /expect_url/],
      ['PUT', '/webhooks', { url: null, registered_by: { pid: 0, command: 'x', previous_url: null } }, /registered_by\.pid/],
      ['PUT', '/webhooks', { url: null, registered_by: { pid: 1, command: 'x'.repeat(65), previous_url: null } }, /registered_by\.command/],
      ['PUT', '/webhooks', { url: null, registered_by: { pid: 1, command: 'x', previous_url: null, cwd: '/' } }, /unknown field cwd/],
      ['POST', '/faults', { webhook: false, status: 500 }, /webhook: must be true \(or absent for a route fault\)/],
    ];
    for (const [method, path, body, message] of bad) {
      expectError(await control(api, method, path, body), 400, 'BAD_REQUEST', message);
    }
    expect((await control(api, 'GET', '/webhooks')).body.data).toMatchObject({ url: 'http://127.0.0.1:9/first', registered_by: null });
    expect((await control(api, 'GET', '/faults')).body.data).toEqual([]);
  });
});

describe('fault rules', () => {
  it('--status answers before the operation on a matching route only, for the next N requests', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    const added = await control(api, 'POST', '/faults', { route: 'GET /transactions/*', next: 2, status: 503 });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ id: expect.stringMatching(/^flt_/), kind: 'route', route: 'GET /transactions/*', status: 503, remaining: 2, applied: 0 });
    // Not matching: another method, another depth, the list.
    expect((await api.get('/transactions')).status).toBe(200);
    expect((await api.get(`/transactions/${tx.id}/status-history`)).status).toBe(200);
    expect((await api.get(`/transactions/reference/${tx.merchant_reference}`)).status).toBe(200);
    // Matching: twice, then used up.
    expectError(await api.get(`/transactions/${tx.id}`), 503, 'SERVICE_UNAVAILABLE', /injected fault flt_\d+/);
    expectError(await api.get(`/transactions/${tx.id}`), 503, 'SERVICE_UNAVAILABLE');
    expect((await api.get(`/transactions/${tx.id}`)).status).toBe(200);
    expect((await control(api, 'GET', '/faults')).body.data).toEqual([]);

    // Any error status; 429 carries Retry-After; nothing is committed before it.
    await control(api, 'POST', '/faults', { route: 'POST /transactions', next: 1, status: 429 });
    const body = directBody();
    const refused = await api.post('/transactions', body, { idempotencyKey: 'k-429' });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await api.get(`/transactions/reference/${body.merchant_reference}`)).status).toBe(404);
    expect((await api.post('/transactions', body, { idempotencyKey: 'k-429' })).status).toBe(201);
    await control(api, 'POST', '/faults', { route: '* /revenue', status: 502 });
    expectError(await api.get('/revenue?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z'), 502, 'BAD_GATEWAY');
  });

  it('--drop-after-commit runs the operation on a matching route and answers nothing', async () => {
    const api = await startApi();
    await control(api, 'POST', '/faults', { route: 'POST /transactions', next: 1, drop_after_commit: true });
    // A matching method on another path is not dropped.
    expect((await api.post('/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '5000' })).status).toBe(201);
    const body = directBody();
    await expect(api.post('/transactions', body, { idempotencyKey: 'k-drop' })).rejects.toThrow();
    // Committed: the reference reads back, and the retry is the stored answer.
    const stored = await api.get(`/transactions/reference/${body.merchant_reference}`);
    expect(stored.status).toBe(200);
    const retry = await api.post('/transactions', body, { idempotencyKey: 'k-drop' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(stored.body.data.id);
  });

  it('--latency delays a matching route only', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    await control(api, 'POST', '/faults', { route: 'GET /transactions/*', next: 1, latency_ms: 1500 });
    const order: string[] = [];
    const slow = api.get(`/transactions/${tx.id}`).then((r) => order.push(`slow ${r.status}`));
    // Sent once the slow one has taken the rule, answered first: the list does not match it.
    await eventually(async () => expect((await control(api, 'GET', '/faults')).body.data).toEqual([]));
    const quick = api.get('/transactions').then((r) => order.push(`quick ${r.status}`));
    await Promise.all([slow, quick]);
    expect(order).toEqual(['quick 200', 'slow 200']);
    expect((await control(api, 'GET', '/faults')).body.data).toEqual([]);
  });

  it('refuses rules that are malformed or can match no endpoint, and clears them all', async () => {
    const api = await startApi();
    const bad: [unknown, RegExp][] = [
      [{ route: 'GET /transaction/*', status: 500 }, /matches no endpoint/],
      [{ route: 'GET /api/v1/partner/transactions', status: 500 }, /relative to the base path/],
      [{ route: 'FETCH /transactions', status: 500 }, /method/],
      [{ route: 'GET /transactions', status: 500, latency_ms: 10 }, /exactly one/],
      [{ route: 'GET /transactions', status: 200 }, /400 to 599/],
      [{ route: 'GET /transactions', latency: 10 }, /unknown field latency/],
      [{ webhook: true, status: 204 }, /300 to 599/],
      [{ webhook: true, status: 500, event_type: 'transaction.exploded' }, /event type/],
      [{ route: 'GET /transactions', status: 500, next: 0 }, /next/],
    ];
    for (const [rule, message] of bad) {
      const r = await control(api, 'POST', '/faults', rule);
      expect(r.status, JSON.stringify(rule)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    await control(api, 'POST', '/faults', { route: 'GET /transactions', status: 500 });
    await control(api, 'POST', '/faults', { webhook: true, status: 500 });
    expect((await control(api, 'DELETE', '/faults')).body.data).toEqual({ cleared: 2 });
    expect((await api.get('/transactions')).status).toBe(200);
  });
});

describe('webhook faults', () => {
  it('fail the next N deliveries of a type through the delivery path; retries heal them; telemetry shows it', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url, webhookRetry: { maxAttempts: 4, baseDelayMs: 5 } });
    await control(api, 'POST', '/faults', { webhook: true, event_type: 'transaction.created', next: 2, status: 500 });
    const tx = await createTx(api);
    await simulate(api, tx.id, 'deposit.detected');
    const [detected, created] = await eventually(async () => {
      const events = await eventsOf(api, tx.id);
      expect(events.map((e) => e.delivery_status)).toEqual(['delivered', 'delivered']);
      return events;
    });
    // The matching type: two injected failures, then the real delivery.
    expect(created).toMatchObject({ event_type: 'transaction.created', attempts: 3, delivery_status: 'delivered' });
    expect(created!.last_error).toMatch(/^endpoint answered HTTP 500: injected fault flt_\d+/);
    // Another type: untouched.
    expect(detected).toMatchObject({ event_type: 'deposit.detected', attempts: 1, last_error: null });
    // The endpoint saw each event once: the failures never left the emulator.
    expect(hooks.deliveries.map((d) => d.body.type).sort()).toEqual(['deposit.detected', 'transaction.created']);
    expect((await control(api, 'GET', '/faults')).body.data).toEqual([]);
  });

  it('past the retry ceiling the event is failed, and a replay delivers it', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url, webhookRetry: { maxAttempts: 2, baseDelayMs: 5 } });
    await control(api, 'POST', '/faults', { webhook: true, next: 2, status: 503 });
    const tx = await createTx(api);
    const [evt] = await eventually(async () => {
      const events = await eventsOf(api, tx.id);
      expect(events[0]!.delivery_status).toBe('failed');
      return events;
    });
    expect(evt).toMatchObject({ attempts: 2, last_error: expect.stringMatching(/HTTP 503: injected/) });
    expect(hooks.deliveries).toHaveLength(0);
    expect((await api.post(`/webhooks/events/${evt!.event_id}/replay`)).status).toBe(200);
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    expect(hooks.deliveries[0]!.body.id).toBe(evt!.event_id);
  });
});

describe('GET and PUT /__emulator/state', () => {
  it('exports the state as the state file format and imports it whole into another emulator', async () => {
    const a = await startApi();
    const tx = await createTx(a);
    await simulate(a, tx.id, 'deposit.detected');
    const exported = await control(a, 'GET', '/state');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(exported.text.split('\n')[0]).toMatch(/^\{"k":"header","format":"offramp-emulator-state"/);
    expect(exported.text).not.toContain(KEY);

    const b = await startApi();
    const imported = await control(b, 'PUT', '/state', exported.text);
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ partners: 1, dormant_partners: 0, transactions: 1, events: 2 });
    expect((await b.get(`/transactions/${tx.id}`)).body.data.status).toBe('deposit_confirming');

    // A damaged document changes nothing.
    const damaged = exported.text.replace('deposit_confirming', 'deposit_confirmind');
    const refused = await control(b, 'PUT', '/state', damaged);
    expectError(refused, 400, 'BAD_REQUEST', /damaged/);
    const cut = exported.text.slice(0, exported.text.lastIndexOf('{"k":"end"'));
    expectError((await control(b, 'PUT', '/state', cut)), 400, 'BAD_REQUEST', /incomplete|no complete batch/);
    expectError((await control(b, 'PUT', '/state', '{"hello":1}\n')), 400, 'BAD_REQUEST', /not an offramp emulator state/);
    expect((await b.get(`/transactions/${tx.id}`)).status).toBe(200);
  });

  it('keeps a partner whose key this emulator does not serve as dormant, and writes it back', async () => {
    const a = await startApi({ apiKeys: ['sk_test_partner_alpha'] });
    const tx = await createTx(a, {}, 'sk_test_partner_alpha');
    const doc = (await control(a, 'GET', '/state')).text;
    const b = await startApi({ apiKeys: ['sk_test_partner_beta'] });
    expect((await control(b, 'PUT', '/state', doc)).body.data).toMatchObject({ partners: 1, dormant_partners: 1, transactions: 0 });
    expect((await b.get(`/transactions/${tx.id}`, { key: 'sk_test_partner_beta' })).status).toBe(404);
    const c = await startApi({ apiKeys: ['sk_test_partner_alpha'] });
    await control(c, 'PUT', '/state', (await control(b, 'GET', '/state')).text);
    expect((await c.get(`/transactions/${tx.id}`, { key: 'sk_test_partner_alpha' })).status).toBe(200);
  });
});

describe('who may use the control plane', () => {
  it('with --admin-token: the bearer token, compared whole', async () => {
    const api = await startApi({ adminToken: 'admin-token-0123456789' });
    expectError((await control(api, 'GET', '/health')), 401, 'UNAUTHORIZED', /Bearer/);
    expectError((await control(api, 'POST', '/reset', {}, { authorization: 'Bearer admin-token-012345678' })), 401, 'UNAUTHORIZED');
    expect((await control(api, 'GET', '/health', undefined, { authorization: 'Bearer admin-token-0123456789' })).status).toBe(200);
    // An API key is not an admin token.
    expect((await control(api, 'GET', '/health', undefined, { 'x-api-key': KEY })).status).toBe(401);
  });

  it('without a token: loopback clients only; a non-loopback host needs a token to start', async () => {
    const settings = { adminToken: undefined, stateFile: undefined, startedAt: 0, url: '' };
    for (const remote of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.1']) expect(() => authorize(settings, { authorization: undefined, remoteAddress: remote })).not.toThrow();
    for (const remote of ['10.0.0.5', '::ffff:192.168.1.2', 'fe80::1', undefined]) {
      expect(() => authorize(settings, { authorization: undefined, remoteAddress: remote })).toThrow(/loopback clients only/);
    }
    await expect(startEmulator({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/host 0\.0\.0\.0 is not a loopback address: the control plane then needs adminToken/);
  });
});
