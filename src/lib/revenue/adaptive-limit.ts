// How many ledger pages the export asks for at once: as many as the service answers
// without pushing back, found while exporting (additive increase, multiplicative decrease,
// as TCP finds a link's capacity).
//
// - It starts at --concurrency. After as many clean answers in a row as there are
//   requests allowed (twice as many once the service has pushed back: its limit is near),
//   and only when that many were really in flight (a limit that does not bind proves
//   nothing), one more is allowed, up to `max`.
// - An answer that was throttled cuts the limit by a quarter, once per round: answers to
//   requests sent before the cut say nothing new about the lower limit.
// - A 429 that outlasted the client's own retries also pauses every request for its
//   Retry-After (docs/api.md, "Open points": whole seconds or an HTTP date).
//
// The HTTP client retries a 429 itself after its Retry-After (src/lib/client/http.ts) and
// tells its callers nothing of it, so a throttled answer is recognised by its time: an
// answer that took the service's usual time twice over, plus more than the shortest
// Retry-After a service can give in whole seconds' rounding, waited somewhere. A slow
// service looks the same, and easing off is right then too. The limit does not wait for
// such an answer to come back (it comes only after the Retry-After): a request still out
// that long is taken as throttled at once, so the cut comes before more requests pile on.
//
// Slots go to the lowest priority number first: the export gives each slice its index, so
// the earliest slices (the ones the output is waiting for) go first and later ones spool
// less.

export type Ticket = { readonly seq: number; readonly started: number };

export type LimitOptions = {
  start: number;
  max: number;
  now?: () => number;
  /** Told whenever the limit changes (the export starts more slices when it grows). */
  onChange?: (limit: number) => void;
};

export type LimitStats = { limit: number; peak: number; clean: number; throttled: number; inFlight: number };

/** Clean answers remembered for the usual answer time. */
const HISTORY = 32;
/** Extra time beyond twice the usual answer that marks an answer as having waited. */
const WAITED_MS = 400;
/** How often requests still out are looked at. */
const WATCH_EVERY_MS = 100;

type Waiter = { priority: number; resolve: (ticket: Ticket) => void; reject: (err: unknown) => void; signal?: AbortSignal; onAbort?: () => void };

export class AdaptiveLimit {
  private current: number;
  private readonly max: number;
  private readonly now: () => number;
  private readonly onChange: ((limit: number) => void) | undefined;
  private inFlight = 0;
  private issued = 0;
  /** Requests issued up to the last cut: their answers do not cut again. */
  private cutAt = 0;
  private cleanRun = 0;
  /** The limit was reached since it last changed. */
  private bound = false;
  private pausedUntil = 0;
  private pauseTimer: NodeJS.Timeout | undefined;
  /** Requests out, oldest first, watched for one that is overdue. */
  private readonly out = new Set<Ticket>();
  private watchTimer: NodeJS.Timeout | undefined;
  private readonly waiters: Waiter[] = [];
  private readonly recent: number[] = [];
  private readonly counts = { peak: 0, clean: 0, throttled: 0 };

  constructor(opts: LimitOptions) {
    this.max = Math.max(1, opts.max);
    this.current = Math.min(this.max, Math.max(1, opts.start));
    this.now = opts.now ?? (() => performance.now());
    this.onChange = opts.onChange;
  }

  get limit(): number {
    return this.current;
  }

  get stats(): LimitStats {
    return { limit: this.current, inFlight: this.inFlight, ...this.counts };
  }

  /** Waits for a slot; rejects with the signal's reason when it aborts first. */
  acquire(priority: number, signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiters.length === 0 && this.canStart()) return Promise.resolve(this.start());
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { priority, resolve, reject, ...(signal ? { signal } : {}) };
      if (signal) {
        waiter.onAbort = () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      let at = this.waiters.findIndex((w) => w.priority > priority);
      if (at < 0) at = this.waiters.length;
      this.waiters.splice(at, 0, waiter);
      this.pump();
    });
  }

  /**
   * Gives the slot back. `retryAfterMs`: the request ended in a 429 the client did not
   * retry further (a throttled answer, and a pause for everyone).
   */
  release(ticket: Ticket, outcome: { failed?: boolean; retryAfterMs?: number } = {}): void {
    this.inFlight--;
    this.out.delete(ticket);
    const took = this.now() - ticket.started;
    const throttled = outcome.retryAfterMs !== undefined || (!outcome.failed && this.waited(took));
    if (throttled) {
      this.counts.throttled++;
      if (ticket.seq > this.cutAt) this.cut();
      if (outcome.retryAfterMs !== undefined) this.pause(outcome.retryAfterMs);
    } else if (!outcome.failed) {
      this.counts.clean++;
      this.remember(took);
      if (ticket.seq > this.cutAt) this.grow();
    }
    this.pump();
  }

  /** Drops every waiter (the export stopped). */
  close(reason: unknown): void {
    clearTimeout(this.pauseTimer);
    clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
    for (const w of this.waiters.splice(0)) {
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      w.reject(reason);
    }
  }

  private canStart(): boolean {
    return this.inFlight < this.current && this.now() >= this.pausedUntil;
  }

  private start(): Ticket {
    this.inFlight++;
    this.issued++;
    this.counts.peak = Math.max(this.counts.peak, this.inFlight);
    if (this.inFlight >= this.current) this.bound = true;
    const ticket = { seq: this.issued, started: this.now() };
    this.out.add(ticket);
    this.watch();
    return ticket;
  }

  /** While requests are out, looks now and then for one out so long that it must be waiting. */
  private watch(): void {
    if (this.watchTimer) return;
    this.watchTimer = setTimeout(() => {
      this.watchTimer = undefined;
      const oldest = this.out.values().next().value;
      if (!oldest) return;
      if (oldest.seq > this.cutAt && this.waited(this.now() - oldest.started)) this.cut();
      this.watch();
    }, WATCH_EVERY_MS);
    this.watchTimer.unref();
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.canStart()) {
      const w = this.waiters.shift()!;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      w.resolve(this.start());
    }
    if (this.waiters.length > 0 && this.inFlight < this.current && this.pauseTimer === undefined) {
      const wait = Math.max(0, this.pausedUntil - this.now());
      this.pauseTimer = setTimeout(() => {
        this.pauseTimer = undefined;
        this.pump();
      }, wait);
    }
  }

  private grow(): void {
    this.cleanRun++;
    const round = this.counts.throttled > 0 ? 2 * this.current : this.current;
    if (this.cleanRun < round || !this.bound || this.current >= this.max) return;
    this.current++;
    this.cleanRun = 0;
    this.bound = this.inFlight >= this.current;
    this.onChange?.(this.current);
  }

  private cut(): void {
    const next = Math.max(1, Math.floor((this.current * 3) / 4));
    this.cutAt = this.issued;
    this.cleanRun = 0;
    this.bound = false;
    if (next !== this.current) {
      this.current = next;
      this.onChange?.(next);
    }
  }

  private pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  private remember(took: number): void {
    this.recent.push(took);
    if (this.recent.length > HISTORY) this.recent.shift();
  }

  /** Whether an answer took long enough that it must have waited (see the top of the file). */
  private waited(took: number): boolean {
    if (this.recent.length < 4) return took > 2 * WAITED_MS;
    const usual = [...this.recent].sort((a, b) => a - b)[this.recent.length >> 1]!;
    return took > 2 * usual + WAITED_MS;
  }
}
