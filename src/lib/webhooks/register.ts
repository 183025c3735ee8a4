// What `webhooks listen` and `smoke` do about where the service delivers (docs/webhooks.md,
// "Listening to the emulator"). When one stops it puts back the URL (and secret) it found,
// unless someone set another since, or that URL was a stale registration. Against staging or
// production nothing can be set from here. And which webhook secret listen, resend and verify
// use ("Which secret") and the scheme they accept or sign with.
import type { Context } from '../context.js';
import { ApiError, CliError, NetworkError, SchemaError, TimeoutError, UsageError } from '../errors.js';
import { displayUrl, isLoopbackHost } from '../client/url.js';
import { isAlive } from '../fs/stale.js';
import { controlTarget, type ControlTarget } from '../emulator/control-client.js';
import { readEndpoint, writeEndpoint, type WebhookEndpoint } from '../emulator/webhook-endpoint.js';
import { EMULATOR_DEFAULT_WEBHOOK_SECRET, type Registration } from '../emulator-defaults.js';
import { connect } from 'node:net';
import { profileInUse } from '../config/in-use.js';
import { schemeSetting, type SchemeName } from './signature.js';

/** A missing emulator is found out at once (refused); this bounds one that hangs. */
const PROBE_TIMEOUT_MS = 5000;

/** Where the listener's deliveries come from, found before it starts. */
export type Source =
  | { kind: 'emulator'; target: ControlTarget; found: WebhookEndpoint }
  /** A profile of a real service: only the partner can point its deliveries here. */
  | { kind: 'service'; env: string }
  /** No emulator answered (or --no-register): the listener just listens. */
  | { kind: 'none'; why?: string };

/** `anyHost`: an emulator on another machine is asked too (smoke's --receive-at gives a URL it can reach). */
export async function findSource(ctx: Context, register: boolean, anyHost = false): Promise<Source> {
  if (!register) return { kind: 'none' };
  if (ctx.globals.baseUrl === undefined && !ctx.env.OFFRAMP_BASE_URL) {
    const { profile } = await profileInUse(ctx);
    if (profile && profile.env !== 'local') return { kind: 'service', env: profile.env };
  }
  const target = await controlTarget(ctx, undefined);
  // The listener binds 127.0.0.1: an emulator on another machine could not deliver to it.
  if (!anyHost && !isLoopbackHost(new URL(target.origin).hostname)) return { kind: 'none', why: `the emulator at ${target.origin} is on another machine and cannot reach 127.0.0.1` };
  try {
    return { kind: 'emulator', target, found: await readEndpoint(ctx, target, Math.min(ctx.globals.timeout, PROBE_TIMEOUT_MS)) };
  } catch (err) {
    if (err instanceof NetworkError || err instanceof TimeoutError) return { kind: 'none', why: `no emulator answered at ${target.origin}` };
    if (err instanceof ApiError) return { kind: 'none', why: `${target.origin} did not take the registration (${err.code}: ${err.message})` };
    if (err instanceof SchemaError) return { kind: 'none', why: `${target.origin} does not look like an offramp emulator` };
    throw err;
  }
}

/**
 * Every webhook secret at hand, the one to use first (docs/webhooks.md, "Which secret"): the
 * flag; else OFFRAMP_WEBHOOK_SECRET (what the user said beats what a port answers: on a
 * shared machine anybody can listen at 127.0.0.1:4010); else, when the service is an
 * emulator that answers, its own (what it signs with); else the profile's (for a local
 * profile with none, the emulator's public default). One rule for listen, resend and verify; each secret named by
 * where it came from, never by its value.
 */
export async function webhookSecrets(ctx: Context, flag: string | undefined, source?: Source): Promise<{ label: string; secret: string }[]> {
  const found = source ?? (await findSource(ctx, true));
  const all: { label: string; secret: string }[] = [];
  if (flag) all.push({ label: '--secret', secret: flag });
  if (ctx.env.OFFRAMP_WEBHOOK_SECRET) all.push({ label: 'OFFRAMP_WEBHOOK_SECRET', secret: ctx.env.OFFRAMP_WEBHOOK_SECRET });
  if (found.kind === 'emulator') all.push({ label: `the emulator at ${found.target.origin}`, secret: found.found.secret });
  const { name, profile } = await profileInUse(ctx);
  if (profile?.webhookSecret) all.push({ label: `profile ${name}`, secret: profile.webhookSecret });
  else if (profile?.env === 'local' && found.kind !== 'emulator') all.push({ label: "the emulator's public default", secret: EMULATOR_DEFAULT_WEBHOOK_SECRET });
  for (const s of all) ctx.io.addSecret(s.secret);
  return all.filter((s, i) => all.findIndex((t) => t.secret === s.secret) === i);
}

