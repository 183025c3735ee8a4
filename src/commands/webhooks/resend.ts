// offramp webhooks resend: delivers events a `webhooks listen` store holds to the partner's
// own app as the service would, and, on request, duplicated, out of order and late, so a
// partner proves offline that their consumer follows the spec's delivery rules (Events: at
// least once, duplicates possible, ordering not guaranteed). A refused certificate ends it at
// once (CERTIFICATE, exit 7): the next deliveries would meet the same one. docs/webhooks.md,
// "Resending stored events", describes the requests and the exit codes.
import { randomInt } from 'node:crypto';
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { CheckFailed, CliError, EXIT, NetworkError, UsageError } from '../../lib/errors.js';
import { parseIntFlag } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson, writeNdjsonLine } from '../../lib/output/json.js';
import { chalkFor } from '../../lib/output/render.js';
import { paint, terminalSafe, type Text } from '../../lib/output/sanitize.js';
import { DEFAULT_SCHEME, SCHEMES, SIGNATURE_HEADER, sign, WEBHOOK_HEADERS } from '../../lib/webhooks/signature.js';
import { eventTypeFilter } from '../../lib/webhooks/filters.js';
import { relay, type Relayed } from '../../lib/webhooks/forwarder.js';
import { webhookUrl } from '../../lib/webhooks/url.js';
import { maxResponseBytes, Transport } from '../../lib/client/transport.js';
import { displayUrl } from '../../lib/client/url.js';
import { DEFAULT_STORE, eventsToRead, storedEventId, type StoredEvent } from '../../lib/webhooks/store.js';
import { webhookScheme, webhookSecret } from '../../lib/webhooks/register.js';
import { examples, type OptionsOf } from '../command.js';
import { parseDurationRange } from '../../lib/input/duration.js';

export const command = () =>
  new Command('resend')
    .description("re-sign stored events and deliver them to your app, duplicated, shuffled and late on request")
    .option('--from-store <file>', `a \`webhooks listen\` store: the events to send (default: listen's, ${DEFAULT_STORE})`)
    .option('--event <id>', 'only this stored event, by id or its first 8+ characters (repeatable)', (id: string, ids: string[] = []) => [...ids, id])
    .option('--to <url>', "your app's webhook endpoint")
    .option('--secret <secret>', "sign with this secret (default: as listen verifies: the emulator's own, else OFFRAMP_WEBHOOK_SECRET / profile)")
    .option('--scheme <name>', "sign under this scheme of the catalogue (default: the profile's, else hmac-sha256-hex)")
    .option('--events <types>', 'only these event types, comma-separated (family.* allowed)')
    .option('--duplicate <n>', 'send each event n more times (same id, same body)', '0')
    .option('--shuffle', 'send in random order (copies included)')
    .option('--delay <min-maxms>', 'wait a random time in this range before each delivery, like 100-2000ms')
    .addHelpText(
      'after',
      examples(
        'offramp webhooks resend --to http://127.0.0.1:3000/webhooks',
        'offramp webhooks resend --to http://127.0.0.1:3000/webhooks --event 5d0e7a2b-… --event 91aa03c4-…',
        'offramp webhooks resend --from-store webhooks.ndjson --to http://127.0.0.1:3000/webhooks --duplicate 2 --shuffle --delay 50-500ms',
      ),
    );

export type Options = OptionsOf<typeof command>;

/** --duplicate ceiling: enough to prove idempotency, not enough to flood an app by a typo. */
const MAX_DUPLICATES = 100;
/** --delay ceiling per delivery: ten minutes. */
const MAX_DELAY_MS = 600_000;

/** One delivery's line of -o json and ndjson: the event, which copy of it, and the app's answer. */
function resendResult({ event, copy, copies }: { event: StoredEvent; copy: number; copies: number }, r: Relayed) {
  return { id: event.id, type: event.type ?? null, copy, copies, status: r.status ?? null, ok: r.ok, ms: r.ms, ...(r.detail ? { detail: r.detail } : {}) };
}
type ResendResult = ReturnType<typeof resendResult>;

