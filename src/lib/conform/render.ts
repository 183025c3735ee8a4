// The report of `offramp conform` as a table: POINT, EMULATOR, OBSERVED, VERDICT, fitted to
// the terminal (80 columns when piped) by wrapping cells at spaces, never cutting them;
// then what the CLI does about each difference, one wrapped line per point, and the tally.
import type { IO } from '../io.js';
import { chalkFor, GAP, renderTable } from '../output/render.js';
import { paint, Painted, terminalSafe } from '../output/sanitize.js';
import { tally, type Finding, type Verdict } from './verdicts.js';

export const REPORT_WIDTH = 80;

export type Report = { target: string; env: string; findings: Finding[]; saved?: { profile: string; settings: string[] } };

export function renderReport(io: IO, report: Report, width = REPORT_WIDTH): void {
  const c = chalkFor(io);
  const color: Record<Verdict, (text: string) => string> = { same: c.green, handled: c.cyan, saved: c.cyan, 'needs-setting': c.yellow, unsupported: c.red, skipped: c.dim };
  // What the service answered is made terminal-safe before it is measured and wrapped: every field is text.
  const findings = report.findings.map((f) => Object.fromEntries(Object.entries(f).map(([key, text]) => [key, terminalSafe(text)])) as Finding);
  io.print([paint('Target', c.bold), `: ${report.target} (env: ${report.env})`]);
  io.print(paint('EMULATOR is what the emulator chose (docs/api.md, "Open points")', c.dim));
  io.print('');
  const w = fitColumns(findings, width);
  const cellLines = (text: string, width: number) => Painted.lines(lines(text, width));
  renderTable(
    io,
    [
      { header: 'POINT', value: (f: Finding) => cellLines(f.point, w.point) },
      { header: 'EMULATOR', value: (f: Finding) => cellLines(f.emulator, w.emulator) },
      { header: 'OBSERVED', value: (f: Finding) => cellLines(f.observed, w.observed) },
      { header: 'VERDICT', value: (f: Finding) => paint(f.verdict, color[f.verdict]) },
    ],
    findings,
  );
  const acted = findings.filter((f) => f.action && f.verdict !== 'same');
  if (acted.length > 0) {
    io.print('');
    io.print(paint('What the CLI does about each difference', c.bold));
    for (const f of acted) for (const line of hang(`${f.point}: ${f.action}`, width, '  ', '    ')) io.print(line);
  }
  const t = tally(findings);
  const parts = (Object.entries(t) as [Verdict, number][]).filter(([, n]) => n > 0).map(([v, n]) => `${n} ${v}`);
  io.print('');
  io.print(`${findings.length} points: ${parts.join(', ')}`);
  if (report.saved) {
    for (const line of hang(`saved in profile ${report.saved.profile}: ${report.saved.settings.join('; ')}`, width, '', '  ')) io.print(line);
  }
}

/**
 * Column widths that fit `width`. VERDICT keeps its width; EMULATOR and OBSERVED get at
 * least their longest word (a value such as `x-correlation-id` is never split), POINT what
 * remains up to its longest cell, and any width still left goes to the two values.
 */
export function fitColumns(findings: Finding[], width: number) {
  const longest = (header: string, pick: (f: Finding) => string) => Math.max(header.length, ...findings.map((f) => pick(f).length));
  const longestWord = (pick: (f: Finding) => string) => Math.max(8, ...findings.flatMap((f) => pick(f).split(/\s+/).map((w) => w.length)));
  const verdict = longest('VERDICT', (f) => f.verdict);
  const natural = { point: longest('POINT', (f) => f.point), emulator: longest('EMULATOR', (f) => f.emulator), observed: longest('OBSERVED', (f) => f.observed) };
  const budget = width - verdict - 3 * GAP;
  const emulator = Math.min(natural.emulator, longestWord((f) => f.emulator));
  const observed = Math.min(natural.observed, longestWord((f) => f.observed));
  const point = Math.max(16, Math.min(natural.point, budget - emulator - observed));
  let left = Math.max(0, budget - point - emulator - observed);
  const out = { point, emulator, observed };
  const grow = (key: 'emulator' | 'observed', share: number) => {
    const more = Math.min(share, natural[key] - out[key]);
    out[key] += more;
    left -= more;
  };
  // The narrower value column first, up to half: what it does not need goes to the other.
  const narrower = natural.emulator <= natural.observed ? 'emulator' : 'observed';
  grow(narrower, Math.floor(left / 2));
  grow(narrower === 'emulator' ? 'observed' : 'emulator', left);
  return out;
}

/** Breaks `text` at spaces into lines of at most `width` (a longer word is split). */
export function lines(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > width) {
      if (line) out.push(line);
      line = '';
      out.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line || out.length === 0) out.push(line);
  return out;
}

/** A paragraph with a hanging indent. */
function hang(text: string, width: number, first: string, rest: string): string[] {
  return lines(text, width - rest.length).map((l, i) => (i === 0 ? first : rest) + l);
}
