// offramp webhooks listen: a local webhook endpoint (src/lib/webhooks/receiver.ts does the
// work; docs/webhooks.md, "Receiving locally", describes the registration, the store, the
// forwarding, the tally and the exit codes).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { CheckFailed, exitCodeForSignal, UsageError } from '../../lib/errors.js';
import { parseIntFlag, toleranceSeconds } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { DEFAULT_TOLERANCE_SEC } from '../../lib/webhooks/signature.js';
import { chalkFor } from '../../lib/output/render.js';
import { deliveryJson, deliveryLine, forwardJson, forwardLine, lineStyle, tallyLine } from '../../lib/webhooks/describe.js';
import { paint } from '../../lib/output/sanitize.js';
import { eventTypeFilter } from '../../lib/webhooks/filters.js';
import { forwardTarget } from '../../lib/webhooks/forwarder.js';
import { maxResponseBytes } from '../../lib/client/transport.js';
import { startReceiver, type ForwardOptions, type Receiver } from '../../lib/webhooks/receiver.js';
import { DEFAULT_STORE, defaultStorePath, oldStoreNote, STORE_NAME } from '../../lib/webhooks/store.js';
import { examples, untilStopped, type OptionsOf } from '../command.js';
import { displayUrl } from '../../lib/client/url.js';
import { findSource, register, webhookScheme, webhookSecret, type Restore } from '../../lib/webhooks/register.js';

export const command = () =>
  new Command('listen')
    .description('receive webhooks locally: verify, deduplicate, store, show')
    .option('--port <port>', 'port on 127.0.0.1', '8787')
    .option('--secret <secret>', "webhook secret (prefer OFFRAMP_WEBHOOK_SECRET or the profile; against an emulator, its own unless given)")
    .option('--store <file>', `append each new event to this NDJSON file (yours alone: 0600; default ${DEFAULT_STORE})`)
    .option('--forward-to <url>', "relay verified events to your app's endpoint, retrying until it takes each")
    .option('--forward-ca <file>', 'with an https --forward-to: trust this PEM certificate (a self-signed local app)')
    .option('--forward-insecure', "with an https --forward-to: do not check the app's certificate")
    .option('--allow-insecure-forward', 'allow a plain http --forward-to URL on another machine (events cross the network in clear)')
    .option('--events <types>', 'show and forward only these event types, comma-separated (family.* allowed); all are stored')
    .option('--strict', 'with --forward-to: exit 8 when the app is still owed events at exit')
    .option('--scheme <name>', "accept only this signature scheme (default: the profile's, else any of the catalogue)")
    .option('--tolerance <duration>', 'largest clock difference accepted for timestamped signatures: 30s, 5m (a bare number is seconds)', '5m')
    .option('--no-register', 'leave the emulator\'s webhook URL alone (by default it is pointed here while this runs)')
    .addHelpText(
      'after',
      examples(
        'offramp webhooks listen --port 8787',
        'offramp webhooks listen --forward-to http://127.0.0.1:3000/webhooks --events transaction.completed,payout.settled',
        'offramp webhooks listen --forward-to https://localhost:3443/hooks --forward-ca ./dev-cert.pem --strict',
      ),
    );

export type Options = OptionsOf<typeof command>;

