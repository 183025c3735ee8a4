import { describe, expect, it } from 'vitest';
import { amountProblem, DecimalSum, parseAmount } from '../../src/lib/money.js';
import { UsageError } from '../../src/lib/errors.js';

describe('amounts', () => {
  it.each(['1e3', '-5', '1,000', 'abc', '', ' ', '.5', '5.', '0x10', 'Infinity', 'NaN'])('rejects %j with an accepted form', (input) => {
    expect(amountProblem(input, 'fiat')).toMatch(/write it like 150000\.50|not a plain positive decimal/);
  });

  it('rejects zero in any spelling', () => {
    for (const zero of ['0', '0.00', '000']) expect(amountProblem(zero, 'token')).toMatch(/greater than zero/);
  });

  it('keeps fiat to 2 places and tokens to 18', () => {
    expect(amountProblem('10.123', 'fiat')).toMatch(/at most 2/);
    expect(amountProblem('10.12', 'fiat')).toBeNull();
    expect(amountProblem('1.123456789012345678', 'token')).toBeNull();
    expect(amountProblem('1.1234567890123456789', 'token')).toMatch(/at most 18/);
  });

  it('returns the string as typed, trimmed, never a number', () => {
    expect(parseAmount(' 150000.50 ', 'fiat', '--fiat-amount')).toBe('150000.50');
    expect(parseAmount('0.000000000000000001', 'token', '--crypto-amount')).toBe('0.000000000000000001');
    expect(() => parseAmount('1e3', 'fiat', '--fiat-amount')).toThrow(UsageError);
    expect(() => parseAmount('1e3', 'fiat', '--fiat-amount')).toThrow(/--fiat-amount/);
  });

  it('sums exactly where floating point would not', () => {
    const sum = (values: string[]) => {
      const total = new DecimalSum();
      for (const v of values) total.add(v);
      return total.toString();
    };
    expect(sum(['0.1', '0.2'])).toBe('0.3');
    expect(sum(Array(1000).fill('0.01'))).toBe('10.00');
    expect(sum(['9007199254740993.01', '1'])).toBe('9007199254740994.01');
  });
});
