// Output is a layer: commands hand data here; it becomes a table, JSON, NDJSON or CSV
// (JSON and NDJSON in json.ts, which loads neither cli-table3 nor chalk).
// Tables are friendly on a terminal (colour, local times) and stable when piped.
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { IO } from '../io.js';
import { isTerminal } from '../lifecycle.js';

export type Column<T> = {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** How the column gives way on a narrow terminal (fitWidths); absent: it never does. */
  fit?: Fit;
};

/**
 * `min`: the column may be shortened to this width, the cut marked `…` (an id keeps its
 * recognisable head); `drop`: the column may be left out, lowest rank first, when
 * shortening every column cannot make the table fit.
 */
export type Fit = { min?: number; drop?: number };

/** Space between columns. */
export const GAP = 2;

/** Display width of a cell: code points, escape sequences left out. */
export function textWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\x1b\[[0-9;]*m/g, '')].length;
}

/** `text` cut to `width` with `…` at the end when it is longer. */
export function shorten(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * Which columns to show and how wide, for a table that must fit `width`: columns are left
 * out (by `drop` rank) only while shortening every shortenable one to its `min` would still
 * not fit; then the widest shortenable columns give up a character at a time. Without a
 * width (piped output, --wide) every column is shown whole.
 */
export function fitWidths(natural: number[], fits: (Fit | undefined)[], width: number | undefined): { keep: boolean[]; widths: number[] } {
  const keep = natural.map(() => true);
  const widths = [...natural];
  if (width === undefined) return { keep, widths };
  const floor = (i: number) => Math.min(natural[i]!, fits[i]?.min ?? natural[i]!);
  const total = (w: (i: number) => number) => {
    const shown = keep.flatMap((k, i) => (k ? [w(i)] : []));
    return shown.reduce((a, b) => a + b, 0) + GAP * Math.max(0, shown.length - 1);
  };
  const droppable = fits.flatMap((f, i) => (f?.drop !== undefined ? [[f.drop, i] as const] : [])).sort((a, b) => a[0] - b[0]);
  for (const [, i] of droppable) {
    if (total(floor) <= width) break;
    keep[i] = false;
  }
  while (total((i) => widths[i]!) > width) {
    let pick = -1;
    for (let i = 0; i < widths.length; i++) {
      if (keep[i] && widths[i]! > floor(i) && (pick < 0 || widths[i]! - floor(i) > widths[pick]! - floor(pick))) pick = i;
    }
    if (pick < 0) break;
    widths[pick]!--;
  }
  return { keep, widths };
}

export function chalkFor(io: IO, stream: 'out' | 'err' = 'out'): ChalkInstance {
  return new Chalk({ level: (stream === 'out' ? io.colorOut : io.colorErr) ? 1 : 0 });
}

export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Rows under a header line, without borders: whitespace-aligned, grep-friendly. On a
 * terminal the table fits its width (fitWidths); piped, every cell is whole.
 */
export function renderTable<T>(io: IO, columns: Column<T>[], rows: Iterable<T>): void {
  const c = chalkFor(io);
  const cells = [...rows].map((row) => columns.map((col) => cell(col.value(row))));
  const natural = columns.map((col, i) => Math.max(textWidth(col.header), ...cells.map((r) => Math.max(...r[i]!.split('\n').map(textWidth)))));
  const { keep, widths } = fitWidths(natural, columns.map((col) => col.fit), io.tableWidth);
  const shown = (list: string[]) => list.flatMap((v, i) => (keep[i] ? [v] : []));
  const table = new Table({
    head: shown(columns.map((col, i) => c.bold(shorten(col.header, widths[i]!)))),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': GAP },
    chars: NO_BORDERS,
    ...(io.tableWidth !== undefined ? { colWidths: shown(widths.map(String)).map((w) => Number(w) + GAP), wordWrap: false, truncate: '…' } : {}),
  });
  for (const r of cells) table.push(shown(r));
  io.out(`${table.toString().replace(/[ \t]+$/gm, '')}\n`);
}

export type Section = { title?: string; fields: [label: string, value: unknown][] };

/** One record as label/value lines, grouped in titled sections. */
export function renderRecord(io: IO, sections: Section[]): void {
  const c = chalkFor(io);
  const width = Math.max(...sections.flatMap((s) => s.fields.map(([label]) => label.length)));
  const lines: string[] = [];
  sections.forEach((section, i) => {
    if (i > 0) lines.push('');
    if (section.title) lines.push(c.bold(section.title));
    for (const [label, value] of section.fields) {
      lines.push(`${section.title ? '  ' : ''}${c.dim(label.padEnd(width))}  ${cell(value)}`);
    }
  });
  io.out(`${lines.join('\n')}\n`);
}

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/** Colour a status by what it means: done, in flight, or ended badly. */
export function statusColor(c: ChalkInstance, status: string): string {
  if (status === 'completed') return c.green(status);
  if (isTerminal(status)) return c.red(status);
  return c.yellow(status);
}
