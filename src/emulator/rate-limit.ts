// Per-key rate limit: a token bucket holding one second of requests, refilled continuously
// (the defaults are in docs/emulator.md, "Rate limits"). The bucket runs on real time, not the
// business clock (see clock.ts).
import { performance } from 'node:perf_hooks';

export const DEFAULT_RATE_LIMIT = { staging: 1000, production: 100 } as const;
export const MAX_RATE_LIMIT = 1_000_000;

type Bucket = { tokens: number; at: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(readonly perSecond: number) {}

  /** Takes one token for `key`; answers 0 when allowed, else the seconds to wait. */
  take(key: string): number {
    if (this.perSecond <= 0) return 0;
    const now = performance.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}
