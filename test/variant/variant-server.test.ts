// The variant server against plain fetch: each of its documented differences from the
// emulator holds, and the spec's rules still hold underneath them.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/emulator/index.js';
import { eventually, webhookReceiver } from '../emulator/helpers.js';
import { INVALID_CURSOR_MESSAGE, startVariant, VARIANT, VARIANT_EXTRA_FIELDS, type RunningVariant, type VariantOptions } from '../helpers/variant-server.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const STEP_MS = 1250;
const DAY_MS = 86_400_000;
const VARIANT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

type Reply = { status: number; headers: Headers; text: string; body: any };
type CallOptions = { key?: string | null; body?: unknown; idempotencyKey?: string };

async function call(v: RunningVariant, method: string, pathAndQuery: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? v.apiKey : opts.key;
  if (key !== null) headers['x-api-key'] = key;
  if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(v.baseUrl + pathAndQuery, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

const get = (v: RunningVariant, pathAndQuery: string, opts?: CallOptions) => call(v, 'GET', pathAndQuery, opts);
const post = (v: RunningVariant, path: string, body?: unknown, opts?: CallOptions) => call(v, 'POST', path, { ...opts, body });

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

async function createTx(v: RunningVariant): Promise<{ id: string; [k: string]: unknown }> {
  const reply = await post(
    v,
    '/transactions',
    { fiat_amount: '5000.00', crypto_currency: 'usdt', network: 'bep20', merchant_reference: unique('REF') },
    { idempotencyKey: unique('idem') },
  );
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}

const simulate = (v: RunningVariant, transactionId: string, event: string) => post(v, '/sandbox/simulate', { transaction_id: transactionId, event });

function expectError(reply: Reply, status: number, code: string, message?: RegExp | string) {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.code).toBe(code);
  expect(reply.body.error.timestamp).toMatch(VARIANT_TIME);
  if (message !== undefined) expect(reply.body.error.message).toMatch(message);
}

/** The test's own check of `t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
function verifyTimestamped(raw: string, secret: string, header: string | undefined): { ok: boolean; t: number } {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return { ok: false, t: 0 };
  const expected = createHmac('sha256', secret).update(`${match[1]}.`).update(raw).digest();
  return { ok: timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')), t: Number(match[1]) };
}

const started: { close(): Promise<void> }[] = [];
async function variant(opts: VariantOptions = {}): Promise<RunningVariant> {
  const v = await startVariant(opts);
  started.push(v);
  return v;
}
afterAll(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

// One variant holds most of the state: 30 transactions created 1.25 s apart on a manual
// clock (so times have fractions to drop), their webhooks, and a seeded ledger.
let v: RunningVariant;
let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
const txs: { id: string; [k: string]: unknown }[] = [];
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  hooks = await webhookReceiver();
  started.push(hooks);
  v = await variant({ webhookUrl: hooks.url, seedRevenue: 300, emulator: { clock: createManualClock(T0) } });
  const clock = v.emu.clock as ReturnType<typeof createManualClock>;
  for (let i = 0; i < 30; i++) {
    if (i > 0) clock.advance(STEP_MS);
    txs.push(await createTx(v));
  }
});

describe('list shape and cursors', () => {
  it("answers the items in data with has_more, next_cursor and limit beside them ('beside', default 25)", async () => {
    const reply = await get(v, '/transactions');
    expect(reply.status, reply.text).toBe(200);
    expect(Array.isArray(reply.body.data)).toBe(true);
    expect(reply.body.data).toHaveLength(VARIANT.defaultPageSize.transactions);
    expect(reply.body.data[0].id).toBe(txs[29]!.id);
    expect(reply.body).toMatchObject({ success: true, has_more: true, limit: 25 });
    expect(reply.body.next_cursor).toEqual(expect.any(String));
  });

  it("puts the cursor in meta ('meta') or pagination ('pagination'), and revenue's summary beside data", async () => {
    const meta = await variant({ shape: 'meta', seedRevenue: 5 });
    const pag = await variant({ shape: 'pagination' });
    for (const w of [meta, pag]) for (let i = 0; i < 3; i++) await createTx(w);

    const first = (await get(meta, '/transactions?limit=2')).body;
    expect(first.data).toHaveLength(2);
    expect(first.meta).toEqual({ has_more: true, next_cursor: expect.any(String), limit: 2 });
    expect(first).not.toHaveProperty('has_more');
    const last = (await get(meta, `/transactions?limit=2&cursor=${encodeURIComponent(first.meta.next_cursor)}`)).body;
    expect(last.data).toHaveLength(1);
    expect(last.meta).toEqual({ has_more: false, next_cursor: null, limit: 2 });

    // One reading of the clock: two could tick apart and make the window 90 days and 1 ms.
    const now = Date.now();
    const window = `from=${iso(now - 90 * DAY_MS)}&to=${iso(now)}`;
    const revenue = (await get(meta, `/revenue?${window}&include_summary=true&limit=100`)).body;
    expect(Array.isArray(revenue.data)).toBe(true);
    expect(revenue.summary.transaction_count).toBe(revenue.data.length);
    expect(revenue.meta.limit).toBe(100);

    const p1 = (await get(pag, '/transactions?limit=2')).body;
    expect(p1.pagination).toEqual({ hasMore: true, nextCursor: expect.any(String) });
    expect(p1).not.toHaveProperty('meta');
    expect(p1).not.toHaveProperty('next_cursor');
    const p2 = (await get(pag, `/transactions?limit=2&cursor=${encodeURIComponent(p1.pagination.nextCursor)}`)).body;
    expect(p2.pagination).toEqual({ hasMore: false, nextCursor: null });
  });

  it('makes cursors with +, / and =, and refuses one whose + arrived as a space', async () => {
    const cursor: string = (await get(v, '/transactions?limit=3')).body.next_cursor;
    expect(cursor).toContain('+');
    expect(cursor).toContain('/');
    expect(cursor).toMatch(/=$/);

    const encoded = await get(v, `/transactions?limit=3&cursor=${encodeURIComponent(cursor)}`);
    expect(encoded.status, encoded.text).toBe(200);
    expect(encoded.body.data[0].id).toBe(txs[26]!.id);

    expectError(await get(v, `/transactions?limit=3&cursor=${cursor}`), 400, 'BAD_REQUEST', INVALID_CURSOR_MESSAGE);
    expect(v.requests.at(-1)!.query.get('cursor')).toBe(cursor.replaceAll('+', ' '));
    const tampered = cursor.slice(0, -3) + (cursor.at(-3) === 'A' ? 'B' : 'A') + '==';
    expectError(await get(v, `/transactions?cursor=${encodeURIComponent(tampered)}`), 400, 'BAD_REQUEST', /invalid cursor/);
    // A cursor belongs to its list.
    expectError(await get(v, `/webhooks/events?cursor=${encodeURIComponent(cursor)}`), 400, 'BAD_REQUEST', /invalid cursor/);
    // The key is still checked first.
    expectError(await get(v, `/transactions?cursor=${cursor}`, { key: 'sk_wrong' }), 401, 'AUTH_INVALID');
  });

  it('pages to the end with every transaction exactly once, in the emulator order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: Reply = await get(v, `/transactions?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(reply.status, reply.text).toBe(200);
      seen.push(...reply.body.data.map((t: { id: string }) => t.id));
      cursor = reply.body.next_cursor;
      expect(reply.body.has_more).toBe(cursor !== null);
    } while (cursor !== null);
    const direct = await fetch(`${v.emu.url}/transactions?limit=100`, { headers: { 'x-api-key': v.apiKey } });
    const expected = ((await direct.json()) as { data: { data: { id: string }[] } }).data.data.map((t) => t.id);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    for (const tx of txs) expect(seen).toContain(tx.id);
  });

  it('uses its own default page sizes and keeps limit to 1..100', async () => {
    const events = (await get(v, '/webhooks/events')).body;
    expect(events.data).toHaveLength(VARIANT.defaultPageSize.webhooks);
    expect(events.limit).toBe(10);
    const window = `from=${iso(T0 - 90 * DAY_MS)}&to=${iso(T0)}`;
    const revenue = (await get(v, `/revenue?${window}`)).body;
    expect(revenue.data).toHaveLength(VARIANT.defaultPageSize.revenue);
    expect(revenue.limit).toBe(30);
    expect(revenue.has_more).toBe(true);
    expect(v.requests.at(-1)!.query.has('limit')).toBe(false);
    for (const limit of ['0', '101', 'ten']) {
      expectError(await get(v, `/transactions?limit=${limit}`), 400, 'BAD_REQUEST', /limit/);
      expectError(await get(v, `/revenue?${window}&limit=${limit}`), 400, 'BAD_REQUEST', /limit/);
    }
    expect((await get(v, '/webhooks/events?limit=100')).body.data.length).toBeGreaterThanOrEqual(30);
  });
});

describe('filter names', () => {
  it('transactions: honours state, created_after, created_before; ignores status, from, to', async () => {
    for (const tx of [txs[20]!, txs[21]!]) {
      expect((await post(v, `/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: unique('cancel') })).status).toBe(200);
    }
    const cancelled = (await get(v, '/transactions?state=cancelled')).body.data.map((t: { id: string }) => t.id);
    expect(cancelled.sort()).toEqual([txs[20]!.id, txs[21]!.id].sort());
    expect((await get(v, '/transactions?status=cancelled')).body.data).toHaveLength(25);

    const after = encodeURIComponent(iso(T0 + 5 * STEP_MS));
    const before = encodeURIComponent(iso(T0 + 9 * STEP_MS));
    const window = (await get(v, `/transactions?created_after=${after}&created_before=${before}`)).body.data;
    expect(window.map((t: { id: string }) => t.id)).toEqual(txs.slice(5, 10).map((t) => t.id).reverse());
    expect((await get(v, `/transactions?from=${after}&to=${before}`)).body.data).toHaveLength(25);
    expectError(await get(v, `/transactions?created_after=${before}&created_before=${after}`), 400, 'BAD_REQUEST', 'created_before must not be before created_after');
    expectError(await get(v, '/transactions?state=bogus'), 400, 'BAD_REQUEST', /^state must be one of/);
  });

  it('webhooks: honours aggregate_id, type, status, since, until; ignores the emulator names', async () => {
    await eventually(async () => expect((await get(v, '/webhooks/events?status=queued&limit=100')).body.data).toHaveLength(0));
    const byTx = (await get(v, `/webhooks/events?aggregate_id=${txs[3]!.id}`)).body.data;
    expect(byTx.map((e: { aggregate_id: string; event_type: string }) => [e.aggregate_id, e.event_type])).toEqual([[txs[3]!.id, 'transaction.created']]);
    expect((await get(v, `/webhooks/events?transaction_id=${txs[3]!.id}`)).body.data).toHaveLength(10);

    await simulate(v, txs[4]!.id, 'deposit.detected');
    const detected = (await get(v, '/webhooks/events?type=deposit.detected&limit=100')).body.data;
    expect(detected.map((e: { aggregate_id: string }) => e.aggregate_id)).toContain(txs[4]!.id);
    expect(detected.every((e: { event_type: string }) => e.event_type === 'deposit.detected')).toBe(true);
    expect((await get(v, '/webhooks/events?event_type=deposit.detected')).body.data).toHaveLength(10);

    await eventually(async () => expect((await get(v, '/webhooks/events?status=succeeded&limit=100')).body.data.length).toBeGreaterThanOrEqual(31));
    expect((await get(v, '/webhooks/events?status=errored')).body.data).toHaveLength(0);
    expect((await get(v, '/webhooks/events?delivery_status=failed')).body.data).toHaveLength(10);
    // The emulator's vocabulary is not the variant's.
    expectError(await get(v, '/webhooks/events?status=delivered'), 400, 'BAD_REQUEST', /^status must be one of queued, succeeded, errored/);

    const since = encodeURIComponent(iso(T0 + 5 * STEP_MS));
    const until = encodeURIComponent(iso(T0 + 9 * STEP_MS));
    const window = (await get(v, `/webhooks/events?since=${since}&until=${until}&type=transaction.created`)).body.data;
    // Oldest first, where the emulator lists newest first: the variant's own order, paged by its own cursor.
    expect(window.map((e: { aggregate_id: string }) => e.aggregate_id)).toEqual(txs.slice(5, 10).map((t) => t.id));
    const first = (await get(v, `/webhooks/events?since=${since}&until=${until}&type=transaction.created&limit=2`)).body;
    const rest = (await get(v, `/webhooks/events?since=${since}&until=${until}&type=transaction.created&limit=3&cursor=${encodeURIComponent(first.next_cursor)}`)).body;
    expect([...first.data, ...rest.data].map((e: { aggregate_id: string }) => e.aggregate_id)).toEqual(txs.slice(5, 10).map((t) => t.id));
    expect(rest.has_more).toBe(false);
    expect((await get(v, `/webhooks/events?from=${since}&to=${until}&type=transaction.created`)).body.data).toHaveLength(10);
    expectError(await get(v, `/webhooks/events?aggregate_id=nope`), 400, 'BAD_REQUEST', /^aggregate_id must be a UUID/);
  });

  it('revenue: honours token and chain; ignores crypto_currency and network; keeps the 90-day rule', async () => {
    const window = `from=${iso(T0 - 90 * DAY_MS)}&to=${iso(T0)}&include_summary=true`;
    const all = (await get(v, `/revenue?${window}`)).body;
    const count: number = all.summary.transaction_count;
    expect(count).toBeGreaterThan(30);
    expect(all.summary).toMatchObject({ from: '2025-12-01T12:00:00+00:00', to: '2026-03-01T12:00:00+00:00' });
    expect(all.data[0]).not.toHaveProperty('risk_score');

    const summaryOf = async (q: string) => (await get(v, `/revenue?${window}&${q}`)).body.summary.transaction_count;
    expect(await summaryOf('token=usdc')).toBe(0);
    expect(await summaryOf('token=USDT')).toBe(count);
    expect(await summaryOf('crypto_currency=usdc')).toBe(count);
    expect(await summaryOf('chain=trc20')).toBe(0);
    expect(await summaryOf('chain=bep20')).toBe(count);
    expect(await summaryOf('network=trc20')).toBe(count);

    expectError(await get(v, `/revenue?from=${iso(T0 - 91 * DAY_MS)}&to=${iso(T0)}`), 400, 'BAD_REQUEST', /cannot exceed 90 days/);
    expect((await get(v, `/revenue?from=${iso(T0 - 90 * DAY_MS)}&to=${iso(T0)}&limit=1`)).status).toBe(200);
  });
});

describe('answers', () => {
  it('answers 200 on creating a quote or a transaction, also on an idempotent replay', async () => {
    const quote = await post(v, '/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '10000.00' });
    expect(quote.status, quote.text).toBe(200);
    expect(quote.body.data.expires_at).toMatch(VARIANT_TIME);

    const body = { quote_id: quote.body.data.quote_id, network: 'bep20', merchant_reference: unique('REF') };
    const key = unique('idem');
    const first = await post(v, '/transactions', body, { idempotencyKey: key });
    expect(first.status, first.text).toBe(200);
    const again = await post(v, '/transactions', body, { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await post(v, '/transactions', { ...body, merchant_reference: unique('REF') }, { idempotencyKey: key }), 409, 'CONFLICT');
  });

  it('writes every date-time as whole seconds with +00:00', async () => {
    const tx = (await get(v, `/transactions/${txs[1]!.id}`)).body.data;
    expect(tx.created_at).toBe('2026-03-01T12:00:01+00:00');
    expect(tx.expires_at).toBe('2026-03-01T12:30:01+00:00');
    expect(tx.updated_at).toMatch(VARIANT_TIME);
    const history = (await get(v, `/transactions/${txs[1]!.id}/status-history`)).body.data.history;
    expect(history[0].changed_at).toBe('2026-03-01T12:00:01+00:00');
    const event = (await get(v, `/webhooks/events?aggregate_id=${txs[1]!.id}`)).body.data[0];
    expect(event.created_at).toBe('2026-03-01T12:00:01+00:00');
    expect(event.updated_at).toMatch(VARIANT_TIME);
    const row = (await get(v, `/revenue?from=${iso(T0 - 90 * DAY_MS)}&to=${iso(T0)}&limit=1`)).body.data[0];
    expect(row.ts).toMatch(VARIANT_TIME);
    expectError(await get(v, '/transactions/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  });

  it('maps deposit_status and adds risk_score to every transaction snapshot', async () => {
    const [a, b] = [txs[25]!, txs[26]!];
    expect(a).toMatchObject(VARIANT_EXTRA_FIELDS.transaction);
    const detected = await simulate(v, a.id, 'deposit.detected');
    expect(detected.status, detected.text).toBe(200);
    expect(detected.body.data).toMatchObject({ deposit_status: 'seen', ...VARIANT_EXTRA_FIELDS.transaction });
    expect((await simulate(v, a.id, 'deposit.confirmed')).body.data.deposit_status).toBe('credited');
    const read = (await get(v, `/transactions/${a.id}`)).body.data;
    expect(read).toMatchObject({ deposit_status: 'credited', status: 'selling_crypto', risk_score: '0.12' });
    expect(read.confirmed_at).toMatch(VARIANT_TIME);
    const byRef = (await get(v, `/transactions/reference/${encodeURIComponent(String(a.merchant_reference))}`)).body.data;
    expect(byRef).toEqual(read);

    await simulate(v, b.id, 'deposit.detected');
    await simulate(v, b.id, 'transaction.failed');
    expect((await simulate(v, b.id, 'transaction.refunded')).body.data.deposit_status).toBe('returned');
    const listed = (await get(v, '/transactions?state=refunded')).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: b.id, deposit_status: 'returned', risk_score: '0.12' })]);
    const untouched = (await get(v, `/transactions/${txs[2]!.id}`)).body.data;
    expect(untouched).toMatchObject({ deposit_status: null, risk_score: '0.12' });
  });

  it('answers AUTH_INVALID on a bad or missing key, with x-correlation-id and no x-request-id', async () => {
    const bad = await get(v, '/transactions', { key: 'sk_wrong' });
    expectError(bad, 401, 'AUTH_INVALID', 'invalid API key');
    expectError(await get(v, '/transactions', { key: null }), 401, 'AUTH_INVALID', /missing X-API-KEY/);
    for (const reply of [bad, await get(v, '/transactions?limit=1')]) {
      expect(reply.headers.get(VARIANT.requestIdHeader)).toMatch(/^req_[0-9a-f]+$/);
      expect(reply.headers.has('x-request-id')).toBe(false);
    }
  });

  it('keeps the spec errors: NOT_FOUND, CONFLICT, BAD_REQUEST', async () => {
    const c = txs[27]!;
    for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed']) expect((await simulate(v, c.id, event)).status).toBe(200);
    expectError(await post(v, `/transactions/${c.id}/cancel`, undefined, { idempotencyKey: unique('cancel') }), 409, 'CONFLICT', /completed/);
    expectError(await simulate(v, c.id, 'deposit.detected'), 409, 'CONFLICT');
    expectError(await simulate(v, c.id, 'deposit.lost'), 400, 'BAD_REQUEST');
    expectError(await get(v, '/transactions/reference/no-such-reference'), 404, 'NOT_FOUND');
    expectError(await get(v, '/webhooks/events/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    const both = await post(v, '/quotes', { crypto_currency: 'usdt', network: 'bep20', fiat_amount: '100.00', crypto_amount: '1' });
    expectError(both, 400, 'BAD_REQUEST', /either/);
  });
});

describe('gateway and rate limits', () => {
  it('answers an HTML 502 for the next n requests after failNext', async () => {
    v.failNext(2, 'html502');
    const before = v.requests.length;
    for (let i = 0; i < 2; i++) {
      const reply = await get(v, '/transactions?limit=1');
      expect(reply.status).toBe(502);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect(reply.text).toBe('<html><body>Bad Gateway</body></html>');
    }
    expect((await get(v, '/transactions?limit=1')).status).toBe(200);
    expect(v.requests.length - before).toBe(3);
  });

  it('gives Retry-After as an HTTP-date on 429, and 429 before its own 400', async () => {
    const limited = await variant({ emulator: { rateLimit: 1 } });
    const burst = await Promise.all(Array.from({ length: 5 }, () => get(limited, '/transactions')));
    const refused = burst.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) {
      expectError(reply, 429, 'RATE_LIMITED');
      const retryAfter = reply.headers.get('retry-after')!;
      expect(retryAfter).toMatch(HTTP_DATE);
      expect(Date.parse(retryAfter)).toBeGreaterThan(Date.now());
      expect(reply.headers.get(VARIANT.requestIdHeader)).toBeTruthy();
    }
    expectError(await get(limited, '/transactions?cursor=not+a+cursor'), 429, 'RATE_LIMITED');
  });
});

describe('webhooks', () => {
  it('delivers each event re-signed as t=…,v1=…, with the rewritten body, and replays the same bytes', async () => {
    await eventually(() => expect(hooks.deliveries.length).toBeGreaterThanOrEqual(30));
    const created = hooks.deliveries.find((d) => d.body.data.id === txs[0]!.id)!;
    expect(created.headers['content-type']).toBe('application/json');
    const sig = verifyTimestamped(created.raw, v.webhookSecret, created.headers['x-svc-webhook-signature'] as string);
    expect(sig.ok).toBe(true);
    expect(Math.abs(sig.t - Date.now() / 1000)).toBeLessThan(60);
    expect(verifyTimestamped(created.raw, 'whsec_other', created.headers['x-svc-webhook-signature'] as string).ok).toBe(false);
    expect(created.headers['x-svc-webhook-id']).toBeUndefined();
    expect(created.body).toMatchObject({ type: 'transaction.created', data: { id: txs[0]!.id, created_at: '2026-03-01T12:00:00+00:00', ...VARIANT_EXTRA_FIELDS.transaction } });

    const detected = await eventually(() => {
      const d = hooks.deliveries.find((x) => x.body.type === 'deposit.detected' && x.body.data.id === txs[25]!.id);
      expect(d).toBeDefined();
      return d!;
    });
    expect(detected.body.data.deposit_status).toBe('seen');

    const eventId: string = created.body.id;
    const telemetry = (await get(v, `/webhooks/events/${eventId}`)).body.data;
    expect(telemetry).toMatchObject({ event_id: eventId, delivery_status: 'succeeded', attempts: 1, ...VARIANT_EXTRA_FIELDS.webhookEvent });
    const replay = await post(v, `/webhooks/events/${eventId}/replay`);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.data).toMatchObject({ event_id: eventId, publish_status: VARIANT.publishStatus });
    expect(replay.body.data.replay_scheduled_at).toMatch(VARIANT_TIME);
    expect(replay.body.message).toEqual(expect.any(String));
    const again = await eventually(() => {
      const all = hooks.deliveries.filter((d) => d.body.id === eventId);
      expect(all).toHaveLength(2);
      return all[1]!;
    });
    expect(again.raw).toBe(created.raw);
    expect(verifyTimestamped(again.raw, v.webhookSecret, again.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
  });

  it("reports the target's failures truthfully: queued while in flight, then errored", async () => {
    const failing = await webhookReceiver(() => new Promise((r) => setTimeout(() => r(500), 150)));
    started.push(failing);
    const w = await variant({ webhookUrl: failing.url });
    const tx = await createTx(w);
    await eventually(() => expect(failing.deliveries).toHaveLength(1));
    const inFlight = (await get(w, `/webhooks/events?aggregate_id=${tx.id}`)).body.data[0];
    expect(inFlight.delivery_status).toBe('queued');
    const settled = await eventually(async () => {
      const evt = (await get(w, '/webhooks/events?status=errored')).body.data[0];
      expect(evt).toBeDefined();
      return evt;
    });
    expect(settled).toMatchObject({ aggregate_id: tx.id, attempts: 3, endpoint: 'default' });
    expect(settled.last_error).toMatch(/500/);
  });

  it('fails deliveries without a webhookUrl or to a refused connection (errored)', async () => {
    const closed = await webhookReceiver();
    await closed.close();
    for (const w of [await variant(), await variant({ webhookUrl: closed.url })]) {
      const tx = await createTx(w);
      const evt = await eventually(async () => {
        const e = (await get(w, `/webhooks/events?aggregate_id=${tx.id}`)).body.data[0];
        expect(e.delivery_status).toBe('errored');
        return e;
      });
      expect(evt.last_error).toMatch(/50[03]/);
    }
  });
});
