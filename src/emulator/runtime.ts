// What every handler shares: the configuration, the business clock, the partner store,
// the webhook worker and the deadline queue. Built once per started emulator.
import type { Clock } from './clock.js';
import { DeadlineQueue } from './deadlines.js';
import type { Mode, Rates } from './pricing.js';
import type { Store } from './store.js';
import { expireDue } from './transactions.js';
import type { Webhooks } from './webhooks.js';

export type EmulatorConfig = {
  mode: Mode;
  rates: Rates;
};

export class Runtime {
  readonly deadlines = new DeadlineQueue();

  constructor(
    readonly config: EmulatorConfig,
    readonly clock: Clock,
    readonly store: Store,
    readonly webhooks: Webhooks,
  ) {}

  /** Expires every transaction whose deposit deadline has passed. */
  sweep(): void {
    expireDue(this, this.clock.now());
  }
}