/** The scheme `--scheme` names, else the profile's pin (docs/webhooks.md, "Webhook signatures"); undefined for any. */
export async function webhookScheme(ctx: Context, flag: string | undefined): Promise<SchemeName | undefined> {
  if (flag !== undefined) return schemeSetting(flag, '--scheme');
  return schemeSetting((await profileInUse(ctx)).profile?.service?.signatureScheme, "the profile's signature scheme");
}

/** How to give a webhook secret, when there is none at hand. */
export const NO_SECRET_HINT = 'pass --secret, set OFFRAMP_WEBHOOK_SECRET, or save one in the profile (--webhook-secret-stdin)';

/** The secret to use first (webhookSecrets); none is refused, saying what it was `for`. */
export async function webhookSecret(ctx: Context, flag: string | undefined, purpose: string, source?: Source): Promise<string> {
  // One the user gave comes first: then nothing needs asking of whatever listens at the emulator's port.
  const given = flag || ctx.env.OFFRAMP_WEBHOOK_SECRET;
  if (given) {
    ctx.io.addSecret(given);
    return given;
  }
  const secret = (await webhookSecrets(ctx, flag, source))[0]?.secret;
  if (secret === undefined) throw new UsageError(`no webhook secret ${purpose}`, NO_SECRET_HINT);
  return secret;
}

/** What a registration puts back when it ends: the URL (null: record only), who had set it, and why not the URL found. */
export type Restore = { url: string | null; registeredBy: Registration | null; stale?: string };

/**
 * The URL to put back: the one found, unless it is a stale registration (a listener killed
 * before it could put its own back: its process is gone, or nothing answers at a loopback
 * URL), in which case what that listener found, else record only. A URL a person set (no
 * listener's mark) is theirs, answering or not; an older emulator, which marks nothing, is
 * judged by whether anything answers.
 */
export async function restorable(found: WebhookEndpoint): Promise<Restore> {
  const by = found.registered_by ?? null;
  if (found.url === null) return { url: null, registeredBy: null };
  const judged = by !== null || found.registered_by === undefined;
  const stale = by && !isAlive(by.pid) ? `\`${by.command}\` (pid ${by.pid}) set it and no longer runs` : judged && !(await answers(found.url)) ? 'nothing answers there' : undefined;
  return stale ? { url: by?.previous_url ?? null, registeredBy: null, stale } : { url: found.url, registeredBy: by };
}

/** Whether a loopback URL's port takes a connection; any other URL is taken to answer (nothing is sent off the machine to find out). */
function answers(raw: string): Promise<boolean> {
  const url = new URL(raw);
  if (!isLoopbackHost(url.hostname)) return Promise.resolve(true);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((done) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port, timeout: PROBE_TIMEOUT_MS });
    const end = (ok: boolean) => () => (socket.destroy(), done(ok));
    socket.once('connect', end(true)).once('timeout', end(true)).once('error', end(false));
  });
}

/**
 * Points the emulator at `url`, marked as this process's (`command`); with `secret`, signs
 * with it too. Answers what it will put back and how.
 */
export async function register(
  ctx: Context,
  source: Extract<Source, { kind: 'emulator' }>,
  url: string,
  secret: string | undefined,
  command: string,
  judged?: Restore,
): Promise<{ restore: Restore; undo: () => Promise<string> }> {
  const { target, found } = source;
  // A caller that judged the URL found already passes its verdict: one probe, one answer.
  const restore = judged ?? (await restorable(found));
  // An emulator that answers no `registered_by` (an older image) would refuse the field.
  const marks = found.registered_by !== undefined;
  const registeredBy = marks ? { pid: process.pid, command, previous_url: restore.url } : null;
  await writeEndpoint(ctx, target, { url, expectUrl: found.url, registeredBy, ...(secret !== undefined ? { secret } : {}) });
  const undo = async () => {
    try {
      await writeEndpoint(ctx, target, { url: restore.url, expectUrl: url, registeredBy: marks ? restore.registeredBy : null, ...(secret !== undefined ? { secret: found.secret } : {}) });
      const before = restore.stale ? 'as before the listener that stopped without putting it back' : 'as before';
      return restore.url ? `The emulator delivers to ${displayUrl(restore.url, { query: false })} again, ${before}.` : `The emulator records webhooks only again, ${before}.`;
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) return 'The emulator’s webhook URL was changed by someone else meanwhile: left as it is.';
      if (err instanceof CliError) return `warning: could not put back the emulator’s webhook URL (${err.message}); set it with \`offramp emulator webhooks set-url URL\` or \`clear\`.`;
      throw err;
    }
  };
  return { restore, undo };
}
