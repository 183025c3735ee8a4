// Output is a layer: commands hand data here; it becomes a table, JSON, NDJSON or CSV
// (JSON and NDJSON in json.ts, which loads neither cli-table3 nor chalk).
// Tables are friendly on a terminal (colour, local times) and stable when piped.
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { IO } from '../io.js';
import { isTerminal } from '../lifecycle.js';

export type Column<T> = { header: string; value: (row: T) => string | number | boolean | null | undefined };

export function chalkFor(io: IO, stream: 'out' | 'err' = 'out'): ChalkInstance {
  return new Chalk({ level: (stream === 'out' ? io.colorOut : io.colorErr) ? 1 : 0 });
}

export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows under a header line. Piped output has no borders: whitespace-aligned, grep-friendly. */
export function renderTable<T>(io: IO, columns: Column<T>[], rows: Iterable<T>): void {
  const c = chalkFor(io);
  const table = new Table({
    head: columns.map((col) => c.bold(col.header)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: NO_BORDERS,
  });
  for (const row of rows) table.push(columns.map((col) => cell(col.value(row))));
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
