// Output is a layer: commands hand data here; it becomes a table, JSON, NDJSON or CSV
// (JSON and NDJSON in json.ts, which loads neither this nor chalk). Every table cell is
// terminal-safe (sanitize.ts), its colour applied after, and measured and cut in terminal
// cells (width.ts).
import { Chalk, type ChalkInstance } from 'chalk';
import type { IO } from '../io.js';
import { isFinal } from '../lifecycle.js';
import { Painted, terminalSafe } from './sanitize.js';
import { pad, shorten, textWidth, type Cut } from './width.js';

/** What a column's value may be: a Painted is written as it is, anything else made terminal-safe (cell). */
export type CellValue = string | number | boolean | null | undefined | Painted;

export type Column<T> = {
  header: string;
  value: (row: T) => CellValue;
  /** A shorter form for a terminal too narrow for the table ("3 min ago"): tried before anything is cut. */
  compact?: (row: T) => CellValue;
  /** How the column gives way on a narrow terminal (layout); absent: it never does. */
  fit?: Fit;
};

/**
 * How a column gives way (docs/output.md, "Tables on a terminal"): `min`, the width it may be
 * shortened to, where `cut` says; `drop`, its rank among the columns left out when shortening
 * cannot make the table fit; `giveWay`, 'first' (ids) or 'last' among the columns shortened.
 */
export type Fit = { min?: number; drop?: number; cut?: Cut; giveWay?: 'first' | 'last' };

/** Space between columns; a table that does not fit narrows it to NARROW_GAP before cutting anything. */
export const GAP = 2;
export const NARROW_GAP = 1;

/**
 * Which columns to show and how wide: columns are left out only while shortening every one to
 * its `min` would still not fit; then the widest give up a character at a time, in `giveWay`
 * order. Without a width (piped output, --wide) every column is shown whole.
 */
export function fitWidths(natural: number[], fits: (Fit | undefined)[], width: number | undefined, gap = GAP): { keep: boolean[]; widths: number[] } {
  const keep = natural.map(() => true);
  const widths = [...natural];
  if (width === undefined) return { keep, widths };
  const floor = (i: number) => Math.min(natural[i]!, fits[i]?.min ?? natural[i]!);
  const total = (w: (i: number) => number) => span(keep.flatMap((k, i) => (k ? [w(i)] : [])), gap);
  const droppable = fits.flatMap((f, i) => (f?.drop !== undefined ? [[f.drop, i] as const] : [])).sort((a, b) => a[0] - b[0]);
  for (const [, i] of droppable) {
    if (total(floor) <= width) break;
    keep[i] = false;
  }
  const order = (i: number) => (fits[i]?.giveWay === 'first' ? 0 : fits[i]?.giveWay === 'last' ? 2 : 1);
  while (total((i) => widths[i]!) > width) {
    let pick = -1;
    for (let i = 0; i < widths.length; i++) {
      if (!keep[i] || widths[i]! <= floor(i)) continue;
      if (pick < 0 || order(i) < order(pick) || (order(i) === order(pick) && widths[i]! - floor(i) > widths[pick]! - floor(pick))) pick = i;
    }
    if (pick < 0) break;
    widths[pick]!--;
  }
  return { keep, widths };
}

/** How wide columns of `widths` are, side by side with `gap` between them. */
const span = (widths: number[], gap: number) => widths.reduce((a, b) => a + b, 0) + gap * Math.max(0, widths.length - 1);

export type Layout = { keep: boolean[]; widths: number[]; gap: number; compact: boolean };

/** How a table fits `width`: the compact forms first, then the space between columns, then fitWidths. */
export function layout(natural: number[], compactNatural: number[] | undefined, fits: (Fit | undefined)[], width: number | undefined): Layout {
  const whole = (widths: number[], gap: number, compact: boolean): Layout => ({ keep: widths.map(() => true), widths, gap, compact });
  if (width === undefined || span(natural, GAP) <= width) return whole(natural, GAP, false);
  const widths = compactNatural ?? natural;
  const compact = compactNatural !== undefined;
  if (span(widths, GAP) <= width) return whole(widths, GAP, compact);
  return { ...fitWidths(widths, fits, width, NARROW_GAP), gap: NARROW_GAP, compact };
}

