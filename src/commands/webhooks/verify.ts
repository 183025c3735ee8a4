// offramp webhooks verify: offline check of one delivery's signature against the raw body
// (docs/webhooks.md, "Verifying one delivery"). The body is read byte for byte; a secret is
// never printed.
import { readFile } from 'node:fs/promises';
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { CheckFailed, CliError, EXIT, UsageError } from '../../lib/errors.js';
import { toleranceSeconds } from '../../lib/input/values.js';
import { writeJson } from '../../lib/output/json.js';
import { DEFAULT_TOLERANCE_SEC, detect, SCHEMES, verify, WEBHOOK_HEADERS, type VerifyOptions } from '../../lib/webhooks/signature.js';
import { readStdin } from '../../lib/input/stdin.js';
import { DEFAULT_STORE, eventsToRead, parseEventText, storedEventId, type StoredEvent } from '../../lib/webhooks/store.js';
import { NO_SECRET_HINT, webhookScheme, webhookSecret, webhookSecrets } from '../../lib/webhooks/register.js';
import { examples, type OptionsOf } from '../command.js';

export const command = () =>
  new Command('verify')
    .description('check the signature of one delivery offline (body on stdin by default)')
    .option('--secret <secret>', "webhook secret (default: as listen verifies: the emulator's own, else OFFRAMP_WEBHOOK_SECRET / profile)")
    .option('--signature <sig>', `the ${WEBHOOK_HEADERS.signature} header value`)
    .option('--file <body>', 'read the raw body from this file')
    .option('--scheme <name>', "accept only this signature scheme (default: the profile's, else any of the catalogue)")
    .option('--tolerance <duration>', 'largest clock difference accepted for timestamped signatures: 30s, 5m (a bare number is seconds)', '5m')
    .option('--detect', 'print every scheme (and which secret) the delivery verifies under')
    .option('--from-store [file]', `take body and signature from a \`webhooks listen\` store (the last event, or --event; bare: ${DEFAULT_STORE})`)
    .option('--event <id>', 'with --from-store: the event to check (its id or first 8+ characters)')
    .addHelpText('after', examples('offramp webhooks verify --signature 3f9a… --file body.json', 'cat body.json | offramp webhooks verify --signature 3f9a…'));

export type Options = OptionsOf<typeof command>;

/** What is checked: the body, the header value, and the clock a timestamp is judged by. */
type Signed = { body: Buffer; signature: string; now: Date; stored?: StoredEvent };

export async function run(opts: Options, ctx: Context): Promise<number> {
  resolveFormat(ctx.globals, formatsOf('webhooks verify'));
  const toleranceSec = opts.tolerance === undefined ? DEFAULT_TOLERANCE_SEC : toleranceSeconds(opts.tolerance);
  // --detect searches: only an explicit --scheme narrows it, not the profile's pin.
  const scheme = opts.detect && opts.scheme === undefined ? undefined : await webhookScheme(ctx, opts.scheme);
  if (opts.event !== undefined && opts.fromStore === undefined) throw new UsageError('--event goes with --from-store', 'give the store: --from-store FILE --event ID');

  const delivery = opts.fromStore !== undefined ? await fromStore(opts, ctx) : await fromFlags(opts, ctx);
  const check = { ...(scheme ? { scheme } : {}), toleranceSec, now: delivery.now };
  return opts.detect ? runDetect(delivery, check, opts, ctx) : runVerify(delivery, check, opts, ctx);
}

async function runVerify(d: Signed, options: VerifyOptions, opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const secret = await webhookSecret(ctx, opts.secret, 'to verify with');
  const result = verify(d.body, secret, d.signature, options);
  const event = describeBody(d.body);
  if (result.ok) {
    if (ctx.globals.json) writeJson(io, { valid: true, scheme: result.scheme, bytes: d.body.length, ...event });
    else io.print(`valid: the signature matches the ${d.body.length}-byte body under ${result.scheme}${event.id ? ` (event ${event.id}, ${event.type})` : ''}`);
    return 0;
  }
  const where = d.stored ? ` (stored event ${d.stored.id})` : '';
  const hints: Partial<Record<typeof result.kind, string>> = {
    'outside-tolerance': `a timestamp guards against replays; --tolerance SECONDS widens the window${d.stored ? '' : ' (or check this machine’s clock)'}`,
    'other-scheme': `--scheme ${result.scheme} (or --scheme any) accepts it`,
    malformed: `the header value as received; the catalogue: ${SCHEMES.join(', ')}`,
  };
  const hint = hints[result.kind];
  if (hint !== undefined) throw new CheckFailed(`invalid: ${result.reason}${where}`, hint);
  // A trailing newline added by `echo` or an editor is the usual reason a copy fails.
  let end = d.body.length;
  while (end > 0 && (d.body[end - 1] === 0x0a || d.body[end - 1] === 0x0d)) end--;
  const trimmed = d.body.subarray(0, end);
  throw new CheckFailed(
    `invalid: the signature does not match the ${d.body.length}-byte body${where}`,
    trimmed.length !== d.body.length && verify(trimmed, secret, d.signature, options).ok
      ? 'it matches the body without its trailing newline: the body was changed after delivery (echo adds one; use printf or --file with the exact bytes)'
      : 'check the secret, and that the body is the exact bytes delivered (no reformatting, no added newline)',
  );
}

