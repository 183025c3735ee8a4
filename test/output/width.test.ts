// Text is measured and cut in terminal cells (docs/output.md, "Widths"): CJK and emoji take
// two cells, a combining mark none; a cut keeps whole graphemes (never half a surrogate
// pair, an accent without its letter, a piece of a ZWJ family or of a flag) and its `…`
// lands within the width. Expected figures are a terminal's, counted by hand.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/lib/io.js';
import { renderTable, type Column } from '../../src/lib/output/render.js';
import { paint } from '../../src/lib/output/sanitize.js';
import { pad, shorten, textWidth } from '../../src/lib/output/width.js';
import { renderGroups } from '../../src/lib/revenue/tables.js';
import type { Figures, GroupRow } from '../../src/lib/revenue/groups.js';
import { broken, cells, graphemesOf } from './cells.js';

const FAMILY = '👨‍👩‍👧‍👦';
const FLAG = '🇳🇬';
const CAFE = 'cafe\u0301';
const CODER = '🧑‍💻';

describe('textWidth', () => {
  it('counts the cells a terminal gives each character', () => {
    expect(textWidth('order-1')).toBe(7);
    expect(textWidth('注文-東京')).toBe(9);
    expect(textWidth('カタカナ')).toBe(8);
    expect(textWidth('한국어')).toBe(6);
    expect(textWidth(FAMILY)).toBe(2);
    expect(textWidth(FLAG)).toBe(2);
    expect(textWidth(CODER)).toBe(2);
    expect(textWidth(CAFE)).toBe(4);
    expect(textWidth('…')).toBe(1);
  });

  it('gives our colour codes no room, and a control shown as \\xHH its four cells', () => {
    expect(textWidth('\x1b[32m東京\x1b[39m')).toBe(4);
    expect(textWidth('a\\x1bb')).toBe(6);
  });
});

describe('shorten', () => {
  it('cuts by cells, the … within the width', () => {
    expect(shorten('注文-東京-0001', 8)).toBe('注文-東…');
    expect(shorten('注文-東京-0001', 8, 'start')).toBe('…京-0001');
    expect(shorten('注文-東京-0001', 9, 'middle')).toBe('注文…0001');
    expect(shorten('注文-東京', 9)).toBe('注文-東京');
  });

  it('never puts half a wide character at the edge: the line ends a cell short instead', () => {
    expect(shorten('東京東京', 4)).toBe('東…');
    expect(shorten('東京東京', 4, 'start')).toBe('…京');
    expect(shorten('東京東京', 4, 'middle')).toBe('東…');
    expect(shorten('ab東京', 4)).toBe('ab…');
  });

  it('keeps a ZWJ family, a flag and a combining accent whole or leaves them out', () => {
    const text = `${CAFE}-${FAMILY}${FLAG}-注文-${CODER}-end`;
    const whole = new Set(graphemesOf(text));
    for (const cut of ['end', 'middle', 'start'] as const) {
      for (let width = 1; width < cells(text); width++) {
        const shown = shorten(text, width, cut);
        expect(cells(shown), `${cut} ${width}: ${shown}`).toBeLessThanOrEqual(width);
        expect(broken(shown), `${cut} ${width}: ${shown}`).toBe(false);
        // Every character shown is one of the text's, whole, and the cut is marked once.
        const pieces = graphemesOf(shown);
        expect(pieces.filter((g) => g === '…'), `${cut} ${width}: ${shown}`).toHaveLength(1);
        for (const g of pieces) if (g !== '…') expect(whole.has(g), `${cut} ${width}: ${JSON.stringify(g)} in ${shown}`).toBe(true);
      }
    }
    expect(shorten(text, 5)).toBe('cafe\u0301…');
    expect(shorten(text, 4)).toBe('caf…');
    expect(shorten(text, 8)).toBe(`${CAFE}-${FAMILY}…`);
    expect(shorten(text, 7)).toBe(`${CAFE}-…`);
  });

  it('keeps every colour code, so a style opened before the cut is closed after it', () => {
    expect(shorten('\x1b[31m東京東京\x1b[39m', 5)).toBe('\x1b[31m東京…\x1b[39m');
    expect(shorten('\x1b[31m東京東京\x1b[39m', 5, 'start')).toBe('\x1b[31m…東京\x1b[39m');
  });

  it('leaves nothing of a text cut to no room at all', () => {
    expect(shorten('東京', 0)).toBe('');
    expect(shorten('東京', 1)).toBe('…');
  });
});