export function chalkFor(io: IO, stream: 'out' | 'err' = 'out'): ChalkInstance {
  return new Chalk({ level: (stream === 'out' ? io.colorOut : io.colorErr) ? 1 : 0 });
}

/** A value as a table or record shows it, terminal-safe: `—` for nothing, objects as JSON. */
export function cell(value: unknown): string {
  if (value instanceof Painted) return value.text;
  if (value === null || value === undefined || value === '') return '—';
  return terminalSafe(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** Rows under a header line, without borders: grep-friendly, every cell terminal-safe so nothing breaks a row. */
export function renderTable<T>(io: IO, columns: Column<T>[], rows: Iterable<T>): void {
  const c = chalkFor(io);
  const list = [...rows];
  const cellsOf = (pick: (col: Column<T>) => (row: T) => CellValue) => list.map((row) => columns.map((col) => cell(pick(col)(row))));
  const naturalOf = (cells: string[][]) =>
    columns.map((col, i) => Math.max(textWidth(col.header), ...cells.map((r) => Math.max(...r[i]!.split('\n').map(textWidth)))));
  const full = cellsOf((col) => col.value);
  const short = columns.some((col) => col.compact) ? cellsOf((col) => col.compact ?? col.value) : undefined;
  // A header is never cut: it is what says what the column holds (a column is never narrower than it).
  const fits = columns.map((col) => (col.fit?.min !== undefined ? { ...col.fit, min: Math.max(col.fit.min, textWidth(col.header)) } : col.fit));
  const plan = layout(naturalOf(full), short && naturalOf(short), fits, io.tableWidth);
  const cells = plan.compact ? short! : full;
  const shown = <V>(list: V[]) => list.flatMap((v, i) => (plan.keep[i] ? [v] : []));
  // Every line of every cell cut to its column (coloured ones too: shorten keeps the colour
  // codes) and padded to it, both in terminal cells; piped, the widths are the natural ones
  // and nothing is cut.
  const widths = shown(plan.widths);
  const cuts = shown(columns.map((col) => col.fit?.cut));
  const lines = (row: string[]) => {
    const split = shown(row).map((text, i) => text.split('\n').map((line) => shorten(line, widths[i]!, cuts[i])));
    return Array.from({ length: Math.max(...split.map((l) => l.length)) }, (_, n) =>
      split.map((l, i) => pad(l[n] ?? '', widths[i]!)).join(' '.repeat(plan.gap)).replace(/[ \t]+$/, ''),
    );
  };
  io.out(`${[...lines(columns.map((col) => c.bold(col.header))), ...cells.flatMap((row) => lines(row))].join('\n')}\n`);
}

export type Section = { title?: string; fields: [label: string, value: unknown][] };

/** One record as label/value lines, grouped in titled sections; labels and values terminal-safe. */
export function renderRecord(io: IO, sections: Section[]): void {
  const c = chalkFor(io);
  const width = Math.max(...sections.flatMap((s) => s.fields.map(([label]) => textWidth(terminalSafe(label)))));
  const lines: string[] = [];
  sections.forEach((section, i) => {
    if (i > 0) lines.push('');
    if (section.title) lines.push(c.bold(terminalSafe(section.title)));
    for (const [label, value] of section.fields) {
      lines.push(`${section.title ? '  ' : ''}${c.dim(pad(terminalSafe(label), width))}  ${cell(value)}`);
    }
  });
  io.out(`${lines.join('\n')}\n`);
}

/** Colour a status by what it means: done, in flight, or ended badly. */
export function statusColor(c: ChalkInstance, status: string): string {
  if (status === 'completed') return c.green(status);
  if (isFinal(status)) return c.red(status);
  return c.yellow(status);
}
