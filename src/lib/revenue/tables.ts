// The totals that `revenue export --summary` prints (on stderr: stdout carries the rows)
// and the grouped tables of `revenue summary --by`.
import type { IO } from '../io.js';
import { Decimal, DecimalSum } from '../money.js';
import { bar, groupThousands } from '../output/figures.js';
import { cell, GAP, renderTable, type Column, type Fit } from '../output/render.js';
import { pad, textWidth } from '../output/width.js';
import { isPeriod, type Grouping, type Dimension, type Figures, type GroupRow } from './groups.js';
import { periodsIn } from './periods.js';
import type { SliceCheck } from './export.js';

/** Each slice's figures, and their total; what the rows written add up to is `written` (their grouping's total). */
export function checkRows(checks: SliceCheck[], written: Figures) {
  const slices = checks.map(({ tally, ok }) => ({
    slice: String(tally.index + 1),
    from: tally.window.from.toISOString(),
    to: tally.window.to.toISOString(),
    rows: tally.rows,
    share: tally.share.toString(),
    // Rows the service sent, and their share: what its summary is compared with.
    received: tally.received,
    received_share: tally.receivedShare.toString(),
    service_rows: tally.service?.transaction_count ?? null,
    service_share: tally.service?.total_partner_share ?? null,
    ok,
  }));
  const receivedShare = new DecimalSum();
  const serviceShare = new DecimalSum();
  for (const { tally } of checks) {
    receivedShare.addSum(tally.receivedShare);
    if (tally.service) serviceShare.add(tally.service.total_partner_share);
  }
  const total: (typeof slices)[number] = {
    slice: 'total',
    from: slices[0]?.from ?? '',
    to: slices[slices.length - 1]?.to ?? '',
    rows: written.transactions,
    share: written.share,
    received: slices.reduce((n, s) => n + s.received, 0),
    received_share: receivedShare.toString(),
    service_rows: slices.reduce((n, s) => n + (s.service_rows ?? 0), 0),
    service_share: serviceShare.toString(),
    ok: checks.every((c) => c.ok),
  };
  return { slices, total };
}

/**
 * The check as a table of calendar months, not slices: slices are how the export reads, not
 * how finance reads (a mismatch names its slice in the error). --json keeps the slices too.
 */
export function renderChecks(io: IO, checks: SliceCheck[], json: boolean, sums: Grouping): void {
  const { slices, total } = checkRows(checks, sums.total());
  // Each month of the window, ok when every slice that reaches into it matched the service.
  const failed = new Set(checks.filter((c) => !c.ok).flatMap((c) => periodsIn(c.tally.window, 'month', sums.zone)));
  const perMonth = sums.rollup(['month']).rows().map((g) => ({ month: g.group.month!, rows: g.transactions, share: g.share, ok: !failed.has(g.group.month!) }));
  // Received and exported differ only when the service ignored a filter.
  const filtered = [...slices, total].some((r) => r.received !== r.rows);
  if (json) return io.err(JSON.stringify({ months: perMonth, slices, total, ok: total.ok }));
  // Thousands grouped for a person at a terminal (the table is on stderr).
  const num = (v: string | number) => (io.stderrIsTTY ? groupThousands(String(v)) : String(v));
  const figures = (rows: number | null, share: string | null) => `${rows === null ? '—' : num(rows)} row${rows === 1 ? '' : 's'}, ${share === null ? '—' : num(share)}`;
  type Line = { label: string; rows: number | string; share: string; received: string; service: string };
  const lines: Line[] = [
    ...perMonth.map((m) => ({ label: m.month, rows: num(m.rows), share: num(m.share), received: ' ', service: m.ok ? 'ok' : 'MISMATCH' })),
    {
      label: 'total',
      rows: num(total.rows),
      share: num(total.share),
      received: figures(total.received, total.received_share),
      service: total.ok ? 'ok' : `MISMATCH: ${figures(total.service_rows, total.service_share)}`,
    },
  ];
  const columns: Column<Line>[] = [
    { header: 'MONTH', value: (r) => r.label },
    { header: 'ROWS', value: (r) => r.rows },
    { header: 'SHARE', value: (r) => r.share },
    ...(filtered ? ([{ header: 'RECEIVED', value: (r) => r.received }] satisfies Column<Line>[]) : []),
    { header: 'SERVICE', value: (r) => r.service },
  ];
  // Through an IO whose `out` is stderr: the table is not the command's data.
  const stderr = Object.create(io, {
    out: { value: (text: string) => io.stderr.write(io.redact(text)) },
    colorOut: { value: io.colorErr },
    stdoutIsTTY: { value: io.stderrIsTTY },
  }) as IO;
  renderTable(stderr, columns, lines);
}

