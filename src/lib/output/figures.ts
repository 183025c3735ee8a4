// Figures for a person at a terminal: decimal strings with their thousands grouped
// (`249,951,761.16`) and bars of Unicode blocks. Only tables on a terminal use them;
// piped tables, CSV, JSON and XLSX keep plain decimals (docs/finance.md, "revenue summary").
import { Decimal, divide } from '../money.js';

/** `249951761.16` → `249,951,761.16`; the digits themselves untouched (text, never a number). */
export function groupThousands(value: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (!m) return value;
  return `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+$)/g, ',')}${m[3] ?? ''}`;
}

/** Eighths of a cell: a bar's end is drawn to the eighth. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * A bar `width` cells long for the largest `max`, as long for `value` in proportion, to the
 * eighth of a cell (a value above zero shows at least an eighth); nothing for zero or less.
 */
export function bar(value: string, max: string, width: number): string {
  const top = new Decimal(max);
  const v = new Decimal(value);
  if (!top.gt(0) || !v.gt(0)) return '';
  // A length on the screen, not an amount: rounded to the eighth.
  const eighths = Math.max(1, divide(v.times(width * 8), top, 0, Decimal.ROUND_HALF_UP).value.toNumber());
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}
