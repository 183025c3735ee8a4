// Text from outside never drives the terminal (issue #21): every control character is
// shown in a visible notation, real text (accents, the naira sign, emoji) is kept as is.
import { describe, expect, it } from 'vitest';
import { Painted, paint, terminalJson, terminalLine, terminalSafe } from '../../src/lib/output/sanitize.js';

describe('terminalSafe', () => {
  it('shows C0 controls, DEL and C1 controls as \\xHH, and LF, CR, TAB by name', () => {
    expect(terminalSafe('a\x00b\x07c\x08d\x7fe')).toBe('a\\x00b\\x07c\\x08d\\x7fe');
    expect(terminalSafe('line1\nline2\rtab\there')).toBe('line1\\nline2\\rtab\\there');
    expect(terminalSafe('\u0080\u0085\u009b\u009f')).toBe('\\x80\\x85\\x9b\\x9f');
  });

  it('neutralises escape sequences: a title, a screen clear, a colour, a hyperlink', () => {
    const hostile = '\x1b]0;PWNED\x07\x1b[2J\x1b[31mred\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\';
    const shown = terminalSafe(hostile);
    expect(shown).toBe('\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mred\\x1b]8;;http://evil\\x1b\\link\\x1b]8;;\\x1b\\');
    expect(shown).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('shows the bidirectional embeddings, overrides and isolates', () => {
    expect(terminalSafe('a\u202ab\u202ec\u2066d\u2069e')).toBe('a\\u202ab\\u202ec\\u2066d\\u2069e');
    // The Trojan Source trick: an override that makes "txt.exe" read as "exe.txt".
    expect(terminalSafe('invoice\u202etxt.exe')).toBe('invoice\\u202etxt.exe');
  });

  it('keeps real text as it is: accents, currency signs, CJK, emoji, joiners', () => {
    const text = 'café ₦5,000 naïve 日本 👩🏽‍💻 🇳🇬 \u200d € — “quoted”';
    expect(terminalSafe(text)).toBe(text);
  });

  it('is idempotent: what it returns holds nothing more to escape', () => {
    const once = terminalSafe('\x1b[2J\r\n\u202e');
    expect(terminalSafe(once)).toBe(once);
  });
});

describe('Painted', () => {
  const red = (s: string) => `\x1b[31m${s}\x1b[39m`;

  it('sanitises the value before styling it: our colour stays, the data’s escapes are shown', () => {
    const p = paint('done\x1b[2J', red);
    expect(p.text).toBe('\x1b[31mdone\\x1b[2J\x1b[39m');
  });

  it('a line mixes plain strings (sanitised) and painted pieces (as they are)', () => {
    expect(terminalLine(['ref \x1b]0;x\x07: ', paint('ok', red)])).toBe('ref \\x1b]0;x\\x07: \x1b[31mok\x1b[39m');
    expect(terminalLine('a\rb')).toBe('a\\rb');
  });

  it('lines of one cell are joined by our line breaks, each line sanitised', () => {
    expect(Painted.lines(['first\nhalf', 'second']).text).toBe('first\\nhalf\nsecond');
  });
});

describe('terminalJson', () => {
  it('escapes DEL, C1 and bidi controls inside strings; the document parses to the same value', () => {
    const value = { message: 'x\u009b31m\u007f\u202e', n: 1 };
    const json = terminalJson(JSON.stringify(value));
    expect(json).toBe('{"message":"x\\u009b31m\\u007f\\u202e","n":1}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
