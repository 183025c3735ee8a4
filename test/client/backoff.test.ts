// The one retry schedule (src/lib/client/backoff.ts) with the three settings the project uses:
// full jitter (the client, docs/configuration.md "Retries and idempotency"), 75–100% (the forwarder,
// docs/webhooks.md) and none (the emulator's deliveries, docs/emulator.md).
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/lib/client/backoff.js';

const draws = (values: number[]) => {
  const queue = [...values];
  return () => queue.shift()!;
};

describe('backoffDelay', () => {
  it('full jitter: anywhere below min(cap, base·2ⁿ)', () => {
    const b = { baseMs: 250, capMs: 8000 };
    expect(backoffDelay(1, { ...b, random: () => 0 })).toBe(0);
    expect(backoffDelay(1, { ...b, random: () => 0.999 })).toBe(499);
    expect(backoffDelay(3, { ...b, random: () => 0.5 })).toBe(1000);
    expect(backoffDelay(10, { ...b, random: () => 0.5 })).toBe(4000);
  });

  it('a quarter of jitter: between 75% and 100% of the ceiling, doubling up to the cap (the forwarder)', () => {
    const b = { baseMs: 250, capMs: 30_000, jitter: 0.25 };
    const low = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, { ...b, random: () => 0 }));
    const high = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, { ...b, random: () => 1 }));
    expect(high).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(low).toEqual(high.map((ms) => ms * 0.75));
  });

  it('no jitter: the same delays every run (the emulator: 0.5 s, 1 s, 2 s, …)', () => {
    const random = draws([0.1, 0.9, 0.3]);
    const b = { baseMs: 250, capMs: 60_000, jitter: 0, random };
    expect([1, 2, 3].map((n) => backoffDelay(n, b))).toEqual([500, 1000, 2000]);
  });

  it('a retry far down the line waits the cap, never a number a timer cannot hold', () => {
    for (const n of [31, 100, 10_000]) {
      expect(backoffDelay(n, { baseMs: 500, capMs: 60_000, jitter: 0 })).toBe(60_000);
    }
  });
});
