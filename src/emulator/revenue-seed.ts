// Synthetic ledger history for demos and benchmarks (`--seed-revenue N`; docs/emulator.md).
// The rows are kept as columns (typed arrays) and a row object is only built when a page
// serves it; the money is exact integer arithmetic in kobo and micro-tokens (every value
// far below 2^53), with the rounding rules of `fees` and `tokensFor`, against which the
// tests check seeded rows. Row objects priced by that decimal code instead were measured
// many times slower to build and larger in memory and in the state file (BENCHMARKS.md,
// "One source per fact"; bench/seed.mjs).
import { randomFillSync } from 'node:crypto';
import * as z from 'zod/mini';
import type { RevenueRow } from '../lib/schemas.js';
import { iso } from './clock.js';
import type { Rates } from './pricing.js';
import type { Random } from './prng.js';
import { firstIndex } from './sorted.js';

export const SEED_SPAN_DAYS = 180;
const MIN_KOBO = 500_000;
const KOBO_RANGE = 199_500_000;

type Pair = { token: string; network: string };

/** The columns of a seeded block as a state file keeps them (base64 of the typed arrays). */
export const SeededState = z.object({
  pairs: z.array(z.object({ token: z.string(), network: z.string() })),
  rate_kobo: z.int(),
  ts: z.string(),
  kobo: z.string(),
  pair: z.string(),
  ids: z.string(),
});
export type SeededState = z.infer<typeof SeededState>;

export class SeededRows {
  readonly length: number;

  /** `count` rows over the SEED_SPAN_DAYS before `now`, drawn from `random`. */
  static generate(count: number, now: number, random: Random, pairs: readonly Pair[], rates: Rates): SeededRows {
    const ts = new Float64Array(count);
    const span = SEED_SPAN_DAYS * 86_400_000;
    for (let i = 0; i < count; i++) ts[i] = now - Math.floor(random() * span);
    ts.sort();
    // Two rows in the same millisecond are nudged apart (backwards, so none is in the future).
    for (let i = count - 2; i >= 0; i--) if (ts[i]! >= ts[i + 1]!) ts[i] = ts[i + 1]! - 1;
    const kobo = new Uint32Array(count);
    const pair = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      kobo[i] = MIN_KOBO + Math.floor(random() * KOBO_RANGE);
      pair[i] = Math.floor(random() * pairs.length);
    }
    const rateKobo = Number(rates.adjusted.times(100).toFixed(0));
    return new SeededRows(ts, kobo, pair, randomFillSync(Buffer.alloc(count * 16)), rateKobo, pairs);
  }

  /** A block read back from a state file; throws on columns that do not fit together. */
  static fromState(state: SeededState): SeededRows {
    const bytes = (b64: string) => Buffer.from(b64, 'base64');
    const tsBytes = bytes(state.ts);
    const count = tsBytes.length / 8;
    const kobo = bytes(state.kobo);
    const pair = bytes(state.pair);
    const ids = bytes(state.ids);
    if (!Number.isInteger(count) || kobo.length !== count * 4 || pair.length !== count || ids.length !== count * 16) {
      throw new RangeError('seeded ledger columns do not have the same length');
    }
    if (state.pairs.length === 0 || pair.some((p) => p >= state.pairs.length)) throw new RangeError('seeded ledger rows name an unknown pair');
    // Copied into fresh, aligned buffers: a Buffer from base64 may sit at any offset of a shared pool.
    const ts = new Float64Array(count);
    new Uint8Array(ts.buffer).set(tsBytes);
    const koboColumn = new Uint32Array(count);
    new Uint8Array(koboColumn.buffer).set(kobo);
    return new SeededRows(ts, koboColumn, new Uint8Array(pair), ids, state.rate_kobo, state.pairs);
  }

  private constructor(
    /** Strictly increasing, so the block is already in (ts, transaction_id) order. */
    private readonly ts: Float64Array,
    private readonly kobo: Uint32Array,
    private readonly pair: Uint8Array,
    private readonly idBytes: Buffer,
    private readonly rateKobo: number,
    private readonly pairs: readonly Pair[],
  ) {
    this.length = ts.length;
  }

  toState(): SeededState {
    const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
    return { pairs: [...this.pairs], rate_kobo: this.rateKobo, ts: b64(this.ts), kobo: b64(this.kobo), pair: b64(this.pair), ids: b64(this.idBytes) };
  }

  tsAt(i: number): number {
    return this.ts[i]!;
  }

  /** A version-4 UUID made from the row's random bytes. */
  idAt(i: number): string {
    const b = this.idBytes.subarray(i * 16, i * 16 + 16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  matches(i: number, token: string | undefined, network: string | undefined): boolean {
    const pair = this.pairs[this.pair[i]!]!;
    return (token === undefined || pair.token === token) && (network === undefined || pair.network === network);
  }

  /** The partner share in kobo: 25% (half-up) of a 1% (half-up) platform fee. */
  shareKoboAt(i: number): number {
    return Math.floor((feeKobo(this.kobo[i]!) * 25 + 50) / 100);
  }

  rowAt(i: number): RevenueRow {
    const kobo = this.kobo[i]!;
    const pair = this.pairs[this.pair[i]!]!;
    const fee = feeKobo(kobo);
    return {
      transaction_id: this.idAt(i),
      merchant_id: 'merchant-seed',
      merchant_reference: `seed-${String(i + 1).padStart(6, '0')}`,
      terminal_id: `terminal-${(i % 8) + 1}`,
      crypto_currency: pair.token,
      network: pair.network,
      crypto_amount: fixed(floorDiv(kobo * 1_000_000, this.rateKobo), 6),
      amount: fixed(kobo, 2),
      platform_fee: fixed(fee, 2),
      share: fixed(this.shareKoboAt(i), 2),
      ts: iso(this.ts[i]!),
    };
  }

  /** First index whose ts is at or after `tsMs`. */
  firstAtOrAfter(tsMs: number): number {
    return firstIndex(this.length, (i) => this.ts[i]! >= tsMs);
  }

  /** First index whose (ts, id) sorts after the given key. */
  firstAfter(tsMs: number, id: string): number {
    const at = this.firstAtOrAfter(tsMs);
    // ts is strictly increasing: at most one row shares the key's millisecond.
    return at < this.length && this.ts[at] === tsMs && this.idAt(at) <= id ? at + 1 : at;
  }
}

/** 1% of the amount, half-up, in kobo. */
function feeKobo(kobo: number): number {
  return Math.floor((kobo + 50) / 100);
}

/** Exact floor of a / b for non-negative safe integers (a float quotient can land on the wrong side). */
function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q--;
  else if ((q + 1) * b <= a) q++;
  return q;
}

/** An integer count of 10^-places units as a decimal string. */
function fixed(units: number, places: number): string {
  const scale = 10 ** places;
  return `${Math.floor(units / scale)}.${String(units % scale).padStart(places, '0')}`;
}
