// Partner-scoped state. Each API key is its own partner with its own transactions, quotes,
// events, ledger and idempotency keys; nothing is shared, so another partner's id is simply
// not found (404), as the spec requires ("A partner cannot read another partner's
// records"). The shapes of the records live here; the modules named after them own the
// behaviour; the persisted ones are schemas, which the state file's reader checks against.
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { DateTime, StatusHistoryEntry, Uuid } from '../lib/schemas.js';
import type { Decimal } from '../lib/money.js';
import { DELIVERY_STATUSES, TRANSACTION_STATUSES } from '../lib/vocabulary.js';
import { IdempotencyCache } from './idempotency.js';
import { Ledger } from './revenue.js';
import type { SeededRows } from './revenue-seed.js';

/** A quote's fields as a state file keeps them: the amount as its decimal text. */
export const QuoteFields = z.object({
  quote_id: Uuid,
  token: z.string(),
  network: z.string(),
  /** Which amount the partner priced: NGN (`fiat`) or token units (`token`). */
  unit: z.enum(['fiat', 'token']),
  amount: z.string().check(z.regex(/^\d+(\.\d+)?$/)),
  base_rate: z.string(),
  adjusted_rate: z.string(),
  expiresMs: z.number(),
  expires_at: DateTime,
});
export type QuoteRecord = Omit<z.infer<typeof QuoteFields>, 'amount'> & { amount: Decimal };

/** A transaction's fields: all plain data, so a state file holds the record as it is (state-codec.ts). */
export const TxFields = z.object({
  /** Creation order within the partner: the key of "newest first" pages. */
  seq: z.int(),
  id: Uuid,
  status: z.enum(TRANSACTION_STATUSES),
  deposit_address: z.string(),
  network: z.string(),
  crypto_currency: z.string(),
  crypto_amount: z.string(),
  rate: z.string(),
  amount: z.string(),
  quote_id: z.nullable(z.string()),
  createdMs: z.number(),
  created_at: DateTime,
  updated_at: DateTime,
  expiresMs: z.number(),
  expires_at: DateTime,
  merchant_reference: z.string(),
  merchant_id: z.nullable(z.string()),
  terminal_id: z.nullable(z.string()),
  /** Kept as metadata only; never returned (the spec lists no such field in the snapshot). */
  seller_phone: z.nullable(z.string()),
  deposit: z.nullable(
    z.object({
      deposit_id: z.string(),
      blockchain_hash: z.string(),
      /** `detected`, `confirmed`, then `refunded` after a refund (our choice of values). */
      status: z.enum(['detected', 'confirmed', 'refunded']),
      confirmations: z.int(),
      required_confirmations: z.int(),
      received_at: z.string(),
      confirmed_at: z.nullable(z.string()),
    }),
  ),
  payoutSettled: z.boolean(),
  history: z.array(StatusHistoryEntry),
});
export type TxRecord = z.infer<typeof TxFields>;

/** An event's fields that a state file keeps; the rest of an EventRecord is the delivery's own. */
export const EventFields = z.object({
  /** Creation order within the partner: the key of "newest first" pages. */
  seq: z.int(),
  event_id: Uuid,
  aggregate_id: Uuid,
  event_type: z.string(),
  createdMs: z.number(),
  created_at: DateTime,
  updated_at: DateTime,
  delivery_status: z.enum(DELIVERY_STATUSES),
  attempts: z.int().check(z.nonnegative()),
  last_error: z.nullable(z.string()),
  /** Attempts in the current delivery round (a replay starts a new round). */
  roundAttempts: z.int().check(z.nonnegative()),
});

export type EventRecord = z.infer<typeof EventFields> & {
  /** The transaction snapshot taken when the event happened; serialised on first delivery. */
  payload: object | null;
  /** The exact bytes delivered, fixed at the first attempt so every redelivery is identical. */
  body: string | null;
  inFlight: boolean;
  replayQueued: boolean;
  /** Cancels the queued attempt (first try or retry), when one is queued. */
  cancelScheduled: (() => void) | null;
  /** The partner the event belongs to (a reset detaches it, and its deliveries stop). */
  owner: PartnerState;
};

