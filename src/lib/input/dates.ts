// Date arguments: RFC 3339 date-times, or plain YYYY-MM-DD days in UTC where a `--to` day
// is inclusive (it ends at 23:59:59.999). The service is always sent RFC 3339.
import { UsageError } from '../errors.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time (section 5.6: `T` and `Z` in either case, any offset) as epoch ms, or
 * undefined when it is not one or names no real instant (30 February, hour 24). A leap second,
 * `:60` where the time is 23:59:60 in UTC, is the last millisecond of the minute it ends (a
 * Date has no 61st second); fractions beyond the millisecond are cut, as Date.parse cuts them.
 */
export function rfc3339Ms(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s, oh = 0, om = 0] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) => (m[i] === undefined ? undefined : Number(m[i]))) as number[];
  const day = new Date(0).setUTCFullYear(y!, mo! - 1, d!);
  if (mo! < 1 || mo! > 12 || new Date(day).getUTCDate() !== d || h! > 23 || mi! > 59 || s! > 60 || oh > 23 || om > 59) return undefined;
  const ms = day + ((h! * 60 + mi!) * 60 + Math.min(s!, 59)) * 1000 - (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  if (s === 60) return new Date(ms).toISOString().endsWith('T23:59:59.000Z') ? ms + 999 : undefined;
  return ms + Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
}

export const DAY_MS = 86_400_000;
/** the spec: a revenue window may not exceed 90 days. */
export const MAX_WINDOW_MS = 90 * DAY_MS;

export function parseDateArg(input: string, edge: 'start' | 'end', flag: string): Date {
  const value = input.trim();
  const day = DAY.exec(value);
  if (day) {
    const date = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
      throw new UsageError(`${flag}: "${input}" is not a real calendar day`);
    }
    return edge === 'start' ? date : new Date(date.getTime() + DAY_MS - 1);
  }
  // A space for the T, as RFC 3339's note allows for readability.
  const ms = rfc3339Ms(value.replace(' ', 'T'));
  if (ms !== undefined) return new Date(ms);
  if (/^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value)) {
    // The commonest slip: a date-time without its zone, which would be read in no zone at all.
    throw new UsageError(`${flag}: "${input}" has no time zone; add Z for UTC or an offset, like ${value.replace(' ', 'T')}Z or ${value.replace(' ', 'T')}+01:00`);
  }
  throw new UsageError(`${flag}: "${input}" is not a date; use YYYY-MM-DD or an RFC 3339 date-time like 2026-01-31T23:59:59Z`);
}

export type Window = { from: Date; to: Date };

/** Parses a --from/--to pair and checks its order. */
export function parseWindow(from: string, to: string): Window {
  const window = { from: parseDateArg(from, 'start', '--from'), to: parseDateArg(to, 'end', '--to') };
  if (window.to.getTime() < window.from.getTime()) {
    throw new UsageError(`--to (${window.to.toISOString()}) is before --from (${window.from.toISOString()})`);
  }
  return window;
}

/**
 * Splits a window into consecutive slices the service accepts (each at most 90 days).
 * Both bounds are inclusive, so each slice ends one millisecond before the next begins:
 * a row stamped on a border falls in exactly one slice.
 */
export function sliceWindow(window: Window, maxMs = MAX_WINDOW_MS): Window[] {
  const slices: Window[] = [];
  let start = window.from.getTime();
  const end = window.to.getTime();
  while (start <= end) {
    const sliceEnd = Math.min(end, start + maxMs);
    slices.push({ from: new Date(start), to: new Date(sliceEnd) });
    start = sliceEnd + 1;
  }
  return slices;
}
