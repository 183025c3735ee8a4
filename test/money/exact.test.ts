// Issue 21, "totals are rounded": every sum, difference and comparison of amounts is exact
// for any number of digits, and a division rounds once, to the places and by the mode it
// names. Checked against exact integer arithmetic (BigInt on scaled values) over thousands
// of random decimals of up to 30 integer and 30 fraction digits, both signs. The seed is
// fixed, so a failure reproduces; each assertion names the case that broke it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom, type Random } from '../../src/emulator/prng.js';
import { Decimal, DecimalSum, decimalEquals, divide, type Rounding } from '../../src/lib/money.js';
import { Grouping } from '../../src/lib/revenue/groups.js';
import { parseWindow } from '../../src/lib/input/dates.js';
import { exactSum, placesOf, scaled, written } from '../helpers/decimal.js';

const SEED = 20_261_121;
const COUNT = 5000;

/** A decimal string of 1–30 integer digits and 0–30 fraction digits, negative when `signed` says so. */
function randomDecimal(random: Random, signed: boolean): string {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const integer = digits(1 + Math.floor(random() * 30)).replace(/^0+(?=\d)/, '');
  const places = Math.floor(random() * 31);
  const sign = signed && random() < 0.5 ? '-' : '';
  return `${sign}${integer}${places > 0 ? `.${digits(places)}` : ''}`;
}

describe('exact sums (property, seed ' + SEED + ')', () => {
  it(`${COUNT} random decimals of up to 30+30 digits, both signs, sum exactly`, () => {
    const random = seededRandom(SEED);
    const values = Array.from({ length: COUNT }, () => randomDecimal(random, true));
    const want = exactSum(values);
    const sum = new DecimalSum();
    for (const v of values) sum.add(v);
    expect(sum.toString()).toBe(want);
    expect(sum.equals(want)).toBe(true);
  });

  it('every running total along the way is exact too (sums, differences, comparisons)', () => {
    const random = seededRandom(SEED + 1);
    let total = new Decimal(0);
    let units = 0n;
    for (let i = 0; i < COUNT; i++) {
      const a = randomDecimal(random, true);
      const subtract = random() < 0.5;
      total = subtract ? total.minus(a) : total.plus(a);
      units += (subtract ? -1n : 1n) * scaled(a, 30);
      const want = written(units, 30);
      const step = `step ${i} (${subtract ? '-' : '+'} ${a})`;
      expect(total.toFixed(30), step).toBe(want);
      expect(decimalEquals(total, want), step).toBe(true);
      // One unit in the 31st decimal place away is another amount.
      expect(decimalEquals(total, `${want}1`), step).toBe(false);
    }
  });

  it("sums regrouped (months × tokens, then per token and in all) stay exact: an export's manifest and workbook totals", () => {
    const random = seededRandom(SEED + 2);
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      ts: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
      network: 'bep20',
      merchant_id: null,
      terminal_id: null,
      crypto_currency: i % 3 === 0 ? 'usdc' : 'usdt',
      crypto_amount: randomDecimal(random, false),
      amount: randomDecimal(random, true),
      platform_fee: randomDecimal(random, true),
      share: randomDecimal(random, true),
    }));
    const sums = new Grouping({ by: ['month', 'token'], zone: 'UTC', window: parseWindow('2026-01-01', '2026-06-30') });
    for (const row of rows) sums.add(row);
    const tokens = sums.tokens();
    expect(Object.keys(tokens)).toEqual(['usdc', 'usdt']);
    for (const token of ['usdc', 'usdt']) {
      const mine = rows.filter((r) => r.crypto_currency === token);
      expect(tokens[token]).toEqual({
        rows: mine.length,
        crypto_amount: exactSum(mine.map((r) => r.crypto_amount)),
        amount: exactSum(mine.map((r) => r.amount)),
        platform_fee: exactSum(mine.map((r) => r.platform_fee)),
        share: exactSum(mine.map((r) => r.share)),
      });
    }
    expect(sums.total().share).toBe(exactSum(rows.map((r) => r.share)));
    expect(sums.rollup(['month']).total()).toEqual(sums.total());
  });

  it("the issue's two manifest totals", () => {
    const sum = (values: string[]) => {
      const total = new DecimalSum();
      for (const v of values) total.add(v);
      return total.toString();
    };
    expect(sum(['1752.398878555055555555', '1752.398878555055555555'])).toBe('3504.797757110111111110');
    expect(sum(['100000000000000000000.000000000000000001', '23456789012228296700.579214789012345678'])).toBe(
      '123456789012228296700.579214789012345679',
    );
  });
});

const MODES: [string, Rounding][] = [
  ['ROUND_UP', Decimal.ROUND_UP],
  ['ROUND_DOWN', Decimal.ROUND_DOWN],
  ['ROUND_CEIL', Decimal.ROUND_CEIL],
  ['ROUND_FLOOR', Decimal.ROUND_FLOOR],
  ['ROUND_HALF_UP', Decimal.ROUND_HALF_UP],
  ['ROUND_HALF_DOWN', Decimal.ROUND_HALF_DOWN],
  ['ROUND_HALF_EVEN', Decimal.ROUND_HALF_EVEN],
  ['ROUND_HALF_CEIL', Decimal.ROUND_HALF_CEIL],
  ['ROUND_HALF_FLOOR', Decimal.ROUND_HALF_FLOOR],
];

