// The one retry schedule of the project: exponential backoff with jitter (AWS's
// "Exponential Backoff And Jitter"). Retry n waits at most min(cap, base·2ⁿ); `jitter` is
// the share of that ceiling drawn at random:
//
// - 1 (full jitter, the default): anywhere below the ceiling. The HTTP client (docs/configuration.md,
//   "Retries and idempotency"), and conform's probes through it.
// - 0.25: between 75% and 100% of the ceiling, so that the forwarder's delays (and its
//   queue's pauses) stay what docs/webhooks.md promises app authors, yet a batch of
//   failures does not come back as one burst.
// - 0: the ceiling itself. The emulator's deliveries (docs/emulator.md): 0.5 s, 1 s, 2 s...,
//   repeatable run to run, as a test against the emulator wants.

export type Backoff = {
  /** Retry n waits at most min(cap, base·2ⁿ): the first retry's ceiling is twice the base. */
  baseMs: number;
  capMs: number;
  /** Share of the ceiling drawn at random, from 0 (none) to 1 (full jitter, the default). */
  jitter?: number;
  random?: () => number;
};

/** The wait before retry `n` (1 for the first retry), in whole milliseconds. */
export function backoffDelay(n: number, b: Backoff): number {
  const ceiling = Math.min(b.capMs, b.baseMs * 2 ** Math.min(n, 30));
  const jitter = b.jitter ?? 1;
  return Math.floor(ceiling * (1 - jitter + jitter * (b.random ?? Math.random)()));
}
