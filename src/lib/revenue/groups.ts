// Ledger rows summed by group (`revenue summary --by`, the report, the XLSX "by month"
// sheet, the export's --summary table). Every figure is an exact decimal sum, so the groups'
// sums add up to the total, and the total equals that of the same rows exported.
import { UsageError } from '../errors.js';
import type { Window } from '../input/dates.js';
import { periodOf, periodsIn, PERIODS, type Period } from './periods.js';
import { DecimalSum } from '../money.js';
import type { RevenueRow } from '../schemas.js';

export const DIMENSIONS = [...PERIODS, 'token', 'network', 'merchant', 'terminal'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The row field each non-period dimension groups on. */
const FIELD = { token: 'crypto_currency', network: 'network', merchant: 'merchant_id', terminal: 'terminal_id' } as const;

export const isPeriod = (d: Dimension): d is Period => (PERIODS as readonly string[]).includes(d);

/** The fields a group reads from a row. */
export type GroupedRow = Pick<RevenueRow, 'crypto_currency' | 'network' | 'merchant_id' | 'terminal_id' | 'crypto_amount' | 'amount' | 'platform_fee' | 'share' | 'ts'>;

/**
 * One group's figures (`transactions` counts ledger rows; `crypto_amounts` per token) and its
 * dimension values by name, null where the rows have none or for a period without a row.
 */
export type Figures = ReturnType<Sums['figures']>;
export type GroupRow = Figures & { group: Partial<Record<Dimension, string | null>> };

/** `--by month,token` as dimensions, checked: known names, each once, at most one period. */
export function parseDimensions(value: string): Dimension[] {
  const dims = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (dims.length === 0) throw new UsageError(`--by: give one or more of ${DIMENSIONS.join(', ')}, comma-separated`);
  for (const d of dims) {
    if (!(DIMENSIONS as readonly string[]).includes(d)) throw new UsageError(`--by: "${d}" is not a grouping; use ${DIMENSIONS.join(', ')} (comma-separated, e.g. month,token)`);
  }
  if (new Set(dims).size !== dims.length) throw new UsageError(`--by: "${value}" names a grouping twice`);
  const periods = dims.filter((d) => isPeriod(d as Dimension));
  if (periods.length > 1) throw new UsageError(`--by: one calendar period at a time (${periods.join(' and ')} given)`);
  return dims as Dimension[];
}

class Sums {
  transactions = 0;
  readonly amount = new DecimalSum();
  readonly platform_fee = new DecimalSum();
  readonly share = new DecimalSum();
  readonly crypto = new Map<string, DecimalSum>();

  add(row: GroupedRow): void {
    this.transactions++;
    this.amount.add(row.amount);
    this.platform_fee.add(row.platform_fee);
    this.share.add(row.share);
    this.cryptoOf(row.crypto_currency).add(row.crypto_amount);
  }

  /** Adds another group's sums (the total is the sum of the groups). */
  addSums(other: Sums): void {
    this.transactions += other.transactions;
    this.amount.addSum(other.amount);
    this.platform_fee.addSum(other.platform_fee);
    this.share.addSum(other.share);
    for (const [token, sum] of other.crypto) this.cryptoOf(token).addSum(sum);
  }

  private cryptoOf(token: string): DecimalSum {
    if (!this.crypto.has(token)) this.crypto.set(token, new DecimalSum());
    return this.crypto.get(token)!;
  }

  figures() {
    const crypto_amounts: Record<string, string> = {};
    for (const token of [...this.crypto.keys()].sort()) crypto_amounts[token] = this.crypto.get(token)!.toString();
    return { transactions: this.transactions, amount: this.amount.toString(), platform_fee: this.platform_fee.toString(), share: this.share.toString(), crypto_amounts };
  }
}

export class Grouping {
  private readonly groups = new Map<string, { keys: (string | null)[]; sums: Sums }>();

  constructor(private readonly o: { by: Dimension[]; zone: string; window: Window }) {}

  get zone(): string {
    return this.o.zone;
  }

  readonly add = (row: GroupedRow): void => {
    this.sums(this.o.by.map((d) => (isPeriod(d) ? periodOf(row.ts, d, this.o.zone) : row[FIELD[d]]))).add(row);
  };

  /** The same rows grouped by some of these dimensions: the export's months or tokens out of its months × tokens. */
  rollup(by: Dimension[]): Grouping {
    const out = new Grouping({ ...this.o, by });
    for (const g of this.groups.values()) out.sums(by.map((d) => g.keys[this.o.by.indexOf(d)] ?? null)).addSums(g.sums);
    return out;
  }

  private sums(keys: (string | null)[]): Sums {
    const id = JSON.stringify(keys);
    let g = this.groups.get(id);
    if (!g) this.groups.set(id, (g = { keys, sums: new Sums() }));
    return g.sums;
  }

  /** Periods in time order, other values alphabetically (none last); every period of the window has a row. */
  rows(): GroupRow[] {
    const list = [...this.groups.values()];
    const p = this.o.by.findIndex(isPeriod);
    if (p >= 0) {
      const seen = new Set(list.map((g) => g.keys[p]));
      for (const period of periodsIn(this.o.window, this.o.by[p] as Period, this.o.zone)) {
        if (!seen.has(period)) list.push({ keys: this.o.by.map((_, i) => (i === p ? period : null)), sums: new Sums() });
      }
    }
    list.sort((a, b) => {
      for (let i = 0; i < a.keys.length; i++) {
        const x = a.keys[i] ?? null;
        const y = b.keys[i] ?? null;
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return x < y ? -1 : 1;
      }
      return 0;
    });
    return list.map((g) => ({ group: Object.fromEntries(this.o.by.map((d, i) => [d, g.keys[i] ?? null])), ...g.sums.figures() }));
  }

  total(): Figures {
    const all = new Sums();
    for (const g of this.groups.values()) all.addSums(g.sums);
    return all.figures();
  }

  /**
   * Per token, in token order (alphabetical), `crypto_amount` in the token's units and the
   * rest in NGN (docs/api.md, "What the spec fixes": money): the manifest's and the workbook's totals.
   */
  tokens(): Record<string, { rows: number; crypto_amount: string; amount: string; platform_fee: string; share: string }> {
    return Object.fromEntries(
      this.rollup(['token']).rows().map((g) => {
        const token = g.group.token!;
        return [token, { rows: g.transactions, crypto_amount: g.crypto_amounts[token]!, amount: g.amount, platform_fee: g.platform_fee, share: g.share }];
      }),
    );
  }
}
