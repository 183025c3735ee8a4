// Exact totals of the ledger's rows per token (decimal.js, never a JS number; the sums are
// money.ts's DecimalSum).
import { DecimalSum } from '../money.js';

/** A ledger row's amounts (docs/api.md, "What the spec fixes": money): `crypto_amount` in token units, the rest in NGN. */
export const AMOUNTS = ['crypto_amount', 'amount', 'platform_fee', 'share'] as const;
type Amount = (typeof AMOUNTS)[number];
type Each<T> = { rows: number } & Record<Amount, T>;
const each = <T>(rows: number, value: (k: Amount) => T) => ({ rows, ...Object.fromEntries(AMOUNTS.map((k) => [k, value(k)])) }) as Each<T>;

/** What a TokenTotals holds, as decimal strings (a checkpoint, a manifest). */
export type TokenTotalsJSON = Record<string, Each<string>>;

/**
 * The rows' amounts summed per token: `crypto_amount` is in the token's units, `amount`,
 * `platform_fee` and `share` in NGN (docs/api.md, "What the spec fixes": money).
 */
export class TokenTotals {
  private readonly tokens = new Map<string, Each<DecimalSum>>();

  add(row: { crypto_currency: string } & Record<Amount, string>): void {
    const sums = this.sums(row.crypto_currency);
    sums.rows++;
    for (const k of AMOUNTS) sums[k].add(row[k]);
  }

  merge(other: TokenTotals): void {
    for (const [token, theirs] of other.tokens) {
      const sums = this.sums(token);
      sums.rows += theirs.rows;
      for (const k of AMOUNTS) sums[k].addSum(theirs[k]);
    }
  }

  /** Per token, tokens in alphabetical order. */
  toJSON(): TokenTotalsJSON {
    const out: TokenTotalsJSON = {};
    for (const token of [...this.tokens.keys()].sort()) {
      const s = this.tokens.get(token)!;
      out[token] = each(s.rows, (k) => s[k].toString());
    }
    return out;
  }

  /** NGN totals over every token. */
  fiat(): { amount: string; platform_fee: string; share: string } {
    const sum = (k: Amount) => {
      const total = new DecimalSum();
      for (const s of this.tokens.values()) total.addSum(s[k]);
      return total.toString();
    };
    return { amount: sum('amount'), platform_fee: sum('platform_fee'), share: sum('share') };
  }

  static fromJSON(json: TokenTotalsJSON): TokenTotals {
    const totals = new TokenTotals();
    for (const [token, t] of Object.entries(json)) {
      const sums = totals.sums(token);
      sums.rows = t.rows;
      for (const k of AMOUNTS) sums[k].add(t[k]);
    }
    return totals;
  }

  private sums(token: string): Each<DecimalSum> {
    let sums = this.tokens.get(token);
    if (!sums) this.tokens.set(token, (sums = each(0, () => new DecimalSum())));
    return sums;
  }
}
