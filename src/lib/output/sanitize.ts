// Text from outside never drives the terminal: each control character is shown in a visible
// notation (docs/output.md, "Text from outside").
//
// Where the boundary is: IO.err and IO.print sanitise every string; the renderers that write
// whole blocks with IO.out sanitise each piece before styling it (render.ts `cell`,
// tx/render.ts, webhooks/describe.ts `terminalLine`). A `Painted` can only be made by
// sanitising first and colouring after, so outside text reaches the terminal sanitised or not
// at all. Machine formats stay byte-faithful, except CSV written to a terminal (csv.ts).

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character shown as `\xHH`, `\n`, `\r`, `\t` or `\uHHHH`; one line, safe to print. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    return NAMED[ch] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/**
 * A JSON document (already parsed once, so valid) as text a terminal shows as it is and
 * that parses to the same value. Inside strings JSON has escaped C0 controls already; DEL,
 * C1 and the bidi controls, legal raw there, become `\uHHHH` escapes. Outside strings a
 * control can only be whitespace: a line break stays, a CR or tab becomes a space.
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE, (ch) => (ch === '\n' ? ch : ch === '\r' || ch === '\t' ? ' ' : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * Terminal text made here: a sanitised value inside our own styling (chalk's colour
 * codes). The constructor is private, so the only ways to get one are `Painted.of`, which
 * sanitises before it styles, and `Painted.lines`, which joins pieces that are safe.
 */
export class Painted {
  private constructor(readonly text: string) {}

  /** `value` made safe, then styled (e.g. `Painted.of(status, c.green)`). */
  static of(value: unknown, style: (text: string) => string = (text) => text): Painted {
    return new Painted(style(terminalSafe(String(value))));
  }

  /** Several lines of one cell (a wrapped table cell), the line breaks ours. */
  static lines(lines: readonly Text[]): Painted {
    return new Painted(lines.map((line) => terminalLine(line)).join('\n'));
  }

  toString(): string {
    return this.text;
  }
}

/** A piece of terminal output: a string (sanitised when written) or a Painted (written as it is). */
export type Text = string | Painted;

/** Shorthand for Painted.of. */
export const paint = Painted.of;

/** The terminal form of one line given as pieces: strings sanitised, painted pieces as they are. */
export function terminalLine(line: Text | readonly Text[]): string {
  const parts: readonly Text[] = Array.isArray(line) ? line : [line as Text];
  return parts.map((part) => (part instanceof Painted ? part.text : terminalSafe(part))).join('');
}
