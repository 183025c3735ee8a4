// `offramp emulator`: serve the partner API locally until Ctrl-C (docs/emulator.md). The base
// URL is the one line on stdout, so `URL=$(offramp emulator &)`-style scripts and `--base-url`
// can take it; everything else goes to stderr. API keys, the webhook secret and the admin token
// are never printed.
import { rm } from 'node:fs/promises';
import { Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { writeAside } from '../../lib/fs/atomic.js';
import { CliError, EXIT, exitCodeForSignal, UsageError } from '../../lib/errors.js';
import { durationFlag, parseIntFlag } from '../../lib/input/values.js';
import { DEFAULT_SCHEME } from '../../lib/webhooks/signature.js';
import { webhookUrl } from '../../lib/webhooks/url.js';
import type * as Emulator from '../../emulator/index.js';
import { examples, untilStopped, type OptionsOf } from '../command.js';
import { ALLOWED_HOSTS_ENV, EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_PORT } from '../../lib/emulator-defaults.js';
import { ADMIN_TOKEN_ENV } from '../../lib/config/secret-variables.js';
import { collect, type GlobalFlags } from '../globals.js';
import { displayUrl, isLoopbackHost } from '../../lib/client/url.js';

/** `offramp emulator` itself; its control commands are in emulator/ (emulator/index.ts). --api-key, a global flag, names its partners. */
export const command = () =>
  new Command<[], {}, Pick<GlobalFlags, 'apiKey'>>('emulator')
    .description('run the local emulator of the partner API (or drive a running one: clock, reset, fault, state, webhooks, wait)')
    .option('--port <port>', 'port', String(EMULATOR_DEFAULT_PORT))
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--webhook-url <url>', 'deliver webhooks here')
    .option('--webhook-secret <secret>', 'sign webhooks with this secret (or OFFRAMP_WEBHOOK_SECRET)')
    .option('--latency <duration>', 'delay every answer: 50ms, 1s (a bare number is ms)')
    .option('--fault-rate <r>', 'share of requests that fail (500, 503, dropped after commit)')
    .option('--seed <n>', 'seed for faults, webhook chaos and generated data')
    .option('--seed-revenue <n>', 'fill the ledger with N rows over the last 180 days')
    .addOption(new Option('--mode <mode>', 'behave as staging or production').choices(['staging', 'production']).default('staging'))
    .option('--rate <ngn>', 'NGN per token')
    .option('--rate-limit <n>', 'requests per second per key')
    .option('--signature-scheme <name>', 'sign deliveries with this scheme of the catalogue (default hmac-sha256-hex)')
    .option('--state <file>', 'load this state file at start if it exists, and keep it current')
    .option('--ready-file <path>', 'write the base URL to this file once the emulator accepts connections')
    .option('--webhook-chaos <spec>', 'deliver webhooks duplicated, reordered, late: duplicate=R,reorder=R,delay=MIN-MAXms')
    .option('--admin-token <token>', 'require this bearer token on the control plane (or OFFRAMP_EMULATOR_ADMIN_TOKEN)')
    .addOption(new Option('--allow-host <name>', `answer requests addressed to this name too, at any port (repeatable; or ${ALLOWED_HOSTS_ENV}, comma-separated)`).argParser(collect))
    .addHelpText(
      'after',
      `\n--api-key K (repeatable) gives each key its own partner; without it the public test key ${EMULATOR_DEFAULT_API_KEY} is used.\n` +
        'The subcommands drive the emulator behind the current profile or --base-url through its control plane\n' +
        '(loopback only, or with the admin token from OFFRAMP_EMULATOR_ADMIN_TOKEN).\n' +
        'It answers only requests addressed to 127.0.0.1, [::1] or localhost at its port, or to an --allow-host name,\n' +
        'and none a web page sends (Origin header): no other site can drive it from a browser.',
    )
    .addHelpText(
      'after',
      examples(
        'offramp emulator',
        'offramp emulator --port 4010 --webhook-url http://127.0.0.1:8787/ --webhook-secret whsec_dev --fault-rate 0.2',
        'offramp emulator --port 0 --state emulator.state --ready-file emulator.url &',
      ),
    )
    // With both an action and subcommands, a mistyped subcommand reaches the server's action
    // as an argument: it is taken (undescribed, so help lists none) to say what it is.
    .argument('[subcommand...]')
    .hook('preAction', (self, acting) => {
      if (acting === self && self.args.length > 0) {
        self.error(`error: unknown command '${self.args[0]}' for 'offramp emulator' (its commands: ${self.commands.map((c) => c.name()).join(', ')})`);
      }
    });

export type EmulatorCommandOptions = Partial<OptionsOf<typeof command>>;

/** `signal` stops the emulator like SIGINT does (tests, embedding). */
export type EmulatorCommandContext = Pick<Context, 'io' | 'env'> & { signal?: AbortSignal };

export async function run(opts: EmulatorCommandOptions, ctx: EmulatorCommandContext): Promise<number> {
  const { io } = ctx;
  // Loaded here, not at the top: only this command (and demo) pays for the server.
  const emu = await import('../../emulator/index.js');
  const settings = parseOptions(opts, ctx.env, emu);
  // The documented defaults are public test values (docs/emulator.md), printed below; a key or
  // secret given is a credential and never printed.
  for (const key of settings.apiKeys ?? []) io.addSecret(key);
  if (settings.webhookSecret) io.addSecret(settings.webhookSecret);
  if (settings.adminToken) io.addSecret(settings.adminToken);
  const readyFile = opts.readyFile;
  // A ready file left by an earlier run must not announce this one before it is up.
  if (readyFile) await rm(readyFile, { force: true });

  const { startEmulator, DEFAULT_CLI_PORT, StateFileError, OptionError, describeChaos } = emu;
  let emulator;
  try {
    emulator = await startEmulator({
      ...settings,
      port: settings.port ?? DEFAULT_CLI_PORT,
      log: (line) => io.err(line),
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const where = `${settings.host ?? '127.0.0.1'}:${settings.port ?? DEFAULT_CLI_PORT}`;
    if (code === 'EADDRINUSE') throw new UsageError(`${where} is already in use`, 'pick another port with --port, or --port 0 for a free one');
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on ${where}`, 'use a port above 1024');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`--host: cannot listen on ${settings.host}`);
    if (err instanceof StateFileError) {
      throw new CliError(err.message, 'STATE_FILE', EXIT.usage, 'nothing was loaded and the file was left as it is; start without --state, or with another file');
    }
    if (err instanceof OptionError) throw new UsageError(err.say((option) => FLAG_OF[option] ?? command().options.find((flag) => flag.attributeName() === option)?.long ?? option), err.hint);
    throw err;
  }
  // Listening for the stop before anything announces the emulator: a CI script may signal
  // it the moment the ready file appears.
  // Stopped by a signal: the exit code says so (130 / 143), as for every interrupted command.
  const stopped = untilStopped(ctx.signal);
  if (readyFile) {
    // Written aside and renamed: a reader never sees half a URL.
    await writeAside(readyFile, `${emulator.url}\n`, 0o644).catch(async (err: Error) => {
      await emulator.close();
      throw new UsageError(`--ready-file: cannot write ${readyFile}: ${err.message}`);
    });
  }

  io.out(`${emulator.url}\n`);
  const keys = settings.apiKeys
    ? `${emulator.apiKeys.length} partner${emulator.apiKeys.length === 1 ? '' : 's'}, one per --api-key`
    : `1 partner, public test key ${emu.DEFAULT_API_KEY}`;
  io.err(`offramp emulator listening on ${emulator.url} (${emulator.mode} mode, ${keys})`);
  const signedWith = settings.webhookSecret ? 'the given secret' : `the public test secret ${emu.DEFAULT_WEBHOOK_SECRET}`;
  io.err(
    settings.webhookUrl
      ? `webhooks: delivered to ${displayUrl(settings.webhookUrl, { query: false })}, signed with ${signedWith} (${settings.signatureScheme ?? DEFAULT_SCHEME})`
      : `webhooks: recorded only, until \`offramp webhooks listen\` or \`offramp emulator webhooks set-url URL\` gives an endpoint (signed with ${signedWith})`,
  );
  if (settings.latencyMs || settings.faultRate) {
    io.err(`faults: latency ${settings.latencyMs ?? 0} ms, fault rate ${settings.faultRate ?? 0}, seed ${emulator.seed}`);
  }
  if (settings.webhookChaos) io.err(`webhook chaos: ${describeChaos(settings.webhookChaos)} (seed ${emulator.seed})`);
  if (settings.seedRevenue) io.err(`seeded ${settings.seedRevenue} revenue rows over the last 180 days`);
  if (settings.statePath) {
    const held = emulator.summary();
    io.err(`state: ${settings.statePath} (${held.transactions} transactions, ${held.events} events${held.dormant_partners ? `, ${held.dormant_partners} dormant partners` : ''}), each change journaled before its answer`);
  }
  io.err(`control plane: ${emulator.controlUrl}/ (${settings.adminToken ? 'admin token required' : 'loopback clients only'})`);
  if (!isLoopbackHost(emulator.host)) io.err(`warning: listening on ${emulator.host}, reachable from other machines`);
  if (readyFile) io.err(`ready: base URL written to ${readyFile}`);
  io.err('press Ctrl-C to stop');

  const signal = await stopped;
  io.err('stopping emulator');
  await emulator.close();
  if (readyFile) await rm(readyFile, { force: true }).catch(() => undefined);
  if (settings.statePath) io.err(`state written to ${settings.statePath}`);
  io.err(settings.statePath ? 'emulator stopped' : 'emulator stopped; its data is gone (held in memory only): start it with --state FILE to keep it across restarts');
  return signal ? exitCodeForSignal(signal) : 0;
}

/** The refusable options whose flag is not named after them, or that a variable also gives; any other is its flag in command(). */
const FLAG_OF: Partial<Record<keyof Emulator.EmulatorOptions, string>> = {
  allowedHosts: `--allow-host / ${ALLOWED_HOSTS_ENV}`,
  apiKeys: '--api-key',
  latencyMs: '--latency',
  adminToken: `--admin-token / ${ADMIN_TOKEN_ENV}`,
};

/** The flags as startEmulator's options: converted here, judged by its rules (an OptionError names the flag). */
export function parseOptions(
  opts: EmulatorCommandOptions,
  env: NodeJS.ProcessEnv,
  { parseChaos }: Pick<typeof Emulator, 'parseChaos'>,
): Emulator.EmulatorOptions {
  const settings: Emulator.EmulatorOptions = {
    mode: opts.mode,
    rate: opts.rate,
    apiKeys: opts.apiKey?.length ? opts.apiKey : undefined,
    signatureScheme: opts.signatureScheme?.trim(),
  };
  if (opts.port !== undefined) settings.port = parseIntFlag(opts.port, '--port', 0, 65535);
  if (opts.host !== undefined) {
    if (opts.host.trim() === '' || /\s/.test(opts.host)) throw new UsageError('--host: give a host name or IP address, e.g. 127.0.0.1');
    settings.host = opts.host;
  }
  if (opts.webhookUrl !== undefined) settings.webhookUrl = webhookUrl(opts.webhookUrl, '--webhook-url').toString();
  const secret = opts.webhookSecret ?? env.OFFRAMP_WEBHOOK_SECRET;
  if (secret !== undefined && secret !== '') settings.webhookSecret = secret;
  if (opts.latency !== undefined) settings.latencyMs = durationFlag(opts.latency, '--latency', 'ms', 0);
  if (opts.faultRate !== undefined) {
    const raw = String(opts.faultRate).trim();
    if (!/^-?\d*\.?\d+$/.test(raw)) throw new UsageError(`--fault-rate: "${raw}" is not a number (a probability from 0 to 1, e.g. 0.3)`);
    settings.faultRate = Number(raw);
  }
  if (opts.seed !== undefined) settings.seed = parseIntFlag(opts.seed, '--seed', 0, 0xffff_ffff);
  if (opts.seedRevenue !== undefined) settings.seedRevenue = parseIntFlag(opts.seedRevenue, '--seed-revenue', 0, 2_000_000);
  if (opts.rateLimit !== undefined) settings.rateLimit = parseIntFlag(opts.rateLimit, '--rate-limit', 0);
  if (opts.state !== undefined) {
    if (opts.state.trim() === '') throw new UsageError('--state: give a file path');
    settings.statePath = opts.state;
  }
  if (opts.readyFile !== undefined && opts.readyFile.trim() === '') throw new UsageError('--ready-file: give a file path');
  if (opts.webhookChaos !== undefined) {
    const chaos = parseChaos(opts.webhookChaos);
    if (typeof chaos === 'string') throw new UsageError(`--webhook-chaos: ${chaos}`, 'e.g. --webhook-chaos duplicate=0.2,reorder=0.3,delay=10-500ms');
    settings.webhookChaos = chaos;
  }
  settings.adminToken = opts.adminToken ?? (env[ADMIN_TOKEN_ENV] || undefined);
  settings.allowedHosts = [...(env[ALLOWED_HOSTS_ENV] ?? '').split(','), ...(opts.allowHost ?? [])].map((name) => name.trim()).filter((name) => name !== '');
  return settings;
}
