// Fault injection, to prove a client's recovery (the CLI contract, "The emulator"). With
// rate r, each authenticated request independently draws a fault with probability r:
// - reads: a 500 INTERNAL_ERROR or a 503 SERVICE_UNAVAILABLE, half each;
// - writes (POST): 500, 503, or a dropped connection, a third each. 500 and 503 are
//   answered before the handler runs, so nothing is committed; the drop happens after the
//   handler ran and committed (idempotency key stored too), with no answer at all: exactly
//   the case a retry with the same Idempotency-Key, or a read by merchant_reference, has
//   to recover from.
// Draws come from a seeded generator, so `--seed N` repeats the same sequence of faults
// for the same sequence of requests. No Retry-After is sent with injected 503s, so clients
// exercise their own backoff.
import type { Random } from './prng.js';

export type Fault = 'none' | 'internal_error' | 'unavailable' | 'drop';

export class FaultInjector {
  constructor(
    private readonly rate: number,
    private readonly random: Random,
  ) {}

  next(isWrite: boolean): Fault {
    if (this.rate <= 0 || this.random() >= this.rate) return 'none';
    const pick = this.random();
    if (isWrite) return pick < 1 / 3 ? 'internal_error' : pick < 2 / 3 ? 'unavailable' : 'drop';
    return pick < 0.5 ? 'internal_error' : 'unavailable';
  }
}
