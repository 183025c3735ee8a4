// Webhook chaos (`webhookChaos`, `--webhook-chaos`): every event still arrives, duplicates
// share the event id and the bytes, events arrive out of order, and telemetry counts
// every POST that was made.
import { afterEach, describe, expect, it } from 'vitest';
import { parseChaos } from '../../src/emulator/chaos.js';
import { startEmulator } from '../../src/emulator/index.js';
import { closeAll, createTx, eventually, simulate, startApi, webhookReceiver } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('webhook chaos', () => {
  it('delivers every event, twice under duplicate=1, the second overtaking the first under reorder=1; telemetry counts each POST', async () => {
    const hooks = await webhookReceiver();
    cleanups.push(hooks.close);
    const api = await startApi({ webhookUrl: hooks.url, seed: 11, webhookChaos: { duplicate: 1, reorder: 1, delayMs: [0, 10] } });
    const tx = await createTx(api);
    for (const event of ['deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']) {
      expect((await simulate(api, tx.id, event)).status).toBe(200);
    }
    const events = (await api.get(`/webhooks/events?transaction_id=${tx.id}`)).body.data.data as { event_id: string; event_type: string }[];
    expect(events).toHaveLength(5);
    // Every event twice; a held one waits at most a couple of seconds for a later one.
    await eventually(() => expect(hooks.deliveries).toHaveLength(10), 8000);

    const byId = new Map<string, string[]>();
    for (const d of hooks.deliveries) {
      expect(d.headers['x-svc-webhook-id']).toBe(d.body.id);
      byId.set(d.body.id, [...(byId.get(d.body.id) ?? []), d.raw]);
    }
    expect([...byId.keys()].sort()).toEqual(events.map((e) => e.event_id).sort());
    for (const [, raws] of byId) {
      expect(raws).toHaveLength(2);
      expect(raws[1]).toBe(raws[0]);
    }
    // Out of order: the first event was held until the second had gone out. (The emulator
    // lists events newest first, so the list reversed is the order they were made in.)
    const made = [...events].reverse();
    const firstArrivals = [...byId.keys()];
    expect(firstArrivals.indexOf(made[1]!.event_id)).toBeLessThan(firstArrivals.indexOf(made[0]!.event_id));
    expect(firstArrivals).not.toEqual(made.map((e) => e.event_id));

    // Telemetry is what happened: two POSTs each, delivered, no error.
    await eventually(async () => {
      const after = (await api.get(`/webhooks/events?transaction_id=${tx.id}`)).body.data.data as { attempts: number; delivery_status: string; last_error: string | null }[];
      expect(after.map((e) => [e.attempts, e.delivery_status, e.last_error])).toEqual(Array(5).fill([2, 'delivered', null]));
    });
  });

  it('counts a failed duplicate in attempts and last_error, and the event stays delivered', async () => {
    // The endpoint takes each event once and refuses it the second time.
    const seen = new Set<string>();
    const hooks = await webhookReceiver((_n, d) => {
      const id = (d.body as { id: string }).id;
      if (seen.has(id)) return 409;
      seen.add(id);
      return 200;
    });
    cleanups.push(hooks.close);
    const api = await startApi({ webhookUrl: hooks.url, seed: 3, webhookChaos: { duplicate: 1 } });
    const tx = await createTx(api);
    await eventually(() => expect(hooks.deliveries).toHaveLength(2));
    const [evt] = await eventually(async () => {
      const list = (await api.get(`/webhooks/events?transaction_id=${tx.id}`)).body.data.data;
      expect(list[0].attempts).toBe(2);
      return list;
    });
    expect(evt).toMatchObject({ delivery_status: 'delivered', attempts: 2, last_error: expect.stringMatching(/^duplicate \(webhook chaos\): endpoint answered HTTP 409/) });
  });

  it('parses the flag form and refuses what it cannot read', async () => {
    expect(parseChaos('duplicate=0.2,reorder=0.3,delay=10-500ms')).toEqual({ duplicate: 0.2, reorder: 0.3, delayMs: [10, 500] });
    expect(parseChaos('delay=1-3s')).toEqual({ delayMs: [1000, 3000] });
    expect(parseChaos('duplicate=1')).toEqual({ duplicate: 1 });
    // One range parser for every delay flag: a single duration is a fixed delay, units on each side.
    expect(parseChaos('delay=10ms')).toEqual({ delayMs: [10, 10] });
    expect(parseChaos('delay=500ms-2s')).toEqual({ delayMs: [500, 2000] });
    for (const [bad, message] of [
      ['duplicate=2', /not a probability/],
      ['reorder=-0.1', /not a probability/],
      ['delay=500-10ms', /runs backwards/],
      ['delay=soon', /not a duration/],
      ['shuffle=0.5', /unknown chaos "shuffle"/],
      ['duplicate', /NAME=VALUE/],
      ['', /at least one/],
    ] as const) {
      expect(parseChaos(bad), bad).toMatch(message);
    }
    await expect(startEmulator({ port: 0, webhookChaos: { duplicate: 1.5 } })).rejects.toThrow(/webhookChaos.duplicate/);
  });
});
