// Deposit deadlines across all partners, earliest first, so the sweep that expires overdue
// transactions costs nothing when nothing is due. The sweep runs before every request,
// after every jump of a manual clock, and once a second on a real clock: a passed deadline
// expires the transaction "without anyone asking".
import { firstIndex } from './sorted.js';
import type { PartnerState, TxRecord } from './partners.js';

export type Deadline = { dueMs: number; partner: PartnerState; tx: TxRecord };

const NONE: readonly Deadline[] = [];

export class DeadlineQueue {
  /** Sorted by dueMs. A deadline is a fixed time after its creation, so a new one nearly always goes last. */
  private readonly queue: Deadline[] = [];

  push(item: Deadline): void {
    const q = this.queue;
    if (q.length === 0 || q[q.length - 1]!.dueMs <= item.dueMs) {
      q.push(item);
      return;
    }
    // After the last deadline due at or before it (those restored from a state come partner by partner).
    q.splice(firstIndex(q.length, (i) => q[i]!.dueMs > item.dueMs), 0, item);
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** Removes and answers every deadline strictly before `now` ("after this instant"). */
  popDue(now: number): readonly Deadline[] {
    let n = 0;
    while (n < this.queue.length && this.queue[n]!.dueMs < now) n++;
    // The common case, nothing due, allocates nothing: this runs before every request.
    return n === 0 ? NONE : this.queue.splice(0, n);
  }
}
