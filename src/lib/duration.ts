// Durations as people write them, for `offramp emulator clock advance` and the emulator's
// control plane alike: a number and a unit, or several (`31m`, `1h30m`, `90s`, `500ms`, `2d`). A bare number is refused: "30"
// could mean seconds or minutes, and a clock moved by the wrong one silently passes (or
// misses) a deadline.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest jump accepted: a year, far past every deadline the emulator keeps. */
export const MAX_ADVANCE_MS = 366 * 86_400_000;

/** Milliseconds, or a message saying what is wrong (for a UsageError or a 400). */
export function parseDuration(text: string): number | string {
  const trimmed = text.trim();
  if (!/^(\d+(ms|s|m|h|d))+$/.test(trimmed)) {
    return `"${text.slice(0, 40)}" is not a duration: use a number and a unit (ms, s, m, h, d), e.g. 31m, 1h30m, 90s`;
  }
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  if (total > MAX_ADVANCE_MS) return `"${text}" is more than a year`;
  return total;
}