describe('pad', () => {
  it('pads to a width in cells, on either side', () => {
    expect(pad('東京', 6)).toBe('東京  ');
    expect(pad(CAFE, 6, 'right')).toBe(`  ${CAFE}`);
    expect(pad(FAMILY, 3)).toBe(`${FAMILY} `);
    expect(pad('東京東京', 6)).toBe('東京東京');
  });
});

/** What `render` writes on a terminal `width` columns wide (or piped), as lines. */
function written(render: (io: IO) => void, width?: number): string[] {
  const stdout = Object.assign(new PassThrough(), width === undefined ? {} : { isTTY: true, columns: width });
  let text = '';
  stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
  render(new IO({ stdout, stderr: new PassThrough(), stdin: new PassThrough(), env: { NO_COLOR: '1' } } as unknown as ConstructorParameters<typeof IO>[0]));
  return text.replace(/\n$/, '').split('\n');
}

const table = <T>(columns: Column<T>[], rows: T[], width?: number) => written((io) => renderTable(io, columns, rows), width);

describe('renderTable', () => {
  type Row = { ref: string; status: string };
  const rows: Row[] = [
    { ref: `注文-東京-渋谷店-${CODER}-0001`, status: 'completed' },
    { ref: `${CAFE}-${FAMILY}-${FLAG}-0002`, status: 'failed' },
    { ref: 'order-3', status: 'awaiting_deposit' },
  ];
  const columns: Column<Row>[] = [
    { header: 'REFERENCE', value: (r) => r.ref, fit: { min: 12, cut: 'middle' } },
    { header: 'STATUS', value: (r) => paint(r.status) },
  ];
  // Where STATUS starts, in cells from the start of the line.
  const statusAt = (line: string, status: string) => cells(line.slice(0, line.lastIndexOf(status)));

  it.each([undefined, 40, 32, 30])('lines its columns up in cells (width %s)', (width) => {
    const lines = table(columns, rows, width);
    expect(lines).toHaveLength(4);
    const starts = ['STATUS', ...rows.map((r) => r.status)].map((s, i) => statusAt(lines[i]!, s));
    expect(new Set(starts).size, lines.join('\n')).toBe(1);
    if (width !== undefined) for (const l of lines) expect(cells(l), l).toBeLessThanOrEqual(width);
    for (const l of lines) expect(broken(l), l).toBe(false);
  });

  it('piped, shows every reference whole', () => {
    const lines = table(columns, rows);
    for (const [i, r] of rows.entries()) expect(lines[i + 1]).toContain(r.ref);
  });

  it('cuts a reference in its middle, whole characters each side', () => {
    const lines = table(columns, rows, 30);
    expect(lines[1]).toBe(`注文-…${CODER}-0001 completed`);
    expect(lines[2]).toBe(`${CAFE}-…${FLAG}-0002 failed`);
  });
});

describe('revenue summary by month and merchant', () => {
  const figures = (share: string): Figures => ({ transactions: 1234, amount: '98765432.10', platform_fee: '987654.32', share, crypto_amounts: { usdt: '64000.5' } });
  const MERCHANTS = ['東京渋谷本店', `大阪-${FAMILY}`];
  const rows: GroupRow[] = MERCHANTS.map((merchant, i) => ({ ...figures(i ? '250000.00' : '500000.00'), group: { month: '2026-11', merchant } }));

  it.each([80, 100])('at %i columns: the bar takes the room the merchant names leave, counted in cells', (width) => {
    const lines = written((io) => renderGroups(io, rows, figures('750000.00'), { by: ['month', 'merchant'], chart: true }), width);
    for (const l of lines) expect(cells(l), l).toBeLessThanOrEqual(width);
    expect(lines[0]).toMatch(/SHARE$/);
    for (const [i, merchant] of MERCHANTS.entries()) expect(lines[i + 1], lines.join('\n')).toContain(` ${merchant} `);
  });
});
