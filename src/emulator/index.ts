// The emulator's public entry, published as `offramp-cli/emulator` (docs/emulator.md, "From
// code"). Nothing here runs at import time. What this module exports is declared in terms of
// types.ts, clock.ts and errors.ts only: those declarations are what the package ships, and
// they must not reach modules that need our dependencies' types.
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_PORT, EMULATOR_DEFAULT_WEBHOOK_SECRET } from '../lib/emulator-defaults.js';
import { parseDuration } from '../lib/input/duration.js';
import { Decimal } from '../lib/money.js';
import { DEFAULT_SCHEME, isScheme, SCHEMES } from '../lib/webhooks/signature.js';
import { chaosProblem } from './chaos.js';
import { ManualClock, OffsetClock, systemClock } from './clock.js';
import type { ControlSettings } from './control.js';
import { CONTROL_PATH } from './control.js';
import { isLoopbackHost, parseHost } from '../lib/client/url.js';
import { FaultRules, MAX_FAULT_LATENCY_MS } from './fault-rules.js';
import { OptionError } from './errors.js';
import { FaultInjector } from './faults.js';
import { DEFAULT_RATE as PRICING_DEFAULT_RATE, pairsFor, ratesFrom } from './pricing.js';
import { seededRandom } from './prng.js';
import { DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT, RateLimiter } from './rate-limit.js';
import { SeededRows } from './revenue-seed.js';
import { ROUTES } from './routes.js';
import { BASE_PATH as API_BASE_PATH } from '../lib/vocabulary.js';
import { IN_MEMORY, Runtime } from './runtime.js';
import { listen } from './server.js';
import { exportDocument, StateJournal } from './journal.js';
import { decodeDocument } from './state-codec.js';
import { Partners } from './partners.js';
import { expireDue } from './transactions.js';
import type { Clock, EmulatorOptions, RunningEmulator } from './types.js';
import { ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY, Webhooks } from './webhooks.js';

export { ManualClock, systemClock } from './clock.js';
export { OptionError, StateFileError } from './errors.js';
export { describeChaos, parseChaos } from './chaos.js';
export { faultProblem, MAX_FAULT_LATENCY_MS } from './fault-rules.js';
export { STATE_FORMAT } from './types.js';
export type {
  AdvanceResult,
  Answered,
  Clock,
  EmulatorOptions,
  FaultInput,
  FaultRule,
  Mode,
  RouteFaultInput,
  RunningEmulator,
  StateSummary,
  WebhookChaos,
  WebhookFaultInput,
} from './types.js';

