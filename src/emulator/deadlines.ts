// Deposit deadlines across all partners, earliest first (a binary min-heap), so the sweep
// that expires overdue transactions costs nothing when nothing is due. The sweep runs
// before every request, after every jump of a manual clock, and once a second on a real
// clock: a passed deadline expires the transaction "without anyone asking".
import type { PartnerState, TxRecord } from './store.js';

export type Deadline = { dueMs: number; partner: PartnerState; tx: TxRecord };

const NONE: readonly Deadline[] = [];

export class DeadlineQueue {
  private readonly heap: Deadline[] = [];

  push(item: Deadline): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.dueMs <= item.dueMs) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
  }

  clear(): void {
    this.heap.length = 0;
  }

  /** Removes and answers every deadline strictly before `now` ("after this instant"). */
  popDue(now: number): readonly Deadline[] {
    // The common case, nothing due, allocates nothing: this runs before every request.
    if (this.heap.length === 0 || this.heap[0]!.dueMs >= now) return NONE;
    const due: Deadline[] = [];
    while (this.heap.length > 0 && this.heap[0]!.dueMs < now) due.push(this.pop());
    return due;
  }

  private pop(): Deadline {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        const at = (k: number) => (k === i ? last : heap[k]!);
        if (left < heap.length && heap[left]!.dueMs < at(smallest).dueMs) smallest = left;
        if (right < heap.length && heap[right]!.dueMs < at(smallest).dueMs) smallest = right;
        if (smallest === i) break;
        heap[i] = heap[smallest]!;
        i = smallest;
      }
      heap[i] = last;
    }
    return top;
  }
}
