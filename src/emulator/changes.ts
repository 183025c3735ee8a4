// What changed since the state file was last written (docs/emulator.md, "State file").
// Every module that changes a record reports it here; without `--state` the sink does
// nothing. The state file then writes only the records that changed, so keeping the file
// current costs in proportion to the traffic, not to everything ever stored.
import type { RevenueRow } from '../lib/schemas.js';
import type { EventRecord, PartnerState, QuoteRecord, TxRecord } from './store.js';

export interface ChangeSink {
  tx(partner: PartnerState, tx: TxRecord): void;
  event(partner: PartnerState, evt: EventRecord): void;
  quote(partner: PartnerState, quote: QuoteRecord): void;
  /** An idempotency entry stored under `id` (see IdempotencyCache.store). */
  idempotency(partner: PartnerState, id: string): void;
  ledgerRow(partner: PartnerState, row: RevenueRow): void;
  clock(): void;
  /** Partners replaced (reset, import): the file is rewritten whole. */
  everything(): void;
}

export const NO_CHANGES: ChangeSink = {
  tx() {},
  event() {},
  quote() {},
  idempotency() {},
  ledgerRow() {},
  clock() {},
  everything() {},
};

export class PartnerChanges {
  readonly txs = new Set<TxRecord>();
  readonly events = new Set<EventRecord>();
  readonly quotes: QuoteRecord[] = [];
  readonly idempotency: string[] = [];
  readonly rows: RevenueRow[] = [];
}

/** The changes waiting for the next write. */
export type PendingBatch = { partners: Map<PartnerState, PartnerChanges>; clock: boolean; everything: boolean };

export class PendingChanges implements ChangeSink {
  private batch: PendingBatch = emptyBatch();

  /** `wake` runs on every change: it schedules the next write. */
  constructor(private readonly wake: () => void) {}

  tx(partner: PartnerState, tx: TxRecord): void {
    this.of(partner)?.txs.add(tx);
  }

  event(partner: PartnerState, evt: EventRecord): void {
    this.of(partner)?.events.add(evt);
  }

  quote(partner: PartnerState, quote: QuoteRecord): void {
    this.of(partner)?.quotes.push(quote);
  }

  idempotency(partner: PartnerState, id: string): void {
    this.of(partner)?.idempotency.push(id);
  }

  ledgerRow(partner: PartnerState, row: RevenueRow): void {
    this.of(partner)?.rows.push(row);
  }

  clock(): void {
    this.batch.clock = true;
    this.wake();
  }

  everything(): void {
    this.batch.everything = true;
    this.wake();
  }

  get empty(): boolean {
    return this.batch.partners.size === 0 && !this.batch.clock && !this.batch.everything;
  }

  /** Hands over what is pending and starts a new batch. */
  take(): PendingBatch {
    const batch = this.batch;
    this.batch = emptyBatch();
    return batch;
  }

  private of(partner: PartnerState): PartnerChanges | undefined {
    // A detached partner (reset, replaced by an import) is gone from the file already.
    if (partner.detached) return undefined;
    let changes = this.batch.partners.get(partner);
    if (!changes) {
      changes = new PartnerChanges();
      this.batch.partners.set(partner, changes);
      this.wake();
    }
    return changes;
  }
}

function emptyBatch(): PendingBatch {
  return { partners: new Map(), clock: false, everything: false };
}
