// Exact decimal arithmetic in plain integers (BigInt on scaled values), independent of
// decimal.js: what the tests hold the CLI's sums and divisions to.

/** Digits after the point of a decimal string. */
export const placesOf = (text: string) => (text.includes('.') ? text.split('.')[1]!.length : 0);

/** The value as an integer count of 10^-scale (`scale` at least the value's places). */
export function scaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [integer, fraction = ''] = text.replace(/^-/, '').split('.');
  const units = BigInt(`${integer}${fraction.padEnd(scale, '0')}`);
  return negative ? -units : units;
}

/** An integer count of 10^-scale, written with exactly `scale` places. */
export function written(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** The exact sum, written with the widest scale among the values. */
export function exactSum(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map(placesOf));
  return written(values.reduce((sum, v) => sum + scaled(v, scale), 0n), scale);
}

/** Whether two decimal strings are the same number ("30" and "30.00" are). */
export function sameDecimal(a: string, b: string): boolean {
  const scale = Math.max(placesOf(a), placesOf(b));
  return scaled(a, scale) === scaled(b, scale);
}
