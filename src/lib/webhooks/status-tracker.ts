// A webhook consumer's view of each transaction: the latest status, moved only forward
// along the lifecycle (the spec, Events: "Apply status updates only when the
// progression is valid"; delivery order is not guaranteed). An event that arrives after a
// later one is recorded but leaves the status where it is: it is "out of order".
import { isForward, STATUS_OF_EVENT } from '../lifecycle.js';

/**
 * Which transaction an event is about and which status it reports. The spec leaves the
 * fields of `data` "not shown": the transaction is `data.transaction_id`, else `data.id`
 * (the emulator sends the transaction snapshot); the status comes from the event type
 * (lifecycle.STATUS_OF_EVENT), else from `data.status`.
 */
export function eventFacts(type: string | undefined, data: Record<string, unknown> | undefined): EventFacts {
  const txId = typeof data?.transaction_id === 'string' ? data.transaction_id : typeof data?.id === 'string' ? data.id : undefined;
  const status = (type ? STATUS_OF_EVENT[type] : undefined) ?? (typeof data?.status === 'string' ? data.status : undefined);
  // One shape for every event (fields undefined rather than absent): the receiver's hot path stays monomorphic.
  return { transactionId: txId || undefined, status: status || undefined };
}

export type EventFacts = { transactionId: string | undefined; status: string | undefined };

/** Each transaction's latest status, by transaction id, in first-seen order. */
export class StatusTracker extends Map<string, string> {
  /**
   * Applies an event's status to its transaction, forward moves only: the status after it
   * (unchanged when out of order), and whether it reports an earlier point than known.
   */
  apply(transactionId: string | undefined, eventStatus: string | undefined): { status: string | undefined; outOfOrder: boolean } {
    if (!transactionId) return { status: undefined, outOfOrder: false };
    const current = this.get(transactionId);
    if (!eventStatus) return { status: current, outOfOrder: false };
    if (current === undefined || isForward(current, eventStatus)) {
      this.set(transactionId, eventStatus);
      return { status: eventStatus, outOfOrder: false };
    }
    // Same status again (payout.settled after transaction.completed) is not a step back.
    return { status: current, outOfOrder: current !== eventStatus };
  }
}
