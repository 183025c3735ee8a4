// How many terminal cells a line takes, counted here without the code under test (which
// measures with string-width, src/lib/output/width.ts), for the text the width tests use:
// a grapheme takes two cells when it is an East Asian wide character (CJK ideographs, kana,
// Hangul, fullwidth forms) or an emoji (a pictograph outside the text-style symbols, a
// sequence joined with ZWJ or shown as emoji with VS16, a flag), none when it is combining
// marks alone, one otherwise.
const WIDE = /^(?:[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}])/u;
const EMOJI = /^(?:\p{Regional_Indicator}|[\u{1f000}-\u{1faff}]|\p{Extended_Pictographic}(?=.*[\u200d\ufe0f]))/su;
const MARKS = /^\p{M}+$/u;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export function cells(line: string): number {
  let n = 0;
  for (const { segment } of graphemes.segment(line)) n += MARKS.test(segment) ? 0 : WIDE.test(segment) || EMOJI.test(segment) ? 2 : 1;
  return n;
}

/** The graphemes of `text`, as a reader sees its characters. */
export function graphemesOf(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** Whether `text` holds a broken character: half a surrogate pair, or U+FFFD where bytes were cut. */
export function broken(text: string): boolean {
  return /[\p{Cs}\ufffd]/u.test(text);
}
