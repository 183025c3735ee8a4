// Figures for a terminal: thousands grouped on the text itself (never through a number),
// and bars drawn to the eighth of a cell.
import { describe, expect, it } from 'vitest';
import { bar, groupThousands } from '../../src/lib/output/figures.js';

describe('groupThousands', () => {
  it.each([
    ['249951761.16', '249,951,761.16'],
    ['0', '0'],
    ['999', '999'],
    ['1000', '1,000'],
    ['-1234567.5', '-1,234,567.5'],
    ['12345678901234567890.123456789012345678', '12,345,678,901,234,567,890.123456789012345678'],
    ['0.000001', '0.000001'],
    ['not a number', 'not a number'],
  ])('%s → %s', (value, shown) => expect(groupThousands(value)).toBe(shown));
});

describe('bar', () => {
  it('is as long as the value is of the largest, to the eighth', () => {
    expect(bar('100', '100', 10)).toBe('██████████');
    expect(bar('50', '100', 10)).toBe('█████');
    expect(bar('55', '100', 10)).toBe('█████▌');
    expect(bar('0.000000000000000001', '100', 10)).toBe('▏');
    expect(bar('0', '100', 10)).toBe('');
    expect(bar('5', '0', 10)).toBe('');
    // Exact whatever the digits: one part in 10^20 short of the top is still a full bar.
    expect(bar('99999999999999999999.99999999999999999999', '100000000000000000000', 4)).toBe('████');
  });
});