/** a / b to `places` by `mode`, in integers: the quotient truncated, then moved by the remainder's side of a half. */
function exactQuotient(a: string, b: string, places: number, mode: Rounding): { text: string; exact: boolean } {
  const scale = Math.max(placesOf(a), placesOf(b));
  let n = scaled(a, scale) * 10n ** BigInt(places);
  let d = scaled(b, scale);
  if (d < 0n) [n, d] = [-n, -d];
  const q = n / d;
  const r = n - q * d;
  if (r === 0n) return { text: written(q, places), exact: true };
  const sign = n < 0n ? -1n : 1n;
  const twice = 2n * (r < 0n ? -r : r);
  const above = twice > d;
  const tie = twice === d;
  const away: Record<number, boolean> = {
    [Decimal.ROUND_UP]: true,
    [Decimal.ROUND_DOWN]: false,
    [Decimal.ROUND_CEIL]: sign > 0n,
    [Decimal.ROUND_FLOOR]: sign < 0n,
    [Decimal.ROUND_HALF_UP]: above || tie,
    [Decimal.ROUND_HALF_DOWN]: above,
    [Decimal.ROUND_HALF_EVEN]: above || (tie && q % 2n !== 0n),
    [Decimal.ROUND_HALF_CEIL]: above || (tie && sign > 0n),
    [Decimal.ROUND_HALF_FLOOR]: above || (tie && sign < 0n),
  };
  return { text: written(away[mode] ? q + sign : q, places), exact: false };
}

describe('divide: one rounding, to the places and by the mode named (property)', () => {
  it('random dividends and divisors, every mode, 0 to 20 places', () => {
    const random = seededRandom(SEED + 3);
    for (let i = 0; i < 3000; i++) {
      const a = randomDecimal(random, true);
      // Small divisors make exact quotients and exact halves (ties) common.
      const b = random() < 0.4 ? String([2, 4, 8, 5, 16, 3, -2, 40][Math.floor(random() * 8)]) : randomDecimal(random, true);
      if (/^-?0(\.0*)?$/.test(b)) continue;
      const places = Math.floor(random() * 21);
      const [name, mode] = MODES[i % MODES.length]!;
      const want = exactQuotient(a, b, places, mode);
      const got = divide(a, b, places, mode);
      const label = `${a} / ${b} to ${places} places, ${name}`;
      expect(got.value.toFixed(places), label).toBe(want.text);
      expect(got.exact, label).toBe(want.exact);
    }
  });

  it('where the default 20 significant digits would round twice', () => {
    // 0.9999999999999999999999 rounded to 20 digits is 1; rounded down to 18 places it is not.
    expect(divide('99999999999999999999.99', '100000000000000000000', 18, Decimal.ROUND_DOWN).value.toFixed(18)).toBe('0.999999999999999999');
    expect(divide('1', '3', 30, Decimal.ROUND_HALF_EVEN).value.toFixed()).toBe('0.333333333333333333333333333333');
    expect(divide('1', '8', 2, Decimal.ROUND_HALF_EVEN)).toMatchObject({ exact: false });
    expect(divide('1', '8', 2, Decimal.ROUND_HALF_EVEN).value.toFixed(2)).toBe('0.12');
    expect(divide('-1', '8', 2, Decimal.ROUND_HALF_UP).value.toFixed(2)).toBe('-0.13');
    expect(() => divide('1', '0.00', 2, Decimal.ROUND_DOWN)).toThrow(RangeError);
  });
});

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) ? [join(dir, e.name)] : []));
}

describe('one door to decimal.js', () => {
  // decimal.js's own Decimal rounds every result to 20 digits; money.ts's divides to a
  // billion digits (a process that runs out of memory): anywhere but src/lib/money.ts,
  // either would round money unseen or never answer.
  it('no module but src/lib/money.ts imports decimal.js; no code of the project divides a Decimal but money.ts', () => {
    const offenders: string[] = [];
    for (const file of ['src', 'test', 'bench', 'scripts'].flatMap((dir) => sources(join(ROOT, dir)))) {
      const name = relative(ROOT, file);
      if (name === join('src', 'lib', 'money.ts') || name === relative(ROOT, import.meta.filename)) continue;
      const text = readFileSync(file, 'utf8');
      if (name.startsWith('src') && /from ['"]decimal\.js['"]/.test(text)) offenders.push(`${name}: imports decimal.js`);
      const division = /(?<!Math)\.(div|dividedBy|dividedToIntegerBy|divToInt|mod|modulo|pow|toPower|sqrt|squareRoot|ln|naturalLogarithm|exp|naturalExponential)\(/g;
      for (const m of text.matchAll(division)) offenders.push(`${name}: .${m[1]}(`);
    }
    expect(offenders).toEqual([]);
  });
});
