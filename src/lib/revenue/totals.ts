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