/** An ISO instant as its day when its time of day is `edge` (a whole-day border), else whole, without zero milliseconds. */
export function border(iso: string, edge: string): string {
  if (iso.endsWith(`T${edge}`)) return iso.slice(0, 10);
  return iso.replace(/\.000Z$/, 'Z');
}

/** The most cells a bar takes; it takes fewer when the terminal has no more room. */
const BAR_MAX = 24;
/** A bar narrower than this says nothing: it is left out instead. */
const BAR_MIN = 6;

const HEADERS: Record<Dimension, string> = { day: 'DAY', week: 'WEEK (ISO)', month: 'MONTH', quarter: 'QUARTER', token: 'TOKEN', network: 'NETWORK', merchant: 'MERCHANT', terminal: 'TERMINAL' };

/** Groups and their total as a table; on a terminal, grouped thousands and (with `chart`, grouped by a period) a bar column; piped, plain decimals. */
export function renderGroups(io: IO, rows: GroupRow[], total: Figures, o: { by: readonly Dimension[]; chart: boolean }): void {
  const terminal = io.tableWidth !== undefined;
  const num = (v: string | number) => (terminal ? groupThousands(String(v)) : String(v));
  const byToken = o.by.includes('token');
  type Line = { group: GroupRow['group'] | undefined; f: Figures };
  const lines: Line[] = [...rows.map((r) => ({ group: r.group, f: r as Figures })), { group: undefined, f: total }];
  // A figure is never cut. The token amount (up to 18 decimals) is the one left out when the
  // row would not fit the terminal otherwise: the NGN figures are what the summary is for.
  type FigureColumn = [string, (f: Figures, line: Line) => string, Fit?];
  const crypto: FigureColumn = ['CRYPTO', (f, line) => (line.group ? num(Object.values(f.crypto_amounts)[0] ?? '0') : ''), { drop: 1 }];
  const figureColumns: FigureColumn[] = [
    ['TXNS', (f) => num(f.transactions)],
    ['VOLUME (NGN)', (f) => num(f.amount)],
    ['FEE (NGN)', (f) => num(f.platform_fee)],
    ['SHARE (NGN)', (f) => num(f.share)],
    ...(byToken ? [crypto] : []),
  ];
  // Right-aligned: each figure padded to its column's widest, header included.
  const aligned = figureColumns.map(([header, value, fit]) => {
    const cells = lines.map((line) => value(line.f, line));
    const width = Math.max(textWidth(header), ...cells.map(textWidth));
    return { header: terminal ? pad(header, width, 'right') : header, cells: cells.map((c) => (terminal ? pad(c, width, 'right') : c)), width, fit };
  });
  const dimColumns: Column<number>[] = o.by.map((d, i) => ({
    header: HEADERS[d],
    value: (n) => {
      const group = lines[n]!.group;
      if (!group) return i === 0 ? 'total' : '';
      return group[d] ?? null;
    },
    fit: { min: 8, cut: 'middle' },
  }));
  const columns: Column<number>[] = [...dimColumns, ...aligned.map((a) => ({ header: a.header, value: (n: number) => a.cells[n], ...(a.fit ? { fit: a.fit } : {}) }))];
  const period = o.by.some(isPeriod);
  if (terminal && o.chart && period) {
    const dimWidth = dimColumns.reduce((w, c) => w + Math.max(textWidth(c.header), ...lines.map((_, n) => textWidth(cell(c.value(n))))), 0);
    const used = dimWidth + aligned.reduce((w, a) => w + a.width, 0) + GAP * columns.length;
    const width = Math.min(BAR_MAX, io.tableWidth! - used);
    if (width >= BAR_MIN) {
      const max = rows.reduce((m, r) => (new Decimal(r.share).gt(m) ? r.share : m), '0');
      // A blank, not the '—' of a missing value: no bar is a bar of nothing.
      columns.push({ header: 'SHARE', value: (n) => (lines[n]!.group ? bar(lines[n]!.f.share, max, width) : '') || ' ' });
    }
  }
  renderTable(io, columns, lines.map((_, n) => n));
}
