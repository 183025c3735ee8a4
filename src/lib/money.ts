// Money is a decimal string from the flag to the wire and back; arithmetic goes through
// decimal.js, never a JS number.
import { Decimal } from 'decimal.js';
import { UsageError } from './errors.js';

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

/** Sum of decimal strings, exact. */
export function sumDecimals(values: Iterable<string>): Decimal {
  let total = new Decimal(0);
  for (const v of values) total = total.plus(v);
  return total;
}

export function decimalEquals(a: string | Decimal, b: string | Decimal): boolean {
  return new Decimal(a).equals(b);
}

export { Decimal };
