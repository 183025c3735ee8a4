// The one retry schedule of the project: full-jitter exponential backoff (AWS's
// "Exponential Backoff And Jitter"), used by the HTTP client, and meant for every other
// loop that retries (README, "Retries and idempotency").

export type Backoff = {
  /** Delay of the first retry's range: retry n waits a random time in [0, min(cap, base·2ⁿ)). */
  baseMs: number;
  capMs: number;
  random?: () => number;
};

/** The wait before retry `n` (1 for the first retry). */
export function backoffDelay(n: number, b: Backoff): number {
  const ceiling = Math.min(b.capMs, b.baseMs * 2 ** Math.min(n, 30));
  return Math.floor((b.random ?? Math.random)() * ceiling);
}
