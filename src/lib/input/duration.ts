// Durations as people write them, one parser for every time flag and the emulator's control
// plane (docs/output.md, "Durations"). A bare number keeps the unit its flag always had;
// where a flag never took one, it is refused: "30" could mean seconds or minutes, and a
// clock moved by the wrong one silently passes (or misses) a deadline.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The unit a bare number is read in, for a flag that always took one. */
export type BareUnit = 'ms' | 's';

/** The longest duration accepted anywhere: a year, far past every deadline the tool or the emulator keeps. */
export const MAX_DURATION_MS = 366 * 86_400_000;

/** Milliseconds, or a message saying what is wrong (for a UsageError or a 400). */
export function parseDuration(text: string, bare?: BareUnit): number | string {
  const trimmed = text.trim();
  let total = 0;
  if (bare !== undefined && /^\d+$/.test(trimmed)) total = Number(trimmed) * UNIT_MS[bare];
  else if (/^(\d+(ms|s|m|h|d))+$/.test(trimmed)) {
    for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  } else {
    const plain = bare === undefined ? '' : ` (a bare number is ${bare === 'ms' ? 'milliseconds' : 'seconds'})`;
    return `"${text.slice(0, 40)}" is not a duration: use a number and a unit (ms, s, m, h, d), e.g. 500ms, 3s, 2m, 1h${plain}`;
  }
  if (total > MAX_DURATION_MS) return `"${text.slice(0, 40)}" is more than a year`;
  return total;
}

/**
 * `MIN-MAX` as a range of milliseconds (`100-2000ms`, `1-3s`, `500ms-2s`), or one duration
 * for a fixed one (`500ms`). A unit written only after MAX is MIN's too, as people write
 * ranges; with none, both are `bare`.
 */
export function parseDurationRange(text: string, bare: BareUnit): { min: number; max: number } | string {
  const m = /^\s*([^-\s]+?)(?:-([^-\s]+))?\s*$/.exec(text);
  if (!m) return `"${text.slice(0, 40)}" is not a range: write it like 100-2000ms, 1-3s or 500ms`;
  const [, low, high] = m;
  if (high === undefined) {
    const fixed = parseDuration(low!, bare);
    return typeof fixed === 'string' ? fixed : { min: fixed, max: fixed };
  }
  const shared = /^\d+$/.test(low!) ? /(ms|s|m|h|d)$/.exec(high)?.[1] : undefined;
  const min = parseDuration(shared ? `${low}${shared}` : low!, bare);
  const max = parseDuration(high, bare);
  if (typeof min === 'string') return min;
  if (typeof max === 'string') return max;
  if (min > max) return `"${text.slice(0, 40)}" runs backwards: the minimum is above the maximum`;
  return { min, max };
}
