// What every handler shares: the configuration, the business clock, the partner store,
// the webhook worker, the deadline queue, the fault rules and whom to tell of a change (the
// state file). Built once per started emulator. The control plane's operations (move the
// clock, reset, replace the whole state) live here too, since each touches all of them.
import type { Clock } from './clock.js';
import { iso, OffsetClock } from './clock.js';
import { DeadlineQueue } from './deadlines.js';
import type { FaultRules } from './fault-rules.js';
import type { Mode, Rates } from './pricing.js';
import type { SeededRows } from './revenue-seed.js';
import type { DecodedState } from './state-codec.js';
import { encodeDocument } from './state-codec.js';
import type { PartnerState, Store } from './store.js';
import { keyHash } from './store.js';
import { expireDue } from './transactions.js';
import type { AdvanceResult, StateSummary } from './types.js';
import type { Webhooks } from './webhooks.js';

export type EmulatorConfig = {
  mode: Mode;
  rates: Rates;
};

export class Runtime {
  readonly deadlines = new DeadlineQueue();
  /** Transactions expired by deadlines since start (the clock advance reports its share). */
  private expiredCount = 0;

  constructor(
    readonly config: EmulatorConfig,
    /** The business clock: an OffsetClock over a clock that cannot move, or the test's ManualClock. */
    readonly clock: Clock,
    readonly store: Store,
    readonly webhooks: Webhooks,
    readonly faultRules: FaultRules,
    /** Called after every change to the state (a no-op without a state file). */
    readonly changed: () => void,
    /** The --seed-revenue block of the first partner, put back by a reset. */
    private readonly seeded: SeededRows | undefined,
  ) {}

  sweep(): number {
    const n = expireDue(this, this.clock.now());
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
    else if (this.clock.advance) this.clock.advance(ms);
    else throw new RangeError('this emulator runs on a clock that cannot be moved');
    this.sweep();
    this.changed();
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
      for (const p of [...this.store.partners, ...this.store.dormant]) this.webhooks.forget(p);
      this.store.install(this.store.keys.map((key, i) => this.freshPartner(key, i)), []);
      this.deadlines.clear();
      this.faultRules.clear();
      if (this.clock instanceof OffsetClock) this.clock.offsetMs = 0;
      this.changed();
      return true;
    }
    const replaced = this.store.replace(apiKey);
    if (!replaced) return false;
    this.webhooks.forget(replaced.old);
    if (this.store.keys.indexOf(apiKey) === 0 && this.seeded) replaced.fresh.ledger.seed(this.seeded);
    this.changed();
    return true;
  }

  /** Partners are matched by the hash of their key; one this emulator was not started with is kept dormant, not served. */
  install(decoded: DecodedState): void {
    const byHash = new Map(decoded.partners.map((p) => [p.keyHash, p.state]));
    const active = this.store.keys.map((key, i) => {
      const hash = keyHash(key);
      const found = byHash.get(hash);
      byHash.delete(hash);
      if (!found) return this.freshPartner(key, i);
      found.label = `partner-${i + 1}`;
      return found;
    });
    const dormant = [...byHash.values()];
    dormant.forEach((p, i) => (p.label = `dormant-${i + 1}`));
    for (const p of [...this.store.partners, ...this.store.dormant]) this.webhooks.forget(p);
    this.store.install(active, dormant);
    this.deadlines.clear();
    for (const partner of active) {
      for (const tx of partner.txList) {
        if (tx.status === 'awaiting_deposit' || tx.status === 'pending') this.deadlines.push({ dueMs: tx.expiresMs, partner, tx });
      }
    }
    if (this.clock instanceof OffsetClock) this.clock.offsetMs = decoded.clockOffsetMs;
    for (const partner of active) this.webhooks.resume(partner);
    this.changed();
    this.sweep();
  }

  encodeState(): Buffer[] {
    return encodeDocument([...this.store.partners, ...this.store.dormant], this.clockOffsetMs, iso(this.clock.now()));
  }

  exportDocument(): string {
    return Buffer.concat(this.encodeState()).toString('utf8');
  }

  summary(): StateSummary {
    const served = this.store.partners;
    const sum = (f: (p: PartnerState) => number) => served.reduce((n, p) => n + f(p), 0);
    return {
      partners: served.length,
      dormant_partners: this.store.dormant.length,
      transactions: sum((p) => p.txList.length),
      events: sum((p) => p.eventList.length),
      quotes: sum((p) => p.quotes.size),
      idempotency_keys: sum((p) => p.idempotency.size),
      ledger_rows: sum((p) => p.ledger.size),
      clock_offset_ms: this.clockOffsetMs,
    };
  }

  private freshPartner(key: string, i: number): PartnerState {
    const partner = this.store.fresh(key, i);
    if (i === 0 && this.seeded) partner.ledger.seed(this.seeded);
    return partner;
  }
}
