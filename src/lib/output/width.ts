// How much room text takes on a terminal, and how to cut it to fit: the one measure of
// every table, list and line fitted to a width (docs/output.md, "Widths").
//
// A terminal gives each grapheme (what a reader sees as one character) one or two cells:
// CJK ideographs, kana, Hangul and emoji take two, a combining mark none (é written as e
// plus U+0301 is one cell), a ZWJ sequence or a flag two in all. string-width measures
// that from the Unicode data (East Asian Width, emoji properties), so the rules come from a
// maintained source instead of tables kept here; Intl.Segmenter finds the graphemes, so a
// cut never splits a surrogate pair, a combining sequence or an emoji sequence.
import stringWidth from 'string-width';

export type Cut = 'end' | 'middle' | 'start';

/** Our colour codes (chalk's SGR sequences): they take no room, and a cut keeps every one. */
// eslint-disable-next-line no-control-regex
const SGR = /(\x1b\[[0-9;]*m)/;

/** Cells `text` takes on a terminal; colour codes take none. Text from outside is measured once terminal-safe (sanitize.ts). */
export function textWidth(text: string): number {
  return stringWidth(text);
}

let graphemes: Intl.Segmenter | undefined;

type Piece = { text: string; width: number; code: boolean };

/** `text` as pieces that are each kept or cut whole: graphemes with their width, colour codes with none. */
function pieces(text: string): Piece[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return text.split(SGR).flatMap((part, i): Piece[] =>
    i % 2 === 1 ? [{ text: part, width: 0, code: true }] : Array.from(graphemes!.segment(part), ({ segment }) => ({ text: segment, width: stringWidth(segment), code: false })),
  );
}

/**
 * `text` cut to `width` cells, the cut marked `…` (one cell, within the width): at the end
 * (default), in the middle, or at the start. Only whole graphemes are kept, so a wide one
 * that would straddle the edge goes and the line may end a cell short; colour codes are
 * all kept, so a style opened before the cut is still closed after it.
 */
export function shorten(text: string, width: number, cut: Cut = 'end'): string {
  if (textWidth(text) <= width) return text;
  if (width < 1) return '';
  const all = pieces(text);
  const room = width - 1;
  // Graphemes kept from the start and from the end, each side as many as fit its share.
  const take = (order: number[], budget: number) => {
    const kept = new Set<number>();
    let used = 0;
    for (const i of order) {
      if (all[i]!.code) continue;
      if (used + all[i]!.width > budget) break;
      used += all[i]!.width;
      kept.add(i);
    }
    return { kept, used };
  };
  const forward = all.map((_, i) => i);
  const backward = [...forward].reverse();
  const headShare = cut === 'end' ? room : cut === 'start' ? 0 : Math.ceil(room / 2);
  const head = take(forward, headShare);
  // At the end: nothing from the end, even where a wide grapheme left a cell unused.
  const tail = take(backward, cut === 'end' ? 0 : room - head.used);
  let out = '';
  let marked = false;
  all.forEach((piece, i) => {
    if (piece.code || head.kept.has(i) || tail.kept.has(i)) out += piece.text;
    else if (!marked) {
      out += '…';
      marked = true;
    }
  });
  return out;
}

/** `text` padded with spaces to `width` cells, on its right (default) or its left. */
export function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const space = ' '.repeat(Math.max(0, width - textWidth(text)));
  return align === 'right' ? space + text : text + space;
}
