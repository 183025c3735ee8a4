// Date arguments: RFC 3339 date-times, or plain YYYY-MM-DD days in UTC where a `--to` day
// is inclusive (it ends at 23:59:59.999). The service is always sent RFC 3339.
import { UsageError } from '../errors.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

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
  if (RFC3339.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
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
