// The emulator's public types: what `startEmulator` takes and answers, for this repository
// and for partners who import `offramp-cli/emulator` in their own test suites. This module
// imports nothing, on purpose: the package ships its declarations (scripts/build-emulator-lib.mjs
// checks that they reach no other module), so a partner's type check needs none of our
// dependencies installed.

/** The first line of every state file names this format (state-codec.ts); here, so the CLI can check it without loading the codec. */
export const STATE_FORMAT = 'offramp-emulator-state';

/** `staging` (default): sandbox pair only, simulator on. `production`: more pairs, simulator 403. */
export type Mode = 'staging' | 'production';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Optional: called with a listener that must run after every jump of a manual clock,
   * so the emulator can expire what became due "without anyone asking". A real clock
   * does not need it (the emulator sweeps on a timer instead).
   */
  onAdvance?(listener: () => void): () => void;
  /**
   * Optional: moves the clock forward. When the clock has it (a ManualClock does), the
   * control plane's `POST /__emulator/clock` moves this clock; otherwise the emulator
   * keeps its own offset on top of it.
   */
  advance?(ms: number): void;
}

/**
 * A targeted fault on the partner API (docs/emulator.md, "Control plane"). `route` is
 * `METHOD PATH` with PATH relative to the base path and `*` matching one segment, e.g.
 * `GET /transactions/*`. Exactly one of `status`, `dropAfterCommit`, `latencyMs`.
 */
export type RouteFaultInput = {
  route: string;
  /** Only the next N matching requests; every matching request until cleared when absent. */
  next?: number;
  /** Answer this error status (400-599) before the operation runs: nothing is committed. */
  status?: number;
  /** Run the operation (and commit it), then close the connection without an answer. */
  dropAfterCommit?: boolean;
  /** Delay the answer by this many milliseconds. */
  latencyMs?: number;
};

/**
 * A fault on webhook delivery: the next N deliveries (of `eventType`, or of any type) fail
 * with `status` as if the partner's endpoint had answered it, so retries and telemetry
 * show it.
 */
export type WebhookFaultInput = {
  webhook: true;
  eventType?: string;
  next?: number;
  /** A non-2xx status, 300-599. */
  status: number;
};

export type FaultInput = RouteFaultInput | WebhookFaultInput;

export type FaultRule = {
  id: string;
  kind: 'route' | 'webhook';
  /** `METHOD PATH` for a route rule. */
  route?: string;
  eventType?: string;
  status?: number;
  dropAfterCommit?: boolean;
  latencyMs?: number;
  /** Uses left; null means every match until cleared. */
  remaining: number | null;
  /** Requests or deliveries it has applied to so far. */
  applied: number;
};

/**
 * Webhook chaos for a partner's consumer (the spec: at-least-once, unordered delivery).
 * Rates are probabilities from 0 to 1.
 */
export type WebhookChaos = {
  /** Share of delivered events sent a second time (same event id, same body). */
  duplicate?: number;
  /** Share of events held back until a later event has been delivered. */
  reorder?: number;
  /** Every first delivery and duplicate waits a random time in this range, in ms. */
  delayMs?: readonly [number, number];
};

/** One answer of the partner API, as `onAnswer` sees it. */
export type Answered = {
  method: string;
  /**
   * The route that answered, `METHOD /path` below the base path as the route table writes
   * it (`GET /transactions/:id`); undefined when no route matched the path.
   */
  route: string | undefined;
  /** The path asked for, below the origin. */
  path: string;
  status: number;
  headers: Record<string, string | number>;
  /** The body exactly as sent. */
  body: string;
};

