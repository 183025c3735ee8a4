// Business time for the emulator: quote validity (120 s), deposit deadlines (30 min),
// idempotency retention (24 h), timestamps on every record. It is injectable so tests can
// jump past a deadline instead of waiting for it.
//
// Pacing is deliberately NOT on this clock: rate-limit refill, injected latency and
// webhook retry delays run on real time, because they exist to shape real traffic and a
// frozen test clock must not freeze them (nor a jump flood them).

import type { Clock } from './types.js';

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and scripted demos. */
export class ManualClock implements Clock {
  private ms: number;
  private readonly listeners = new Set<() => void>();

  constructor(start: number | Date = Date.now()) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.ms;
  }

  /** Moves time forward by `ms` and lets the emulator expire what became due. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ManualClock.advance takes a non-negative number of milliseconds');
    this.ms += ms;
    for (const listener of this.listeners) listener();
  }

  /** Sets an absolute time (forward only, so deadlines stay ordered). */
  set(to: number | Date): void {
    const target = typeof to === 'number' ? to : to.getTime();
    this.advance(Math.max(0, target - this.ms));
  }

  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * The emulator's own clock on top of one that cannot be moved (the system clock, or a
 * test's `{ now }`): `POST /__emulator/clock` adds to its offset, and the offset is kept
 * in the state file, so time moved forward stays moved across a restart.
 */
export class OffsetClock implements Clock {
  offsetMs = 0;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }
}

// The last two answers are remembered: a request stamps the same one or two instants
// (now, and a deadline) several times, and toISOString is not free under load.
let memoA = { ms: Number.NaN, text: '' };
let memoB = { ms: Number.NaN, text: '' };

/** RFC 3339 in UTC with milliseconds. */
export function iso(ms: number): string {
  if (ms === memoA.ms) return memoA.text;
  if (ms === memoB.ms) return memoB.text;
  memoB = memoA;
  memoA = { ms, text: new Date(ms).toISOString() };
  return memoA.text;
}
