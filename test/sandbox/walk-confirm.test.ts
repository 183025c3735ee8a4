// `simulate walk` and `smoke` count a step only once the transaction shows the status the
// step leads to (issue #21). A proxy in front of the emulator plays two simulators that
// answer 200 without applying the event: one never applies it, one applies it a couple of
// reads later (the spec: simulated events go through "the same machinery as normal
// processing", which a service may run after answering). In process, with a fake clock:
// the waiting costs no real time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFor, TEST_KEY } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { breakingProxy, type Json } from './breaking-proxy.js';

let emu: Awaited<ReturnType<typeof emulatorFor>>;
beforeAll(async () => {
  emu = await emulatorFor();
});
afterAll(() => emu.close());

/** A clock that moves only when the command sleeps, and remembers each sleep. */
function fakeClock() {
  let t = Date.parse('2026-11-22T10:00:00.000Z');
  const slept: number[] = [];
  return {
    slept,
    now: () => new Date(t),
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
  };
}

const emulatorCall = async (method: string, path: string, body?: unknown): Promise<Json> => {
  const res = await fetch(`${emu.emulator.url}${path}`, {
    method,
    headers: { 'x-api-key': TEST_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return res.json();
};

/**
 * A simulator that answers 200 with the transaction as it is, and applies the event only
 * after `readsBeforeApplying` reads of the transaction (Infinity: never).
 */
async function lateSimulator(readsBeforeApplying: number) {
  const pending = new Map<string, { events: string[]; reads: number }>();
  const simulated: string[] = [];
  const proxy = await breakingProxy(emu.emulator.origin, {
    async answer(req, body) {
      if (req.method === 'POST' && req.path.endsWith('/sandbox/simulate')) {
        const { transaction_id: id, event } = JSON.parse(body) as { transaction_id: string; event: string };
        simulated.push(event);
        const queue = pending.get(id) ?? { events: [], reads: 0 };
        queue.events.push(event);
        pending.set(id, queue);
        return { status: 200, body: await emulatorCall('GET', `/transactions/${id}`) };
      }
      const id = /\/transactions\/([0-9a-f-]{36})$/.exec(req.path)?.[1];
      const queue = id ? pending.get(id) : undefined;
      if (req.method === 'GET' && id && queue && ++queue.reads > readsBeforeApplying) {
        for (const event of queue.events.splice(0)) await emulatorCall('POST', '/sandbox/simulate', { transaction_id: id, event });
        pending.delete(id);
      }
      return undefined;
    },
  });
  return { proxy, simulated };
}

type Walk = { transaction: { id: string; status: string }; steps: { step: string; status_before: string | null; status: string | null }[] };

describe('simulate walk confirms each step', { timeout: 60_000 }, () => {
  it('a simulator that answers 200 and changes nothing: exit 8 naming the step, the status expected and the status seen', async () => {
    const { proxy, simulated } = await lateSimulator(Infinity);
    const clock = fakeClock();
    try {
      const r = await runMain(['simulate', 'walk', '--timeout', '5000'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl }, now: clock.now, sleep: clock.sleep });
      expect(r.code, r.stderr).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^error: CHECK_FAILED: step deposit\.detected did not take effect: transaction [0-9a-f-]{36} should be deposit_confirming, and is awaiting_deposit \(the simulator answered awaiting_deposit; read for 5000 ms after it\)$/m,
      );
      expect(r.stderr).toMatch(/^hint: a service may apply simulated events some time after it answers: a larger --timeout \(now 5000 ms\) waits longer/m);
      // It read for the whole --timeout, a pause between reads, and went no further.
      expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(5000);
      expect(Math.max(...clock.slept)).toBe(500);
      expect(simulated).toEqual(['deposit.detected']);
    } finally {
      await proxy.close();
    }
  });

  it('a simulator that applies each event a couple of reads later: exit 0, every step at its status', async () => {
    const { proxy, simulated } = await lateSimulator(2);
    const clock = fakeClock();
    try {
      const r = await runMain(['simulate', 'walk', '--settle', '--json'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl }, now: clock.now, sleep: clock.sleep });
      expect(r.code, r.stderr).toBe(0);
      const walk = JSON.parse(r.stdout) as Walk;
      expect(walk.transaction.status).toBe('completed');
      expect(walk.steps.map((s) => `${s.step}:${s.status_before}→${s.status}`)).toEqual([
        'quote:null→null',
        'create:null→awaiting_deposit',
        'deposit.detected:awaiting_deposit→deposit_confirming',
        'deposit.confirmed:deposit_confirming→selling_crypto',
        'transaction.completed:selling_crypto→completed',
        'payout.settled:completed→completed',
      ]);
      expect(simulated).toEqual(['deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled']);
      // Each status change waited for two reads, a pause before each after the first.
      expect(clock.slept).toEqual([500, 500, 500, 500, 500, 500]);
    } finally {
      await proxy.close();
    }
  });

  it('refunded: waiting from failed (a final status) for the refund to apply', async () => {
    const { proxy } = await lateSimulator(1);
    const clock = fakeClock();
    try {
      const r = await runMain(['simulate', 'walk', '--outcome', 'refunded', '--json'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl }, now: clock.now, sleep: clock.sleep });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Walk).steps.at(-1)).toMatchObject({ step: 'transaction.refunded', status_before: 'failed', status: 'refunded' });
      expect(clock.slept).toEqual([500, 500, 500, 500]);
    } finally {
      await proxy.close();
    }
  });

  it('smoke fails its walk check the same way (exit 8), naming the step', async () => {
    const { proxy } = await lateSimulator(Infinity);
    const clock = fakeClock();
    try {
      const r = await runMain(['smoke', '--json', '--timeout', '2000'], { env: { ...emu.env, OFFRAMP_BASE_URL: proxy.baseUrl }, now: clock.now, sleep: clock.sleep });
      expect(r.code, r.stderr).toBe(8);
      const report = JSON.parse(r.stdout) as { ok: boolean; checks: { id: string; status: string; detail: string }[] };
      expect(report.ok).toBe(false);
      expect(report.checks[0]).toMatchObject({
        id: 'walk',
        status: 'fail',
        detail: expect.stringMatching(/^CHECK_FAILED: step deposit\.detected did not take effect: .* should be deposit_confirming, and is awaiting_deposit/),
      });
    } finally {
      await proxy.close();
    }
  });
});