export type EmulatorOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the emulator never leaves loopback unless told to. */
  host?: string;
  /** Names answered at any port besides its loopback ones at its own (docs/emulator.md, "Who it answers"). */
  allowedHosts?: readonly string[];
  /** Each key is its own partner. Default: [DEFAULT_API_KEY]. */
  apiKeys?: readonly string[];
  /** Where webhooks are delivered; without one, events are recorded and marked failed. */
  webhookUrl?: string;
  /** HMAC key for X-SVC-Webhook-Signature. Default: DEFAULT_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /**
   * How X-SVC-Webhook-Signature is computed: a scheme of the catalogue in
   * src/lib/webhooks/signature.ts (docs/emulator.md, Webhooks). Default `hmac-sha256-hex`.
   */
  signatureScheme?: string;
  /** Delay added to every answer, in ms. */
  latencyMs?: number;
  /** Probability (0-1) that a request gets an injected fault. */
  faultRate?: number;
  /** Seed of the fault, chaos and seeding generators; random when absent (see `seed` on the handle). */
  seed?: number;
  /** Ledger rows to seed in the first partner, spread over the last 180 days. */
  seedRevenue?: number;
  mode?: Mode;
  /** Market rate, NGN per token, as a decimal string. Default DEFAULT_RATE. */
  rate?: string;
  /** Requests per second per key; 0 turns the limit off. Default 1000 (staging) or 100 (production). */
  rateLimit?: number;
  /** Webhook retry schedule: attempts per round (default 6) and first delay (default 500 ms, doubling). */
  webhookRetry?: { maxAttempts?: number; baseDelayMs?: number; timeoutMs?: number };
  /** Duplicates, reordering and delays of webhook deliveries. Off by default. */
  webhookChaos?: WebhookChaos;
  /**
   * A state file: loaded at start with its journal when it exists (refused, with a
   * StateFileError, when it is damaged, from another version, or not private to this
   * user); every change is journaled before it is answered.
   */
  statePath?: string;
  /**
   * Bearer token the control plane (`/__emulator/`) requires; without one the control
   * plane answers loopback clients only. Required when `host` is not a loopback address.
   */
  adminToken?: string;
  /** Business clock (quote and deposit expiry, timestamps). Default: the system clock. */
  clock?: Clock;
  /** One line per request (method, path, status, ms, request id). Silent when absent. */
  log?: (line: string) => void;
  /**
   * Called with every answer of the partner API as it is sent (not the control plane's, a
   * refusal's, nor a dropped connection): for test suites that check answers, as this
   * project's own check each against the OpenAPI document. What it throws is logged, never answered.
   */
  onAnswer?: (answer: Answered) => void;
};

export type AdvanceResult = {
  /** The emulator's business time after the advance (RFC 3339). */
  now: string;
  advanced_ms: number;
  /** Milliseconds the emulator's clock runs ahead of its base clock. */
  offset_ms: number;
  /** Transactions whose deposit deadline passed in this advance. */
  expired_transactions: number;
};

/** Counts of what a state holds, answered by import and health. */
export type StateSummary = {
  partners: number;
  /** Partners in the state whose key this emulator was not started with: kept, not served. */
  dormant_partners: number;
  transactions: number;
  events: number;
  quotes: number;
  idempotency_keys: number;
  ledger_rows: number;
  clock_offset_ms: number;
};

export type RunningEmulator = {
  /** Base URL including the base path, e.g. http://127.0.0.1:41234/api/v1/partner */
  url: string;
  /** http://host:port, without the base path (for a webhook-less health check or a proxy). */
  origin: string;
  /** The control plane: origin + '/__emulator'. */
  controlUrl: string;
  port: number;
  host: string;
  mode: Mode;
  /** The keys the emulator accepts, one partner each (in-process only; never printed). */
  apiKeys: readonly string[];
  webhookSecret: string;
  /** The seed in use: pass it back as `seed` to repeat a fault sequence. */
  seed: number;
  /** The business clock; the ManualClock when one was passed. */
  clock: Clock;
  /** Expires overdue transactions now (the emulator also does it by itself). */
  sweep(): void;
  /** Moves business time forward (ms, or a duration such as `31m`) and runs what became due. */
  advanceClock(by: number | string): AdvanceResult;
  /** Forgets everything (or one partner's data, given its key): as freshly started. */
  reset(partnerKey?: string): void;
  addFault(rule: FaultInput): FaultRule;
  faults(): FaultRule[];
  /** Removes every fault rule; answers how many there were. */
  clearFaults(): number;
  /** The whole state in the `--state` file format. */
  exportState(): string;
  /** Replaces the whole state with a document from exportState or a state file. */
  importState(document: string): StateSummary;
  summary(): StateSummary;
  /**
   * Resolves once no webhook delivery is in flight and none is queued to start within
   * `withinMs` (by default, at all): nothing more arrives then, and no sleep has to show it.
   */
  webhooksIdle(withinMs?: number): Promise<void>;
  /** Folds the journal into the state file now (resolves at once without one). */
  flush(): Promise<void>;
  /** Stops serving; with a state file, folds everything into it first. */
  close(): Promise<void>;
};
