// Fault injection at random (`--fault-rate`), to prove a client's recovery (the CLI contract,
// "The emulator"). A drop happens after the handler committed (idempotency key stored too):
// exactly the case a retry with the same Idempotency-Key, or a read by merchant_reference,
// has to recover from. No Retry-After is sent with injected 503s, so clients exercise their
// own backoff.
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
