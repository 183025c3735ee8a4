// Webhooks against a real receiver on loopback: signed delivery of every lifecycle event,
// retries with backoff, `failed` at the ceiling, replay under the same id, telemetry and
// the event list.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { pageOf, ReplayResult, Transaction, WebhookDelivery, WebhookEvent } from '../../src/lib/schemas.js';
import { verify } from '../../src/lib/webhooks/signature.js';
import { createManualClock, DEFAULT_WEBHOOK_SECRET } from '../../src/emulator/index.js';
import { closeAll, createTx, eventually, expectError, expectOk, idemKey, simulate, startApi, webhookReceiver, type Api } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const SECRET = 'whsec_test_receiver_1';
const EventPage = pageOf(WebhookEvent);

async function receiver(answer?: Parameters<typeof webhookReceiver>[0]) {
  const r = await webhookReceiver(answer);
  cleanups.push(r.close);
  return r;
}

async function events(api: Api, query = '') {
  return expectOk(await api.get(`/webhooks/events${query}`), 200, EventPage).data;
}

async function telemetry(api: Api, eventId: string) {
  return expectOk(await api.get(`/webhooks/events/${eventId}`), 200, WebhookEvent);
}

describe('delivery', () => {
  it('POSTs { id, type, data } signed with HMAC-SHA256 of the raw body, with the event id header', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url, webhookSecret: SECRET });
    const tx = await createTx(api);
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    const d = hooks.deliveries[0]!;
    expect(d.path).toBe('/hooks');
    expect(d.headers['content-type']).toBe('application/json');
    expect(verify(d.raw, SECRET, d.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
    expect(verify(d.raw, 'whsec_other', d.headers['x-svc-webhook-signature'] as string).ok).toBe(false);
    const body = WebhookDelivery.parse(d.body);
    expect(Object.keys(body).sort()).toEqual(['data', 'id', 'type']);
    expect(d.headers['x-svc-webhook-id']).toBe(body.id);
    expect(body.type).toBe('transaction.created');
    const data = Transaction.parse(body.data);
    expect(data).toEqual(expectOk(await api.get(`/transactions/${tx.id}`), 200, Transaction));

    const t = await eventually(async () => {
      const got = await telemetry(api, body.id);
      expect(got.delivery_status).toBe('delivered');
      return got;
    });
    expect(t).toMatchObject({ event_id: body.id, aggregate_id: tx.id, event_type: 'transaction.created', attempts: 1, last_error: null });
    // Telemetry only: no payload.
    expect(Object.keys(t).sort()).toEqual(['aggregate_id', 'attempts', 'created_at', 'delivery_status', 'event_id', 'event_type', 'last_error', 'updated_at']);
  });

  it('signs with the documented default secret when none is configured', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url });
    await createTx(api);
    await eventually(() => expect(hooks.deliveries).toHaveLength(1));
    expect(verify(hooks.deliveries[0]!.raw, DEFAULT_WEBHOOK_SECRET, hooks.deliveries[0]!.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
  });

  it('records and delivers one event per lifecycle step, data being the snapshot at that moment', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url, webhookSecret: SECRET });
    const tx = await createTx(api);
    for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']) await simulate(api, tx.id, event);
    const list = await events(api, `?transaction_id=${tx.id}`);
    // Newest first, as transactions are listed.
    expect(list.map((e) => e.event_type)).toEqual(['payout.settled', 'transaction.completed', 'deposit.confirmed', 'deposit.detected', 'transaction.created']);

    await eventually(() => expect(hooks.deliveries).toHaveLength(5));
    const byType = new Map(hooks.deliveries.map((d) => [d.body.type, d.body]));
    expect(byType.get('deposit.detected').data).toMatchObject({ status: 'deposit_confirming', deposit_status: 'detected', confirmations: 1 });
    expect(byType.get('deposit.detected').data.deposit_id).toMatch(/^dep_/);
    expect(byType.get('deposit.confirmed').data).toMatchObject({ status: 'selling_crypto', deposit_status: 'confirmed', confirmations: 15 });
    expect(byType.get('transaction.completed').data.status).toBe('completed');
    expect(byType.get('payout.settled').data.status).toBe('completed');
    expect(new Set(hooks.deliveries.map((d) => d.body.id)).size).toBe(5);
    for (const d of hooks.deliveries) expect(verify(d.raw, SECRET, d.headers['x-svc-webhook-signature'] as string).ok).toBe(true);
  });

  it('emits nothing for a cancel (the spec names no cancelled event)', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    await api.post(`/transactions/${tx.id}/cancel`, undefined, { idempotencyKey: idemKey() });
    expect((await events(api, `?transaction_id=${tx.id}`)).map((e) => e.event_type)).toEqual(['transaction.created']);
  });
});