async function runDetect(d: Signed, options: VerifyOptions & { toleranceSec: number }, opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const secrets = await webhookSecrets(ctx, opts.secret);
  if (secrets.length === 0) {
    throw new UsageError('no webhook secret to try', NO_SECRET_HINT);
  }
  const matches = detect(d.body, d.signature, secrets, options);
  const event = describeBody(d.body);
  if (ctx.globals.json) {
    writeJson(io, { matches: matches.map((m) => ({ scheme: m.scheme, secret: m.secretLabel })), bytes: d.body.length, ...event });
  } else {
    for (const m of matches) io.print(`${m.scheme}  secret from ${m.secretLabel}`);
  }
  if (matches.length > 0) return 0;
  const tried = `${secrets.length} secret${secrets.length === 1 ? '' : 's'} (${secrets.map((s) => s.label).join(', ')})`;
  // The one near miss worth naming: right signature, timestamp outside the window.
  const stale = detect(d.body, d.signature, secrets, { ...options, toleranceSec: Infinity });
  const hint = stale.length
    ? `${stale[0]!.scheme} with the secret from ${stale[0]!.secretLabel} matches but its timestamp is outside the ${options.toleranceSec} s tolerance (--tolerance widens it)`
    : 'check the secrets, and that the body is the exact bytes delivered (no reformatting, no added newline)';
  throw new CheckFailed(`no scheme${options.scheme ? ` (of ${options.scheme})` : ' of the catalogue'} verifies the ${d.body.length}-byte body with any of ${tried}`, hint);
}

/** --signature and --file (or stdin), as before the store existed. */
async function fromFlags(opts: Options, ctx: Context): Promise<Signed> {
  const { io } = ctx;
  let signature = opts.signature?.trim();
  // Asked for only when the body comes from a file: stdin is the body's.
  if (!signature && io.canPrompt() && opts.file !== undefined) {
    const { input } = await ctx.prompts();
    signature = (await input({ message: `${WEBHOOK_HEADERS.signature} value:` }, { output: io.stderr })).trim();
  }
  if (!signature) throw new UsageError('--signature is required', `give the ${WEBHOOK_HEADERS.signature} header value with --signature`);
  let body: Buffer;
  if (opts.file !== undefined) {
    try {
      body = await readFile(opts.file);
    } catch (err) {
      throw new UsageError(`--file ${opts.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  } else {
    if (io.stdinIsTTY) throw new UsageError('no body: pipe the raw body on stdin or give it with --file');
    body = await readStdin(io.stdin);
  }
  return { body, signature, now: ctx.now() };
}

/**
 * The last event of a `webhooks listen` store, or the one with --event. A timestamped
 * signature is judged against the time the listener received it: that is when it was
 * checked, and a stored delivery is older than any tolerance.
 */
async function fromStore(opts: Options, ctx: Context): Promise<Signed> {
  if (opts.signature !== undefined || opts.file !== undefined) {
    throw new UsageError('--from-store takes the body and signature from the store', 'drop --signature and --file, or drop --from-store');
  }
  const { path: file, label, events: stored } = await eventsToRead(opts.fromStore, '--from-store', ctx.env);
  const id = opts.event === undefined ? stored.at(-1)?.id : await storedEventId(stored, opts.event, file);
  const found = stored.findLast((e) => e.id === id);
  // An event not in the store is not found (exit 4), as an 8-hex prefix that matches nothing is (storedEventId).
  if (!found && opts.event !== undefined) throw new CliError(`${label}: no event ${opts.event} in it`, 'NOT_FOUND', EXIT.notFound, 'the store holds one event a line; --event takes its "id" or its first 8+ characters');
  if (!found) throw new UsageError(`${label}: it holds no events`, 'a store written by `offramp webhooks listen --store FILE`');
  const received = new Date(found.receivedAt);
  const now = Number.isNaN(received.getTime()) ? ctx.now() : received;
  return { body: found.body, signature: found.signature, now, stored: found };
}

/** The event the body is, read as the listener reads one: its id and type. */
function describeBody(body: Buffer): { id?: string; type?: string } {
  const event = parseEventText(body.toString('utf8'));
  return event ? { id: event.id, ...(event.type !== undefined ? { type: event.type } : {}) } : {};
}