export async function run(opts: Options, ctx: Context): Promise<number> {
  const { io } = ctx;
  const format = resolveFormat(ctx.globals, formatsOf('webhooks resend'));
  const wanted = opts.event !== undefined ? new Set(opts.event.map((id) => id.trim())) : undefined;
  if (wanted?.has('')) throw new UsageError('--event: give an event id');
  if (opts.to === undefined) throw new UsageError('--to is required', "give your app's webhook endpoint, like http://127.0.0.1:3000/webhooks");
  const to = webhookUrl(opts.to, '--to').toString();
  const extra = parseIntFlag(opts.duplicate ?? 0, '--duplicate', 0, MAX_DUPLICATES);
  const delay = opts.delay !== undefined ? parseDelay(opts.delay) : undefined;
  const events = opts.events !== undefined ? eventTypeFilter(opts.events) : undefined;
  const pinned = await webhookScheme(ctx, opts.scheme);
  if (!pinned && opts.scheme !== undefined) throw new UsageError('--scheme any: resend signs, so it needs one scheme', `one of: ${SCHEMES.join(', ')}`);
  const scheme = pinned ?? DEFAULT_SCHEME;
  // As `listen` verified them: against an emulator, with its own secret.
  const secret = await webhookSecret(ctx, opts.secret, 'to sign with');

  const { path: store, label: flag, events: stored } = await eventsToRead(opts.fromStore, '--from-store', ctx.env);
  let chosen = events ? stored.filter((e) => events.matches(e.type)) : stored;
  if (wanted) {
    // Nothing is sent unless every event asked for is there.
    const found = new Set<string>();
    const missing: string[] = [];
    for (const given of wanted) {
      const id = await storedEventId(chosen, given, store);
      if (id === undefined) missing.push(given);
      else found.add(id);
    }
    chosen = chosen.filter((e) => found.has(e.id));
    if (missing.length > 0) {
      // Not found (exit 4), as an 8-hex prefix that matches nothing is (storedEventId).
      throw new CliError(
        `${flag}: no event ${missing.join(', ')} in it${events ? ` of ${events.patterns.join(', ')}` : ''}; nothing was sent`,
        'NOT_FOUND',
        EXIT.notFound,
        'the store holds one event a line; --event takes its "id" or its first 8+ characters',
      );
    }
  }
  if (chosen.length === 0) {
    throw new UsageError(`${flag}: no events${events ? ` of ${events.patterns.join(', ')}` : ''} in it`, 'a store written by `offramp webhooks listen --store FILE`');
  }

  const plan = chosen.flatMap((event) => Array.from({ length: extra + 1 }, (_, i) => ({ event, copy: i + 1, copies: extra + 1 })));
  if (opts.shuffle) shuffle(plan);
  io.err(
    `Resending ${plan.length} deliver${plan.length === 1 ? 'y' : 'ies'} of ${chosen.length} event${chosen.length === 1 ? '' : 's'} to ${to} under ${scheme}` +
      `${opts.shuffle ? ', shuffled' : ''}${delay ? `, each after ${delay.min}-${delay.max} ms` : ''}`,
  );

  const c = chalkFor(io, 'out');
  // Each delivery within --timeout as a whole, and its answer read up to the cap (docs/configuration.md, "Timeouts and limits").
  const transport = new Transport({ timeoutMs: ctx.globals.timeout, maxBytes: maxResponseBytes(ctx.env), connections: 1, keepAliveTimeout: 4000 });
  const results: ResendResult[] = [];
  try {
    for (const d of plan) {
      if (delay) await ctx.sleep(delay.min === delay.max ? delay.min : randomInt(delay.min, delay.max + 1));
      // As the service delivers: the stored body, a fresh signature, the event id.
      const headers = {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: sign(d.event.body, secret, scheme, ctx.now()),
        [WEBHOOK_HEADERS.id]: d.event.id,
        'user-agent': `offramp-cli/${ctx.version}`,
      };
      // Within the delivery's --timeout, a look at a refused certificate included.
      const r = await relay(transport, to, { body: d.event.body, headers }, ctx.globals.timeout, { what: `POST ${displayUrl(to)}`, urlFrom: '--to' });
      if (r.refused) {
        r.refused.message += `; not retried: ${plan.length - results.length} of ${plan.length} deliveries not sent`;
        throw r.refused;
      }
      const result = resendResult(d, r);
      results.push(result);
      if (format === 'ndjson') writeNdjsonLine(io, result);
      else if (format === 'table') io.print(resultLine(result, c));
    }
  } finally {
    await transport.close();
  }
  if (format === 'json') writeJson(io, results);

  const ok = results.filter((r) => r.ok).length;
  const refused = results.filter((r) => !r.ok && r.status !== null).length;
  const unanswered = results.filter((r) => r.status === null).length;
  io.err(`Sent ${results.length}: ${ok} answered 2xx, ${refused} non-2xx, ${unanswered} no answer.`);
  if (refused > 0) {
    throw new CheckFailed(
      `the app answered non-2xx to ${refused} of ${results.length} deliveries`,
      'a consumer should take every validly signed delivery, duplicates and late ones included (the spec, Events); see the answers above',
    );
  }
  if (unanswered > 0) throw new NetworkError(`no answer from ${to} to ${unanswered} of ${results.length} deliveries`, 'is the app running and listening on that address?');
  return 0;
}

/** One line per delivery; the store's and the app's text is made terminal-safe when printed, only the colour is ours. */
function resultLine(r: ResendResult, c: ReturnType<typeof chalkFor>): Text[] {
  const status = r.status === null ? paint('no answer', c.red) : paint(r.status, r.ok ? c.green : c.red);
  const copy = r.copies > 1 ? `  copy ${r.copy}/${r.copies}` : '';
  const detail = !r.ok && r.detail ? ['  ', paint(r.detail, c.dim)] : [];
  return [status, `  ${terminalSafe(r.type ?? '?').padEnd(21)}  ${r.id}${copy}  ${r.ms} ms`, ...detail];
}

/** `MIN-MAXms` (or `Nms`, or plain numbers, in milliseconds). */
function parseDelay(value: string): { min: number; max: number } {
  const range = parseDurationRange(value, 'ms');
  if (typeof range === 'string') throw new UsageError(`--delay: ${range}`, 'write it like 100-2000ms, 1-3s (or 500ms for a fixed delay)');
  if (range.max > MAX_DELAY_MS) throw new UsageError(`--delay: at most ${MAX_DELAY_MS} ms per delivery`);
  return range;
}

/** Fisher–Yates with crypto randomness: every order equally likely. */
function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