describe('retries', () => {
  it('retries a refused delivery with the same id, body and signature, then records it delivered', async () => {
    const hooks = await receiver((n) => (n === 0 ? 500 : 200));
    const api = await startApi({ webhookUrl: hooks.url, webhookSecret: SECRET });
    await createTx(api);
    await eventually(() => expect(hooks.deliveries).toHaveLength(2));
    const [first, second] = hooks.deliveries;
    expect(second!.raw).toBe(first!.raw);
    expect(second!.headers['x-svc-webhook-signature']).toBe(first!.headers['x-svc-webhook-signature']);
    const eventId = first!.body.id;
    const t = await eventually(async () => {
      const got = await telemetry(api, eventId);
      expect(got.delivery_status).toBe('delivered');
      return got;
    });
    expect(t.attempts).toBe(2);
    // The status only: the endpoint's words (an internal service's page) are not the partner's to read.
    expect(t.last_error).toBe('endpoint answered HTTP 500');
  });

  it('backs off between attempts and marks the event failed at the ceiling', async () => {
    const stamps: number[] = [];
    const hooks = await receiver(() => {
      stamps.push(performance.now());
      return 503;
    });
    const api = await startApi({ webhookUrl: hooks.url, webhookRetry: { maxAttempts: 3, baseDelayMs: 40 } });
    await createTx(api);
    const [evt] = await events(api);
    const t = await eventually(async () => {
      const got = await telemetry(api, evt!.event_id);
      expect(got.delivery_status).toBe('failed');
      return got;
    });
    expect(t.attempts).toBe(3);
    expect(t.last_error).toMatch(/HTTP 503/);
    expect(hooks.deliveries).toHaveLength(3);
    // Delays of 40 then 80 ms (a little slack for timer granularity).
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(35);
    expect(stamps[2]! - stamps[1]!).toBeGreaterThanOrEqual(75);
    // Nothing more arrives after the ceiling: the emulator has nothing left to send.
    await api.emu.webhooksIdle();
    expect(hooks.deliveries).toHaveLength(3);
    expect((await events(api, '?delivery_status=failed')).map((e) => e.event_id)).toEqual([evt!.event_id]);
  });

  it('says when it has nothing left to send: a retry due within the horizon is waited for, a later one is not', async () => {
    const soon = await receiver((n) => (n === 0 ? 503 : 200));
    const api = await startApi({ webhookUrl: soon.url, webhookRetry: { maxAttempts: 3, baseDelayMs: 50 } });
    await createTx(api);
    await api.emu.webhooksIdle();
    expect(soon.deliveries).toHaveLength(2);
    expect((await events(api))[0]).toMatchObject({ delivery_status: 'delivered', attempts: 2 });

    const late = await receiver(() => 503);
    const slow = await startApi({ webhookUrl: late.url, webhookRetry: { maxAttempts: 3, baseDelayMs: 60_000 } });
    await createTx(slow);
    await slow.emu.webhooksIdle(1000);
    expect(late.deliveries).toHaveLength(1);
    expect((await events(slow))[0]).toMatchObject({ delivery_status: 'pending', attempts: 1 });
  });

  it('counts an unreachable endpoint and a silent one as failed attempts, without delaying the API', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const dead = await startApi({ webhookUrl: `http://127.0.0.1:${deadPort}/x`, webhookRetry: { maxAttempts: 1, baseDelayMs: 1 } });
    await createTx(dead);
    const [refused] = await events(dead);
    await eventually(async () => expect((await telemetry(dead, refused!.event_id)).last_error).toBe('delivery failed: connection refused'));

    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => {
      silent.closeAllConnections();
      silent.close(() => r());
    }));
    const slow = await startApi({
      webhookUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
      webhookRetry: { maxAttempts: 1, baseDelayMs: 1, timeoutMs: 800 },
    });
    await createTx(slow);
    // The create was answered while its delivery was still waiting on the receiver.
    const [hung] = await events(slow);
    expect(hung).toMatchObject({ delivery_status: 'pending', attempts: 0 });
    await eventually(async () => {
      const t = await telemetry(slow, hung!.event_id);
      expect(t).toMatchObject({ delivery_status: 'failed', attempts: 1, last_error: 'no answer within 800 ms' });
    });
  });
});

