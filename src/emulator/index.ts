// The emulator's public entry: startEmulator(options) serves the whole partner API of
// partner-api.md on loopback, statefully, and answers a handle to stop it. Used by
// `offramp emulator`, `offramp demo`, the end-to-end tests and the benchmarks.
// Nothing here runs at import time.
import { EMULATOR_DEFAULT_API_KEY } from '../lib/config/profile.js';
import { Decimal } from '../lib/money.js';
import { DEFAULT_SCHEME, isScheme, SCHEMES } from '../lib/signature.js';
import type { Clock } from './clock.js';
import { ManualClock, systemClock } from './clock.js';
import { FaultInjector } from './faults.js';
import type { Mode } from './pricing.js';
import { DEFAULT_RATE, pairsFor, ratesFrom } from './pricing.js';
import { freshSeed, seededRandom } from './prng.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './rate-limit.js';
import { SeededRows } from './revenue-seed.js';
import { BASE_PATH } from './routes.js';
import { Runtime } from './runtime.js';
import { listen } from './server.js';
import { Store } from './store.js';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY, DEFAULT_WEBHOOK_SECRET, Webhooks } from './webhooks.js';

export { ManualClock, systemClock, type Clock } from './clock.js';
export { BASE_PATH } from './routes.js';
export type { Mode } from './pricing.js';

/** The documented key used when none is given (docs/emulator.md). */
export const DEFAULT_API_KEY = EMULATOR_DEFAULT_API_KEY;
export { DEFAULT_WEBHOOK_SECRET } from './webhooks.js';
export { DEFAULT_RATE } from './pricing.js';
/** Port of `offramp emulator` when --port is not given; programmatic use defaults to a free port. */
export const DEFAULT_CLI_PORT = 4010;

export type EmulatorOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the emulator never leaves loopback unless told to. */
  host?: string;
  /** Each key is its own partner. Default: [DEFAULT_API_KEY]. */
  apiKeys?: readonly string[];
  /** Where webhooks are delivered; without one, events are recorded and marked failed. */
  webhookUrl?: string;
  /** HMAC key for X-SVC-Webhook-Signature. Default: DEFAULT_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /**
   * How X-SVC-Webhook-Signature is computed: a scheme of the catalogue in
   * src/lib/signature.ts (docs/emulator.md, Webhooks). Default `hmac-sha256-hex`.
   */
  signatureScheme?: string;
  /** Delay added to every answer, in ms. */
  latencyMs?: number;
  /** Probability (0-1) that a request gets an injected fault. */
  faultRate?: number;
  /** Seed of the fault and seeding generator; random when absent (see `seed` on the handle). */
  seed?: number;
  /** Ledger rows to seed in the first partner, spread over the last 180 days. */
  seedRevenue?: number;
  /** `staging` (default): sandbox pair only, simulator on. `production`: more pairs, simulator 403. */
  mode?: Mode;
  /** Market rate, NGN per token, as a decimal string. Default DEFAULT_RATE. */
  rate?: string;
  /** Requests per second per key; 0 turns the limit off. Default 1000 (staging) or 100 (production). */
  rateLimit?: number;
  /** Webhook retry schedule: attempts per round (default 6) and first delay (default 500 ms, doubling). */
  webhookRetry?: { maxAttempts?: number; baseDelayMs?: number; timeoutMs?: number };
  /** Business clock (quote and deposit expiry, timestamps). Default: the system clock. */
  clock?: Clock;
  /** One line per request (method, path, status, ms, request id). Silent when absent. */
  log?: (line: string) => void;
};

