// The status changes of a transaction, each once and in the order they happened, from
// successive reads of its status history (`tx watch`). A poll sees only where the
// transaction is; the history says how it got there, so changes made between two polls
// (awaiting_deposit → … → completed in one interval) are all shown.
//
// The spec does not say in which order the history is listed, nor how finely its times are
// written (a service may drop the milliseconds, so that order_filled and completed share a
// second): changes are ordered by time, and where times tie, each after the one whose
// status it leaves. A change is known by its time, statuses and reason, so one read again
// at the next poll is not shown twice.
import type { StatusHistoryEntry } from '../schemas.js';

const keyOf = (c: StatusHistoryEntry) => `${Date.parse(c.changed_at)}|${c.from_status}|${c.to_status}|${c.reason}`;

/** The history in the order its changes happened. */
export function inOrder(history: readonly StatusHistoryEntry[]): StatusHistoryEntry[] {
  const byTime = [...history].sort((a, b) => Date.parse(a.changed_at) - Date.parse(b.changed_at));
  const out: StatusHistoryEntry[] = [];
  let at = 0;
  while (at < byTime.length) {
    const time = Date.parse(byTime[at]!.changed_at);
    let end = at;
    while (end < byTime.length && Date.parse(byTime[end]!.changed_at) === time) end++;
    const tied = byTime.slice(at, end);
    while (tied.length > 0) {
      const previous = out.at(-1)?.to_status;
      // The change that leaves the status reached last; else one that no other tied change leads to.
      let next = tied.findIndex((c) => c.from_status === previous);
      if (next < 0) next = tied.findIndex((c) => !tied.some((o) => o !== c && o.to_status === c.from_status));
      out.push(...tied.splice(Math.max(0, next), 1));
    }
    at = end;
  }
  return out;
}

/** Remembers the changes already shown; `take` answers the new ones of a history read, in order. */
export class ChangeLog {
  private readonly seen = new Set<string>();
  /** The status the last change shown led to. */
  last: string | undefined;

  take(history: readonly StatusHistoryEntry[]): StatusHistoryEntry[] {
    const fresh = inOrder(history).filter((c) => !this.seen.has(keyOf(c)));
    for (const c of fresh) this.seen.add(keyOf(c));
    if (fresh.length > 0) this.last = fresh.at(-1)!.to_status;
    return fresh;
  }
}
