// Money is a decimal string from the flag to the wire and back; arithmetic goes through
// decimal.js, never a JS number, and this module is the only door to decimal.js.
//
// decimal.js rounds every operation, addition included, to `precision` significant digits
// (20 by default), which lost the last digits of a sum of 18-decimal amounts. The Decimal
// here is a clone at the most precision decimal.js allows, so a sum, difference, product or
// comparison is exact. A division that does not end would then fill the memory: it is done
// by `divide` alone, which names the places and the rounding mode. Nothing else rounds an
// amount without saying to what (toDecimalPlaces with a mode, where the choice is made).
import { Decimal as DecimalJs } from 'decimal.js';
import { UsageError } from './errors.js';

export const Decimal = DecimalJs.clone({
  precision: 1e9,
  // toString() in plain notation whatever the exponent ("0.00000001", never "1e-8").
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
export type Decimal = DecimalJs;
export type Rounding = DecimalJs.Rounding;
type Value = DecimalJs.Value;

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

export const FIAT_DECIMALS = 2;
export const TOKEN_DECIMALS = 18;
/**
 * Integer digits an amount may have: the spec names no maximum, and beyond a trillion
 * trillion NGN a value is a typo, not a payout (docs/api.md); refused before sending.
 */
export const MAX_INTEGER_DIGITS = 15;

export type AmountKind = 'fiat' | 'token';

/** Why `input` is not an acceptable amount, or null when it is. Used by flags and prompts. */
export function amountProblem(input: string, kind: AmountKind): string | null {
  const value = input.trim();
  const places = kind === 'fiat' ? FIAT_DECIMALS : TOKEN_DECIMALS;
  const example = kind === 'fiat' ? '150000.50' : '100.5';
  if (!PLAIN_DECIMAL.test(value)) {
    return `"${input}" is not a plain positive decimal (write it like ${example})`;
  }
  if (new Decimal(value).isZero()) return `amount must be greater than zero (write it like ${example})`;
  const integer = value.split('.')[0]!.replace(/^0+(?=\d)/, '');
  if (integer.length > MAX_INTEGER_DIGITS) return `"${input}" has ${integer.length} digits before the point; amounts take at most ${MAX_INTEGER_DIGITS}`;
  const fraction = value.split('.')[1] ?? '';
  if (fraction.length > places) {
    return `"${input}" has ${fraction.length} decimal places; ${kind === 'fiat' ? 'NGN' : 'token'} amounts take at most ${places}`;
  }
  return null;
}

/** Validates a user-supplied amount and returns it as the decimal string to send. */
export function parseAmount(input: string, kind: AmountKind, flag: string): string {
  const problem = amountProblem(input, kind);
  if (problem) throw new UsageError(`${flag}: ${problem}`);
  return input.trim();
}

export function decimalEquals(a: Value, b: Value): boolean {
  return new Decimal(a).equals(b);
}

/**
 * `dividend / divisor` rounded once, correctly, and whether that rounding changed it; the
 * caller names places and mode, as none is right for every amount.
 */
export function divide(dividend: Value, divisor: Value, places: number, rounding: Rounding): { value: Decimal; exact: boolean } {
  if (!Number.isInteger(places) || places < 0) throw new RangeError(`places must be a whole number >= 0, got ${places}`);
  const a = new Decimal(dividend);
  const b = new Decimal(divisor);
  if (b.isZero()) throw new RangeError('division by zero');
  const unit = new Decimal(`1e-${places}`);
  // The quotient in units of the last place: an integer part (truncated, exact at this
  // precision) and a rest that says how far past it the true quotient lies.
  const scaled = a.times(`1e${places}`);
  const whole = scaled.dividedToIntegerBy(b);
  const rest = scaled.minus(whole.times(b));
  if (rest.isZero()) return { value: whole.times(unit).plus(0), exact: true };
  // Every rounding mode decides on the sign, the parity of the last digit, and whether the
  // rest is below, at or above half a unit; a stand-in of the same sign and side of the
  // half rounds the same way, and decimal.js rounds it.
  const side = rest.abs().times(2).comparedTo(b.abs());
  const part = side < 0 ? '0.25' : side === 0 ? '0.5' : '0.75';
  const negative = a.isNegative() !== b.isNegative();
  const standIn = negative ? whole.minus(part) : whole.plus(part);
  return { value: standIn.toDecimalPlaces(0, rounding).times(unit).plus(0), exact: false };
}

/**
 * An exact total of decimal strings, printed with the scale the service writes (the widest
 * fraction seen), so "10.50" + "2.25" reads "12.75" and "1.10" + "2.20" reads "3.30", not "3.3".
 */
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

  toString(): string {
    return this.total.toFixed(this.scale);
  }

  equals(value: string): boolean {
    return decimalEquals(this.total, value);
  }
}
