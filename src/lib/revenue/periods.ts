// Calendar periods in a time zone (docs/finance.md, "Periods and time zones"). Labels sort
// in time order as text: `2026-10-05`, `2026-W41` (ISO week-numbering year), `2026-10`, `2026-Q4`.
import { UsageError } from '../errors.js';
import { DAY_MS, type Window } from '../input/dates.js';
import { describeSlice } from './slices.js';

export const PERIODS = ['day', 'week', 'month', 'quarter'] as const;
export type Period = (typeof PERIODS)[number];

/** A calendar day: year, month 1-12, day 1-31. */
type Ymd = { y: number; m: number; d: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  if (!formatters.has(zone)) formatters.set(zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
  return formatters.get(zone)!;
}

/** The zone as given when it is an IANA name the runtime knows (`UTC`, `Africa/Lagos`); a usage error otherwise. */
export function checkZone(zone: string): string {
  try {
    formatter(zone);
    return zone;
  } catch {
    throw new UsageError(`--tz: "${zone}" is not a time zone this system knows; give an IANA name such as UTC, Africa/Lagos or Europe/London`);
  }
}

/** The zone's wall clock at `ms`, as if it were UTC (its offset is then clock − ms). */
function wallClock(ms: number, zone: string): number {
  if (zone === 'UTC') return ms;
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) + (ms % 1000 + 1000) % 1000;
}

function ymdOf(clock: number): Ymd {
  const d = new Date(clock);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function label(day: Ymd, period: Period): string {
  switch (period) {
    case 'day':
      return `${pad(day.y, 4)}-${pad(day.m)}-${pad(day.d)}`;
    case 'month':
      return `${pad(day.y, 4)}-${pad(day.m)}`;
    case 'quarter':
      return `${pad(day.y, 4)}-Q${Math.ceil(day.m / 3)}`;
    case 'week': {
      // ISO 8601: weeks start on Monday; week 1 holds the year's first Thursday.
      const t = Date.UTC(day.y, day.m - 1, day.d);
      const weekday = (new Date(t).getUTCDay() + 6) % 7;
      const thursday = new Date(t + (3 - weekday) * DAY_MS);
      const year = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS / 7) + 1;
      return `${pad(year, 4)}-W${pad(week)}`;
    }
  }
}

/** The period holding the instant `ts` (an RFC 3339 string or epoch ms) on `zone`'s calendar. */
export function periodOf(ts: string | number, period: Period, zone: string): string {
  const ms = typeof ts === 'number' ? ts : Date.parse(ts);
  if (Number.isNaN(ms)) throw new Error(`a ledger row's ts is not a date-time: ${String(ts)}`);
  return label(ymdOf(wallClock(ms, zone)), period);
}

/** Every period the window touches on `zone`'s calendar, in order, each once. */
export function periodsIn(window: Window, period: Period, zone: string): string[] {
  const first = ymdOf(wallClock(window.from.getTime(), zone));
  const last = ymdOf(wallClock(window.to.getTime(), zone));
  const end = Date.UTC(last.y, last.m - 1, last.d);
  const out: string[] = [];
  for (let t = Date.UTC(first.y, first.m - 1, first.d); t <= end; t += DAY_MS) {
    const key = label(ymdOf(t), period);
    if (out[out.length - 1] !== key) out.push(key);
  }
  return out;
}

/** The window's first and last periods when the window holds only part of them (the instant beyond its edge is in the same period). */
export function partialPeriods(window: Window, period: Period, zone: string): string[] {
  const cut = (edge: number, beyond: number) => (periodOf(edge, period, zone) === periodOf(beyond, period, zone) ? [periodOf(edge, period, zone)] : []);
  return [...new Set([...cut(window.from.getTime(), window.from.getTime() - 1), ...cut(window.to.getTime(), window.to.getTime() + 1)])];
}

/** The instant a calendar day (YYYY-MM-DD) begins in `zone`. */
export function startOfDay(day: string, zone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const clock = Date.UTC(y, m - 1, d);
  // The offset at a first guess, then at the instant it gives (a change of offset between the two).
  let ms = clock - (wallClock(clock, zone) - clock);
  ms = clock - (wallClock(ms, zone) - ms);
  return new Date(ms);
}

const DAY_ARG = /^\d{4}-\d{2}-\d{2}$/;

/** The window with its plain-day ends read as days of `zone` rather than UTC, so that a month of the zone is whole. */
export function zonedWindow(window: Window, opts: { from?: string; to?: string }, zone: string): Window {
  if (zone === 'UTC') return window;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const from = opts.from && DAY_ARG.test(opts.from.trim()) ? startOfDay(day(window.from), zone) : window.from;
  const to = opts.to && DAY_ARG.test(opts.to.trim()) ? new Date(startOfDay(day(new Date(window.to.getTime() + 1)), zone).getTime() - 1) : window.to;
  return { from, to };
}

/**
 * Why a window's figures are not final yet, or undefined when they are: it reaches into
 * the current day of `zone` (or later), which is not over, so rows can still be added to
 * it (docs/finance.md, "Closing a month").
 */
export function stillOpenNote(window: Window, now: Date, zone = 'UTC'): string | undefined {
  const day = periodOf(now.getTime(), 'day', zone);
  const today = startOfDay(day, zone);
  if (window.to < today) return undefined;
  const tomorrow = startOfDay(periodOf(today.getTime() + 36 * 3_600_000, 'day', zone), zone);
  const when = window.to >= tomorrow ? `days not over yet (today is ${day} ${zone})` : `today (${day} ${zone}), which is not over`;
  return `the window reaches into ${when}: its figures can still change; close a month once it is over`;
}

/** What a summary that found no row says (stderr, exit 0): the filter, or the window, matched nothing. */
export function nothingMatched(window: Window, filters: { crypto_currency?: string; network?: string }): string {
  const flags = [...(filters.crypto_currency ? [`--token ${filters.crypto_currency}`] : []), ...(filters.network ? [`--network ${filters.network}`] : [])];
  const where = describeSlice(window);
  return flags.length > 0 ? `no row of ${where} matched ${flags.join(' ')}` : `the ledger holds no row in ${where}`;
}