/** How many transactions listen lists, with their latest status, when it stops. */
const LISTED_TRANSACTIONS = 10;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const port = parseIntFlag(opts.port ?? 8787, '--port', 0, 65535);
  const forward = await forwardOptions(opts, ctx);
  if (opts.strict && !forward) throw new UsageError('--strict goes with --forward-to', 'it fails the run when the app is still owed events');
  const events = opts.events !== undefined ? eventTypeFilter(opts.events) : undefined;
  for (const name of events?.unknown ?? []) io.err(`warning: --events: ${name} is not one of the spec's event types; kept (a service may send others)`);
  const format = resolveFormat(ctx.globals, formatsOf('webhooks listen'));
  const jsonLines = format !== 'table';
  if (opts.store !== undefined && opts.store.trim() === '') throw new UsageError('--store: give a file name');
  const storePath = resolve(opts.store ?? defaultStorePath(ctx.env));
  // Refused before anything is made: once the new default exists, the move it names would do nothing.
  const oldStore = opts.store === undefined ? oldStoreNote(ctx.env) : undefined;
  if (oldStore) throw new UsageError(oldStore, `or keep it where it is: offramp webhooks listen --store ${STORE_NAME}`);
  const toleranceSec = opts.tolerance === undefined ? DEFAULT_TOLERANCE_SEC : toleranceSeconds(opts.tolerance);
  const scheme = await webhookScheme(ctx, opts.scheme);
  const source = await findSource(ctx, opts.register !== false);
  // Against an emulator, its own signing secret, unless one given (--secret, OFFRAMP_WEBHOOK_SECRET) is set on it.
  const secret = await webhookSecret(ctx, opts.secret, 'to verify signatures with', source);
  const setOnEmulator = source.kind === 'emulator' && secret !== source.found.secret ? secret : undefined;

  const style = lineStyle(chalkFor(io, 'out'), io.stdoutIsTTY, io.tableWidth);
  // Lines come terminal-safe from describe.ts (or are NDJSON, data): written as they are.
  const lines = lineBatcher((text) => io.out(text));
  let receiver: Receiver;
  try {
    receiver = await startReceiver({
      port,
      secret,
      ...(scheme ? { scheme } : {}),
      toleranceSec,
      storePath,
      ...(forward ? { forward } : {}),
      ...(events ? { eventTypes: events.matches } : {}),
      now: ctx.now,
      onEvent: (info) => lines.push(jsonLines ? JSON.stringify(deliveryJson(info)) : deliveryLine(info, style)),
      onForward: (result) => lines.push(jsonLines ? JSON.stringify({ time: ctx.now().toISOString(), forward: forwardJson(result) }) : forwardLine(result, style)),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is already in use`, 'choose another with --port (0 picks a free one)');
    if (e.code === 'EACCES' && e.syscall === 'listen') throw new UsageError(`not allowed to listen on port ${port}`, 'use a port above 1023');
    if (e.code && e.path) throw new UsageError(`${opts.store !== undefined ? `--store ${opts.store}` : `the store ${storePath}`}: ${e.message}`);
    throw err;
  }

  io.err(['Listening for webhooks on ', paint(receiver.url, chalkFor(io, 'err').bold), '  (POST to any path)']);
  let unregister: (() => Promise<string>) | undefined;
  if (source.kind === 'emulator') {
    let restore: Restore;
    try {
      ({ restore, undo: unregister } = await register(ctx, source, receiver.url, setOnEmulator, 'webhooks listen'));
    } catch (err) {
      await receiver.close();
      throw err;
    }
    if (restore.stale && source.found.url) io.err(`note: the emulator delivered to ${displayUrl(source.found.url, { query: false })}, a stale registration (${restore.stale}): not put back`);
    io.err(
      `The emulator at ${source.target.origin} now delivers here, signed with ${setOnEmulator ? 'the given secret' : 'its own secret'} (${source.found.signature_scheme}); ` +
        `${restore.url ? `its URL ${displayUrl(restore.url, { query: false })} is put back` : 'it records only again'} when this stops (--no-register: leave it alone).`,
    );
  } else if (source.kind === 'service') {
    io.err(`A ${source.env} service cannot reach 127.0.0.1: expose this listener (a tunnel), set that public URL as the webhook endpoint in your partner settings with the service, and verify with the secret it gave you.`);
  } else {
    io.err(`Give the service this URL${source.why ? ` (${source.why}; nothing registered)` : ''}. To an emulator: offramp emulator webhooks set-url ${receiver.url}`);
  }
  const loaded = receiver.loaded;
  const known = loaded?.created ? ' (created, mode 0600)' : loaded && loaded.events > 0 ? ` (${loaded.events} events already in it count as received)` : '';
  io.err(`Storing new events in ${storePath}${known}`);
  if (loaded?.staleLockFrom !== undefined) {
    io.err(`note: the store's lock was left by process ${loaded.staleLockFrom}, which no longer runs (a listener stopped with SIGKILL?); taken over`);
  }
  if (loaded?.tornPath) {
    io.err(`warning: the store ended with a partial line (${loaded.tornBytes} bytes: a crash mid-write, never acknowledged); set aside in ${loaded.tornPath} and cut off`);
  }
  if (loaded?.unreadable) io.err(`warning: ${loaded.unreadable} line(s) of the store are not events; they are kept but ignored`);
  const pinnedBy = opts.scheme !== undefined ? '--scheme' : "the profile's setting; --scheme any accepts every scheme";
  const window = scheme === undefined || scheme === 'timestamped-sha256' ? `timestamps within ${toleranceSec} s` : '';
  io.err(scheme ? `Accepting only ${scheme} signatures (${pinnedBy})${window ? `, ${window}` : ''}` : `Accepting any signature scheme of the catalogue (${window})`);
  if (events) io.err(`Showing and forwarding only ${events.patterns.join(', ')} (every verified event is still stored)`);
  const { queued, heldBack } = receiver.backlog;
  if (forward) {
    io.err(`Forwarding verified events to ${forward.url}, retrying until the app takes each${receiver.forwardLogPath ? ` (taken: ${receiver.forwardLogPath})` : ''}`);
    if (forward.insecure) io.err("warning: --forward-insecure: the app's certificate is not checked");
    if (queued) io.err(`${queued} event(s) still owed to the app from an earlier run: forwarding them now`);
    if (heldBack) io.err(`${heldBack} event(s) still owed to the app are not forwarded in this run (their types are not in --events)`);
  } else if (heldBack) {
    io.err(`${heldBack} event(s) in the store are still owed to an app (received with --forward-to); run with --forward-to URL to deliver them`);
  }
  io.err('Press Ctrl-C to stop.');

  // An abort of ctx.signal (tests, embedding) stops it as Ctrl-C does: same tally, exit 130.
  const signal = (await untilStopped(ctx.signal)) ?? 'SIGINT';

  // The emulator is pointed back first, so that nothing more is sent to a closed port.
  const restored = await unregister?.();
  await receiver.close();
  lines.flush();
  const stats = receiver.stats;
  io.err('');
  io.err(`Stopped (${signal}). ${tallyLine(stats)}.`);
  if (restored) io.err(restored);
  const statuses = receiver.statuses();
  if (statuses.length > 0) {
    io.err(`Latest status of ${statuses.length} transaction${statuses.length === 1 ? '' : 's'} (including the store):`);
    for (const [tx, status] of statuses.slice(-LISTED_TRANSACTIONS)) io.err(`  ${tx}  ${status}`);
    if (statuses.length > LISTED_TRANSACTIONS) io.err(`  … and ${statuses.length - LISTED_TRANSACTIONS} earlier`);
  }
  if (opts.strict && stats.owed > 0) {
    throw new CheckFailed(
      `${stats.owed} event(s) still owed to ${forward!.url} (--strict)`,
      'they are in the store: the next `webhooks listen --forward-to URL` on it forwards them',
    );
  }
  return exitCodeForSignal(signal);
}

/** --forward-to with its TLS flags, checked; the retry base follows OFFRAMP_RETRY_BASE_MS when set. */
async function forwardOptions(opts: Options, ctx: Context): Promise<ForwardOptions | undefined> {
  if (opts.forwardTo === undefined) {
    if (opts.forwardCa !== undefined || opts.forwardInsecure) throw new UsageError('--forward-ca and --forward-insecure go with --forward-to https://…');
    return undefined;
  }
  const url = forwardTarget(opts.forwardTo, opts.allowInsecureForward === true);
  if ((opts.forwardCa !== undefined || opts.forwardInsecure) && url.protocol !== 'https:') {
    throw new UsageError('--forward-ca and --forward-insecure are for an https --forward-to URL');
  }
  if (opts.forwardCa !== undefined && opts.forwardInsecure) {
    throw new UsageError('--forward-ca and --forward-insecure together: choose one', '--forward-ca trusts one certificate; --forward-insecure checks none');
  }
  let ca: string | undefined;
  if (opts.forwardCa !== undefined) {
    try {
      ca = await readFile(opts.forwardCa, 'utf8');
    } catch (err) {
      throw new UsageError(`--forward-ca ${opts.forwardCa}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--forward-ca ${opts.forwardCa}: not a PEM certificate`, 'give the app\'s certificate (or its CA\'s) in PEM form');
  }
  const base = ctx.env.OFFRAMP_RETRY_BASE_MS;
  return {
    url: url.toString(),
    ...(ca ? { ca } : {}),
    ...(opts.forwardInsecure ? { insecure: true } : {}),
    ...(base && /^\d+$/.test(base) ? { retryBaseMs: Math.max(1, Number(base)) } : {}),
    maxAnswerBytes: maxResponseBytes(ctx.env),
  };
}

/**
 * Event lines are written once per turn of the event loop, not once per delivery: under
 * a burst that is one write for many lines (stdout to a file or /dev/null is a
 * synchronous write each time).
 */
function lineBatcher(write: (text: string) => void) {
  let pending: string[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    write(text);
  };
  const push = (line: string): void => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
  return { push, flush };
}
