// What every handler shares: the configuration, the business clock, the partners,
// the webhook worker, the deadline queue, the fault rules and whom to tell of a change (the
// journal of `--state`, journal.ts). Built once per started emulator. The control plane's operations (move the
// clock, reset, replace the whole state) live here too, since each touches all of them.
import type { RevenueRow } from '../lib/schemas.js';
import { iso, OffsetClock } from './clock.js';
import { DeadlineQueue } from './deadlines.js';
import type { FaultRules } from './fault-rules.js';
import type { Rates } from './pricing.js';
import type { DecodedState, PartnerState, Partners } from './partners.js';
import { keyHash } from './partners.js';
import type { AdvanceResult, Clock, Mode, StateSummary } from './types.js';
import type { Webhooks } from './webhooks.js';

/**
 * What changed: one record of a partner (by id; a ledger row, which never changes once
 * written, as itself), the clock, one partner replaced whole, or everything.
 */
export type Change = ['tx' | 'event' | 'quote' | 'idem', PartnerState, string] | ['row', PartnerState, RevenueRow] | ['clock'] | ['partner', PartnerState] | ['all'];

/** Where changes go before they are answered: the journal of `--state` (journal.ts), or nowhere. */
export type Journaling = {
  changed(...change: Change): void;
  /** Throws the answer (503) while changes cannot be journaled: the request is not carried out. */
  admit(): void;
  /** Whether changes are taken now (a read makes none while they are not). */
  accepting(): boolean;
  /** Resolves once every change so far is journaled; rejects with the answer (503) when it could not be. */
  committed(): Promise<void>;
};

export const IN_MEMORY: Journaling = { changed: () => undefined, admit: () => undefined, accepting: () => true, committed: () => Promise.resolve() };

export class Runtime {
  readonly deadlines = new DeadlineQueue();
  /** Transactions expired by deadlines since start (the clock advance reports its share). */
  private expiredCount = 0;

  constructor(
    readonly config: { mode: Mode; rates: Rates },
    /** The business clock: an OffsetClock over a clock that cannot move, or the test's ManualClock. */
    readonly clock: Clock,
    readonly partners: Partners,
    readonly webhooks: Webhooks,
    readonly faultRules: FaultRules,
    /** Told of every change to the state. */
    readonly journal: Journaling,
    /** Expires what is due (transactions.ts; handed in so that this module does not depend on it). */
    private readonly expireDue: (rt: Runtime, now: number) => number,
  ) {}

  sweep(): number {
    const n = this.expireDue(this, this.clock.now());
    this.expiredCount += n;
    return n;
  }

  get clockOffsetMs(): number {
    return this.clock instanceof OffsetClock ? this.clock.offsetMs : 0;
  }

  /** Moves business time forward and runs what became due (the ManualClock's listener sweeps too). */
  advance(ms: number): AdvanceResult {
    const before = this.expiredCount;
    if (this.clock instanceof OffsetClock) this.clock.offsetMs += ms;
    else this.clock.advance!(ms);
    this.sweep();
    this.journal.changed('clock');
    return {
      now: iso(this.clock.now()),
      advanced_ms: ms,
      offset_ms: this.clockOffsetMs,
      expired_transactions: this.expiredCount - before,
    };
  }

  /** As freshly started (docs/emulator.md, "Control plane"); false for an unknown key. */
  reset(apiKey?: string): boolean {
    if (apiKey === undefined) {
      // An empty state, installed: every partner fresh, no deadlines, the clock's offset gone.
      this.install({ partners: [], clockOffsetMs: 0 });
      this.faultRules.clear();
      return true;
    }
    const replaced = this.partners.replace(apiKey);
    if (!replaced) return false;
    this.webhooks.forget(replaced.old);
    this.journal.changed('partner', replaced.fresh);
    return true;
  }

  /** Partners are matched by the hash of their key; one this emulator was not started with is kept dormant, not served. */
  install(decoded: DecodedState): void {
    const byHash = new Map(decoded.partners.map((p) => [p.keyHash, p]));
    const active = this.partners.keys.map((key, i) => {
      const hash = keyHash(key);
      const found = byHash.get(hash);
      byHash.delete(hash);
      if (!found) return this.partners.fresh(key, i);
      found.label = `partner-${i + 1}`;
      return found;
    });
    const dormant = [...byHash.values()];
    dormant.forEach((p, i) => (p.label = `dormant-${i + 1}`));
    for (const p of this.allPartners) this.webhooks.forget(p);
    this.partners.install(active, dormant);
    this.deadlines.clear();
    for (const partner of active) {
      for (const tx of partner.txList) {
        if (tx.status === 'awaiting_deposit' || tx.status === 'pending') this.deadlines.push({ dueMs: tx.expiresMs, partner, tx });
      }
    }
    if (this.clock instanceof OffsetClock) this.clock.offsetMs = decoded.clockOffsetMs;
    for (const partner of active) this.webhooks.resume(partner);
    this.journal.changed('all');
    this.sweep();
  }

  /** Every partner, served and dormant, in the order a state document numbers them. */
  get allPartners(): PartnerState[] {
    return [...this.partners.served, ...this.partners.dormant];
  }

  summary(): StateSummary {
    const served = this.partners.served;
    const sum = (f: (p: PartnerState) => number) => served.reduce((n, p) => n + f(p), 0);
    return {
      partners: served.length,
      dormant_partners: this.partners.dormant.length,
      transactions: sum((p) => p.txList.length),
      events: sum((p) => p.eventList.length),
      quotes: sum((p) => p.quotes.size),
      idempotency_keys: sum((p) => p.idempotency.size),
      ledger_rows: sum((p) => p.ledger.size),
      clock_offset_ms: this.clockOffsetMs,
    };
  }
}