export class PartnerState {
  readonly transactions = new Map<string, TxRecord>();
  /** Transactions in creation order; `seq` is the index plus one. */
  readonly txList: TxRecord[] = [];
  /** merchant_reference, lower-cased: unique per partner, compared case-insensitively. */
  readonly byReference = new Map<string, TxRecord>();
  readonly quotes = new Map<string, QuoteRecord>();
  readonly events = new Map<string, EventRecord>();
  /** Events in creation order; `seq` is the index plus one. */
  readonly eventList: EventRecord[] = [];
  readonly ledger = new Ledger();
  readonly idempotency = new IdempotencyCache();
  /** Set when a reset or an import replaced this partner: nothing it holds is served or saved again. */
  detached = false;

  /**
   * `label` names the partner in logs without revealing its key; `keyHash` (SHA-256 of the
   * key, hex) is how a state file names it, so the file never holds a key.
   */
  constructor(
    public label: string,
    readonly keyHash: string,
  ) {}

  /** Adds an event, last in creation order, with no delivery under way. */
  addEvent(fields: z.infer<typeof EventFields>, payload: object | null): EventRecord {
    const evt: EventRecord = { ...fields, payload, body: null, inFlight: false, replayQueued: false, cancelScheduled: null, owner: this };
    this.events.set(evt.event_id, evt);
    this.eventList.push(evt);
    return evt;
  }
}

/** A state read from a document or a state file, not yet installed. */
export type DecodedState = {
  partners: PartnerState[];
  clockOffsetMs: number;
};

/** A record as one of the API's shapes: the fields the schema names, which the record holds as they are. */
export function viewOf<T>(schema: { shape: object }): (record: object) => T {
  const fields = Object.keys(schema.shape);
  return (record) => Object.fromEntries(fields.map((field) => [field, (record as Record<string, unknown>)[field]])) as T;
}

export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

export class Partners {
  /** The served partners, in key order. */
  served: readonly PartnerState[] = [];
  /**
   * Partners of a loaded state whose key this emulator was not started with: kept (and
   * written back to the state file) but not served, so a restart with other keys loses nothing.
   */
  dormant: PartnerState[] = [];

  constructor(
    /** The keys the emulator serves, each its own partner, in the order given (no key twice). */
    readonly keys: readonly string[],
    /** The --seed-revenue block of the first partner, which a reset puts back. */
    private readonly seeded: SeededRows | undefined,
  ) {
    this.install(this.keys.map((key, i) => this.fresh(key, i)), []);
  }

  partner(apiKey: string): PartnerState | undefined {
    return this.served[this.keys.indexOf(apiKey)];
  }

  /** An empty partner for the key at position `i`. */
  fresh(key: string, i: number): PartnerState {
    const partner = new PartnerState(`partner-${i + 1}`, keyHash(key));
    if (i === 0 && this.seeded) partner.ledger.seed(this.seeded);
    return partner;
  }

  /** Replaces every partner (`served` in key order); the old ones are detached. */
  install(served: PartnerState[], dormant: PartnerState[]): void {
    for (const p of [...this.served, ...this.dormant]) if (!served.includes(p) && !dormant.includes(p)) p.detached = true;
    this.served = served;
    this.dormant = dormant;
  }

  /** Replaces one served partner with an empty one; answers the old and the new, or undefined for an unknown key. */
  replace(apiKey: string): { old: PartnerState; fresh: PartnerState } | undefined {
    const i = this.keys.indexOf(apiKey);
    if (i < 0) return undefined;
    const old = this.served[i]!;
    const fresh = this.fresh(apiKey, i);
    old.detached = true;
    this.served = this.served.map((p, k) => (k === i ? fresh : p));
    return { old, fresh };
  }
}
