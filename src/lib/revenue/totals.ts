// Exact totals of the ledger's decimal strings (decimal.js, never a JS number), printed
// with the scale the service writes (the widest fraction seen), so "10.50" + "2.25" reads
// "12.75" and "1.10" + "2.20" reads "3.30", not "3.3".
import { Decimal, decimalEquals } from '../money.js';

export class DecimalSum {
  private total = new Decimal(0);
  private scale = 0;

  add(value: string): void {
    this.total = this.total.plus(value);
    const dot = value.indexOf('.');
    if (dot >= 0) this.scale = Math.max(this.scale, value.length - dot - 1);
  }

  addSum(other: DecimalSum): void {
    this.total = this.total.plus(other.total);
    this.scale = Math.max(this.scale, other.scale);
  }

  get value(): Decimal {
    return this.total;
  }

  toString(): string {
    return this.total.toFixed(this.scale);
  }

  equals(value: string): boolean {
    return decimalEquals(this.total, value);
  }
}

/** What a TokenTotals holds, as decimal strings (a checkpoint, a manifest). */
export type TokenTotalsJSON = Record<string, { rows: number; crypto_amount: string; amount: string; platform_fee: string; share: string }>;

type Sums = { rows: number; crypto_amount: DecimalSum; amount: DecimalSum; platform_fee: DecimalSum; share: DecimalSum };
type AmountRow = { crypto_currency: string; crypto_amount: string; amount: string; platform_fee: string; share: string };

/**
 * The rows' amounts summed per token: `crypto_amount` is in the token's units, `amount`,
 * `platform_fee` and `share` in NGN (docs/api.md, "What the spec fixes": money).
 */
export class TokenTotals {
  private readonly tokens = new Map<string, Sums>();

  add(row: AmountRow): void {
    const sums = this.sums(row.crypto_currency);
    sums.rows++;
    sums.crypto_amount.add(row.crypto_amount);
    sums.amount.add(row.amount);
    sums.platform_fee.add(row.platform_fee);
    sums.share.add(row.share);
  }

  merge(other: TokenTotals): void {
    for (const [token, theirs] of other.tokens) {
      const sums = this.sums(token);
      sums.rows += theirs.rows;
      sums.crypto_amount.addSum(theirs.crypto_amount);
      sums.amount.addSum(theirs.amount);
      sums.platform_fee.addSum(theirs.platform_fee);
      sums.share.addSum(theirs.share);
    }
  }

  /** Per token, tokens in alphabetical order. */
  toJSON(): TokenTotalsJSON {
    const out: TokenTotalsJSON = {};
    for (const token of [...this.tokens.keys()].sort()) {
      const s = this.tokens.get(token)!;
      out[token] = { rows: s.rows, crypto_amount: s.crypto_amount.toString(), amount: s.amount.toString(), platform_fee: s.platform_fee.toString(), share: s.share.toString() };
    }
    return out;
  }

  /** NGN totals over every token. */
  fiat(): { amount: string; platform_fee: string; share: string } {
    const amount = new DecimalSum();
    const fee = new DecimalSum();
    const share = new DecimalSum();
    for (const s of this.tokens.values()) {
      amount.addSum(s.amount);
      fee.addSum(s.platform_fee);
      share.addSum(s.share);
    }
    return { amount: amount.toString(), platform_fee: fee.toString(), share: share.toString() };
  }

  static fromJSON(json: TokenTotalsJSON): TokenTotals {
    const totals = new TokenTotals();
    for (const [token, t] of Object.entries(json)) {
      const sums = totals.sums(token);
      sums.rows = t.rows;
      sums.crypto_amount.add(t.crypto_amount);
      sums.amount.add(t.amount);
      sums.platform_fee.add(t.platform_fee);
      sums.share.add(t.share);
    }
    return totals;
  }

  private sums(token: string): Sums {
    let sums = this.tokens.get(token);
    if (!sums) {
      sums = { rows: 0, crypto_amount: new DecimalSum(), amount: new DecimalSum(), platform_fee: new DecimalSum(), share: new DecimalSum() };
      this.tokens.set(token, sums);
    }
    return sums;
  }
}