/** The partner API's base path; every endpoint is below it. */
export const BASE_PATH: '/api/v1/partner' = API_BASE_PATH;
/** The documented key used when none is given (docs/emulator.md). */
export const DEFAULT_API_KEY: string = EMULATOR_DEFAULT_API_KEY;
/** The documented webhook secret used when none is given. */
export const DEFAULT_WEBHOOK_SECRET: string = EMULATOR_DEFAULT_WEBHOOK_SECRET;
/** The market rate, NGN per token, when none is given. */
export const DEFAULT_RATE: string = PRICING_DEFAULT_RATE;
/** Port of `offramp emulator` when --port is not given; programmatic use defaults to a free port. */
export const DEFAULT_CLI_PORT: number = EMULATOR_DEFAULT_PORT;

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const mode = options.mode ?? 'staging';
  const apiKeys = options.apiKeys && options.apiKeys.length > 0 ? [...new Set(options.apiKeys)] : [DEFAULT_API_KEY];
  const rate = options.rate ?? DEFAULT_RATE;
  const faultRate = options.faultRate ?? 0;
  const latencyMs = options.latencyMs ?? 0;
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT[mode];
  const seed = options.seed ?? Math.floor(Math.random() * 0x1_0000_0000);
  const host = options.host ?? '127.0.0.1';
  const webhookSecret = options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
  const chaos = options.webhookChaos;
  const chaosIssue = chaos ? chaosProblem(chaos) : null;
  const adminToken = options.adminToken;
  // Each rule and what it says when broken; the first broken one is thrown.
  const rules: [boolean, OptionError['say'], string?][] = [
    [mode === 'staging' || mode === 'production', (n) => `${n('mode')} must be staging or production, got ${String(mode)}`],
    [apiKeys.every((k) => typeof k === 'string' && /^\S+$/.test(k)), (n) => `${n('apiKeys')}: a key must be non-empty and contain no spaces`],
    [/^\d+(\.\d+)?$/.test(rate) && new Decimal(rate).gt(0), (n) => `${n('rate')}: "${rate}" is not a positive decimal (NGN per token, e.g. 1550.00)`],
    [faultRate >= 0 && faultRate <= 1, (n) => `${n('faultRate')}: "${faultRate}" is not a probability from 0 to 1 (e.g. 0.3)`],
    [latencyMs >= 0 && latencyMs <= MAX_FAULT_LATENCY_MS, (n) => `${n('latencyMs')} must be from 0 to ${MAX_FAULT_LATENCY_MS} ms, got ${latencyMs}`],
    [Number.isInteger(rateLimit) && rateLimit >= 0 && rateLimit <= MAX_RATE_LIMIT, (n) => `${n('rateLimit')} must be a whole number from 0 to ${MAX_RATE_LIMIT}, got ${rateLimit}`],
    [chaosIssue === null, (n) => `${n('webhookChaos')}: ${chaosIssue}`],
    [adminToken === undefined || /^\S{8,}$/.test(adminToken), (n) => `${n('adminToken')}: at least 8 characters, no spaces`],
    // The control plane can reset every partner: off loopback, only with a token.
    [isLoopbackHost(host) || adminToken !== undefined, (n) => `${n('host')} ${host} is not a loopback address: the control plane then needs ${n('adminToken')}`, 'so that only holders of the token can reset or drive the emulator'],
  ];
  const broken = rules.find(([ok]) => !ok);
  if (broken) throw new OptionError(broken[1], broken[2]);
  const signatureScheme = options.signatureScheme ?? DEFAULT_SCHEME;
  if (!isScheme(signatureScheme)) throw new OptionError((n) => `${n('signatureScheme')}: unknown scheme "${signatureScheme}"`, `the catalogue: ${SCHEMES.join(', ')}`);
  const allowedHosts = new Set<string>();
  for (const name of options.allowedHosts ?? []) {
    const parsed = parseHost(name);
    if (parsed?.port !== '') throw new OptionError((n) => `${n('allowedHosts')}: "${name}" is not a host name alone`, 'give the name alone, like emulator or 127.0.0.1: any port is answered for it');
    allowedHosts.add(parsed.hostname);
  }
  // A clock that can move (a ManualClock) is moved by the control plane; any other gets an offset on top.
  const base = options.clock ?? systemClock;
  const clock: Clock = typeof base.advance === 'function' ? base : new OffsetClock(base);

  const opened = options.statePath !== undefined ? await StateJournal.open(options.statePath, options.log) : undefined;
  const stateFile = opened?.journal;
  const journal = stateFile ?? IN_MEMORY;
  const faultRules = new FaultRules();
  const webhooks = new Webhooks(
    {
      url: options.webhookUrl,
      secret: webhookSecret,
      scheme: signatureScheme,
      maxAttempts: Math.max(1, options.webhookRetry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts),
      baseDelayMs: Math.max(0, options.webhookRetry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs),
      timeoutMs: options.webhookRetry?.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
      chaos,
      random: seededRandom(seed ^ 0xc4a05),
    },
    clock,
    faultRules,
    (evt) => journal.changed('event', evt.owner, evt.event_id),
    () => journal.committed(),
  );
  try {
    const rates = ratesFrom(rate);
    // Separate generators from one seed: seeding revenue must not shift the fault sequence.
    const seedRevenue = options.seedRevenue ?? 0;
    const seeded = seedRevenue > 0 ? SeededRows.generate(seedRevenue, clock.now(), seededRandom(seed ^ 0x5eed), pairsFor(mode), rates) : undefined;
    const partners = new Partners(apiKeys, seeded);
    const rt = new Runtime({ mode, rates }, clock, partners, webhooks, faultRules, journal, expireDue);
    if (opened?.decoded) rt.install(opened.decoded);
    await stateFile?.attach(rt);

    const control: ControlSettings = { adminToken, stateFile, startedAt: Date.now(), url: '' };
    const server = await listen({
      rt,
      host,
      allowedHosts,
      port: options.port ?? 0,
      latencyMs,
      rateLimiter: new RateLimiter(rateLimit),
      faults: new FaultInjector(faultRate, seededRandom(seed)),
      control,
      log: options.log,
      onAnswer: options.onAnswer,
    });

    // Deadlines pass by themselves: on every jump of a manual clock, every second otherwise.
    const unsubscribe = clock.onAdvance?.(() => rt.sweep());
    const sweeper = unsubscribe ? undefined : setInterval(() => rt.sweep(), 1000).unref();

    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
    control.url = origin + BASE_PATH;
    let closing: Promise<void> | undefined;
    return {
      url: origin + BASE_PATH,
      origin,
      controlUrl: origin + CONTROL_PATH,
      port: server.port,
      host,
      mode,
      apiKeys,
      // The control plane may change it while the emulator runs: read when asked.
      get webhookSecret() {
        return webhooks.endpoint().secret;
      },
      seed,
      clock,
      sweep: () => void rt.sweep(),
      advanceClock(by) {
        const ms = typeof by === 'string' ? parseDuration(by) : by;
        if (typeof ms === 'string') throw new RangeError(ms);
        if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceClock takes a non-negative number of milliseconds or a duration such as 31m');
        return rt.advance(ms);
      },
      reset(partnerKey) {
        if (!rt.reset(partnerKey)) throw new RangeError('no partner with that API key');
      },
      addFault: (rule) => rt.faultRules.add(rule, ROUTES),
      faults: () => rt.faultRules.list(),
      clearFaults: () => rt.faultRules.clear(),
      exportState: () => exportDocument(rt),
      importState(document) {
        rt.install(decodeDocument(Buffer.from(document, 'utf8')));
        return rt.summary();
      },
      summary: () => rt.summary(),
      webhooksIdle: (withinMs) => webhooks.idle(withinMs),
      flush: () => stateFile?.fold() ?? Promise.resolve(),
      close() {
        closing ??= (async () => {
          unsubscribe?.();
          if (sweeper) clearInterval(sweeper);
          await server.close();
          await webhooks.close();
          await stateFile?.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await webhooks.close();
    await stateFile?.close();
    throw err;
  }
}

/** A clock for tests: starts at `start` (default now) and moves only with advance()/set(). */
export function createManualClock(start?: number | Date): ManualClock {
  return new ManualClock(start);
}