describe('shutdown', () => {
  it('closes promptly with deliveries in flight and queued behind them', async () => {
    let arrived = 0;
    const silent = createServer(() => void arrived++);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => {
      silent.closeAllConnections();
      silent.close(() => r());
    }));
    const api = await startApi({ webhookUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, webhookRetry: { maxAttempts: 3, baseDelayMs: 5, timeoutMs: 30_000 } });
    // More events than deliveries run at once, so some wait in the queue.
    for (let i = 0; i < 12; i++) await createTx(api);
    await eventually(() => expect(arrived).toBeGreaterThan(0));
    const started = performance.now();
    await api.close();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('replay', () => {
  it('requeues the same event id after failure; the redelivery carries the same id', async () => {
    let accept = false;
    const hooks = await receiver(() => (accept ? 200 : 500));
    const api = await startApi({ webhookUrl: hooks.url, webhookSecret: SECRET, webhookRetry: { maxAttempts: 2, baseDelayMs: 5 } });
    await createTx(api);
    const [evt] = await events(api);
    await eventually(async () => expect((await telemetry(api, evt!.event_id)).delivery_status).toBe('failed'));

    accept = true;
    const reply = await api.post(`/webhooks/events/${evt!.event_id}/replay`);
    const result = expectOk(reply, 200, ReplayResult);
    expect(reply.body.message).toBe('Webhook replay scheduled');
    expect(result).toMatchObject({ event_id: evt!.event_id, aggregate_id: evt!.aggregate_id, event_type: 'transaction.created', attempts: 2, publish_status: 'pending' });
    expect(Number.isNaN(Date.parse(result.replay_scheduled_at))).toBe(false);

    await eventually(async () => expect((await telemetry(api, evt!.event_id)).delivery_status).toBe('delivered'));
    expect((await telemetry(api, evt!.event_id)).attempts).toBe(3);
    expect(hooks.deliveries).toHaveLength(3);
    expect(new Set(hooks.deliveries.map((d) => d.body.id))).toEqual(new Set([evt!.event_id]));
    expect(new Set(hooks.deliveries.map((d) => d.raw)).size).toBe(1);
    // Replay makes no new logical event.
    expect(await events(api)).toHaveLength(1);
  });

  it('replays a delivered event again on request', async () => {
    const hooks = await receiver();
    const api = await startApi({ webhookUrl: hooks.url });
    await createTx(api);
    const [evt] = await events(api);
    await eventually(async () => expect((await telemetry(api, evt!.event_id)).delivery_status).toBe('delivered'));
    expectOk(await api.post(`/webhooks/events/${evt!.event_id}/replay`), 200, ReplayResult);
    await eventually(() => expect(hooks.deliveries).toHaveLength(2));
    await eventually(async () => expect((await telemetry(api, evt!.event_id))).toMatchObject({ delivery_status: 'delivered', attempts: 2 }));
  });

  it('answers 404 for an unknown event', async () => {
    const api = await startApi();
    expectError(await api.post('/webhooks/events/00000000-0000-4000-8000-000000000000/replay'), 404, 'NOT_FOUND', /Webhook event .* not found/);
    expectError(await api.get('/webhooks/events/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND', /Webhook event .* not found/);
  });
});

describe('without a webhook URL', () => {
  it('records events as failed after one attempt, saying no endpoint is configured; replay retries once more', async () => {
    const api = await startApi();
    const tx = await createTx(api);
    const [evt] = await events(api, `?transaction_id=${tx.id}`);
    const t = await eventually(async () => {
      const got = await telemetry(api, evt!.event_id);
      expect(got.delivery_status).toBe('failed');
      return got;
    });
    expect(t).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/no webhook endpoint configured/) });
    const replay = expectOk(await api.post(`/webhooks/events/${evt!.event_id}/replay`), 200, ReplayResult);
    expect(replay).toMatchObject({ attempts: 1, publish_status: 'pending' });
    await eventually(async () => expect(await telemetry(api, evt!.event_id)).toMatchObject({ delivery_status: 'failed', attempts: 2 }));
  });
});

describe('GET /webhooks/events', () => {
  it('lists newest first in pages of 20, filtered by transaction, type, delivery status and created_at window', async () => {
    const clock = createManualClock(Date.parse('2026-09-01T00:00:00.000Z'));
    const api = await startApi({ clock });
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) {
      ids.push((await createTx(api)).id);
      clock.advance(1000);
    }
    await simulate(api, ids[3]!, 'deposit.detected');

    const first = expectOk(await api.get('/webhooks/events'), 200, EventPage);
    expect(first.limit).toBe(20);
    expect(first.has_more).toBe(true);
    const newest = [...ids].reverse();
    expect(first.data.map((e) => e.aggregate_id)).toEqual([ids[3], ...newest.slice(0, 19)]);
    const second = expectOk(await api.get(`/webhooks/events?cursor=${first.next_cursor}`), 200, EventPage);
    expect(second.data.map((e) => e.aggregate_id)).toEqual(newest.slice(19));
    expect(second.next_cursor).toBeNull();

    expect((await events(api, `?transaction_id=${ids[3]}`)).map((e) => e.event_type)).toEqual(['deposit.detected', 'transaction.created']);
    expect((await events(api, '?event_type=deposit.detected')).map((e) => e.aggregate_id)).toEqual([ids[3]]);
    const windowed = await events(api, '?from=2026-09-01T00:00:05Z&to=2026-09-01T00:00:07Z');
    expect(windowed.map((e) => e.aggregate_id)).toEqual(ids.slice(5, 8).reverse());
    await eventually(async () => expect(await events(api, '?delivery_status=failed&limit=100')).toHaveLength(23));
    expect(await events(api, '?delivery_status=delivered')).toHaveLength(0);
    expectError(await api.get('/webhooks/events?event_type=transaction.cancelled'), 400, 'BAD_REQUEST', /event_type must be one of transaction.created/);
    expectError(await api.get('/webhooks/events?transaction_id=abc'), 400, 'BAD_REQUEST', /transaction_id must be a UUID/);
  });
});