export type RunningEmulator = {
  /** Base URL including the base path, e.g. http://127.0.0.1:41234/api/v1/partner */
  url: string;
  /** http://host:port, without the base path (for a webhook-less health check or a proxy). */
  origin: string;
  port: number;
  host: string;
  mode: Mode;
  /** The keys the emulator accepts, one partner each (in-process only; never printed). */
  apiKeys: readonly string[];
  webhookSecret: string;
  /** The seed in use: pass it back as `seed` to repeat a fault sequence. */
  seed: number;
  /** The business clock; a ManualClock when tests passed one. */
  clock: Clock;
  /** Expires overdue transactions now (the emulator also does it by itself). */
  sweep(): void;
  close(): Promise<void>;
};

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const mode = options.mode ?? 'staging';
  if (mode !== 'staging' && mode !== 'production') throw new RangeError(`mode must be staging or production, got ${String(mode)}`);
  const apiKeys = options.apiKeys && options.apiKeys.length > 0 ? [...options.apiKeys] : [DEFAULT_API_KEY];
  if (apiKeys.some((k) => typeof k !== 'string' || k.length === 0)) throw new RangeError('apiKeys must be non-empty strings');
  const rate = options.rate ?? DEFAULT_RATE;
  if (!/^\d+(\.\d+)?$/.test(rate) || new Decimal(rate).lte(0)) throw new RangeError(`rate must be a positive decimal string, got ${rate}`);
  const faultRate = options.faultRate ?? 0;
  if (!(faultRate >= 0 && faultRate <= 1)) throw new RangeError(`faultRate must be between 0 and 1, got ${faultRate}`);
  const latencyMs = options.latencyMs ?? 0;
  if (!(latencyMs >= 0)) throw new RangeError(`latencyMs must be >= 0, got ${latencyMs}`);
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT[mode];
  if (!(rateLimit >= 0)) throw new RangeError(`rateLimit must be >= 0, got ${rateLimit}`);
  const seed = options.seed ?? freshSeed();
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock;
  const webhookSecret = options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
  const signatureScheme = options.signatureScheme ?? DEFAULT_SCHEME;
  if (!isScheme(signatureScheme)) throw new RangeError(`signatureScheme must be one of ${SCHEMES.join(', ')}, got ${signatureScheme}`);

  const store = new Store(apiKeys);
  const webhooks = new Webhooks(
    {
      url: options.webhookUrl,
      secret: webhookSecret,
      scheme: signatureScheme,
      maxAttempts: Math.max(1, options.webhookRetry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts),
      baseDelayMs: Math.max(0, options.webhookRetry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs),
      timeoutMs: options.webhookRetry?.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    },
    clock,
  );
  const rates = ratesFrom(rate);
  const rt = new Runtime({ mode, rates }, clock, store, webhooks);
  // Two generators from one seed: the revenue seeding must not shift the fault sequence.
  const seedRevenue = options.seedRevenue ?? 0;
  if (seedRevenue > 0) {
    store.partners[0]!.ledger.seed(new SeededRows(seedRevenue, clock.now(), seededRandom(seed ^ 0x5eed), pairsFor(mode), rates));
  }

  let server;
  try {
    server = await listen({
      rt,
      host,
      port: options.port ?? 0,
      latencyMs,
      rateLimitPerSecond: rateLimit,
      rateLimiter: new RateLimiter(rateLimit),
      faults: new FaultInjector(faultRate, seededRandom(seed)),
      log: options.log,
    });
  } catch (err) {
    await webhooks.close();
    throw err;
  }

  // Deadlines pass by themselves: on every jump of a manual clock, every second otherwise.
  const unsubscribe = clock.onAdvance?.(() => rt.sweep());
  const sweeper = unsubscribe ? undefined : setInterval(() => rt.sweep(), 1000).unref();

  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
  let closing: Promise<void> | undefined;
  return {
    url: origin + BASE_PATH,
    origin,
    port: server.port,
    host,
    mode,
    apiKeys,
    webhookSecret,
    seed,
    clock,
    sweep: () => rt.sweep(),
    close() {
      closing ??= (async () => {
        unsubscribe?.();
        if (sweeper) clearInterval(sweeper);
        await server.close();
        await webhooks.close();
      })();
      return closing;
    },
  };
}

/** A clock for tests: starts at `start` (default now) and moves only with advance()/set(). */
export function createManualClock(start?: number | Date): ManualClock {
  return new ManualClock(start);
}
