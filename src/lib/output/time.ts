// Times and spans as people read them: in tables friendly on a terminal ("in 29 min", "3 min
// ago"), stable ISO otherwise. The three span formatters each have their own job: `relative`
// a moment from now, `humanDuration` a span in a sentence, `formatDuration` a span written
// back in a duration flag's grammar.

/** A moment from now, rounded to one unit, for a table cell: "in 29 min", "3 min ago", "2 d ago". */
export function relative(target: Date | string, now: Date): string {
  const ms = new Date(target).getTime() - now.getTime();
  const abs = Math.abs(ms);
  let text: string;
  if (abs < 45_000) text = `${Math.max(1, Math.round(abs / 1000))} s`;
  else if (abs < 90 * 60_000) text = `${Math.round(abs / 60_000)} min`;
  else if (abs < 36 * 3_600_000) text = `${Math.round(abs / 3_600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** A span in a sentence, as precise as a reader wants it: "2.5 s" under 10 s, "95 s", then "2 min 5 s" (none: "0 s"). */
export function humanDuration(ms: number): string {
  if (ms > 0 && ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A span in the grammar a duration flag takes (docs/output.md, "Durations"), largest unit first
 * (`2m`, `1h30m`, `1s500ms`, `0ms`): for messages that echo a flag's bounds, or a value a flag
 * can take back.
 */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.floor(ms);
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]] as const) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)}${unit}`);
    rest %= size;
  }
  return parts.join('') || '0ms';
}

/**
 * Local wall-clock time with its zone, so a reader never takes it for UTC or for theirs:
 * "2026-11-22 15:04:05 +01:00", or "2026-11-22 14:04:05 UTC" where local time is UTC.
 */
export function localTime(value: Date | string): string {
  const d = new Date(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  const east = -d.getTimezoneOffset();
  const zone = east === 0 ? 'UTC' : `${east < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(east) / 60))}:${pad(Math.abs(east) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`;
}

/** A time cell: "2026-11-22 15:04:05 +01:00 (in 29 min)" on a terminal, the ISO string otherwise. */
export function timeCell(value: string | null | undefined, now: Date, friendly: boolean): string {
  if (!value) return '—';
  return friendly ? `${localTime(value)} (${relative(value, now)})` : value;
}
