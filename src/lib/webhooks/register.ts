// What `webhooks listen` does about where the service delivers (docs/webhooks.md, "Listening
// to the emulator"). When it stops it puts back the URL (and secret) it found, unless someone
// set another since. Against staging or production nothing can be set from here.
import type { Context } from '../context.js';
import { ApiError, CliError, NetworkError, SchemaError, TimeoutError } from '../errors.js';
import { isLoopback } from '../config/profile.js';
import { controlTarget, type ControlTarget } from '../emulator/control-client.js';
import { readEndpoint, shownUrl, writeEndpoint, type WebhookEndpoint } from '../emulator/webhook-endpoint.js';

/** A missing emulator is found out at once (refused); this bounds one that hangs. */
const PROBE_TIMEOUT_MS = 5000;

/** Where the listener's deliveries come from, found before it starts. */
export type Source =
  | { kind: 'emulator'; target: ControlTarget; found: WebhookEndpoint }
  /** A profile of a real service: only the partner can point its deliveries here. */
  | { kind: 'service'; env: string }
  /** No emulator answered (or --no-register): the listener just listens. */
  | { kind: 'none'; why?: string };

export async function findSource(ctx: Context, register: boolean): Promise<Source> {
  if (!register) return { kind: 'none' };
  if (ctx.globals.baseUrl === undefined && !ctx.env.OFFRAMP_BASE_URL) {
    const { profile } = await ctx.profile();
    if (profile && profile.env !== 'local') return { kind: 'service', env: profile.env };
  }
  const target = await controlTarget(ctx, undefined);
  // The listener binds 127.0.0.1: an emulator on another machine could not deliver to it.
  if (!isLoopback(new URL(target.origin))) return { kind: 'none', why: `the emulator at ${target.origin} is on another machine and cannot reach 127.0.0.1` };
  try {
    return { kind: 'emulator', target, found: await readEndpoint(ctx, target, Math.min(ctx.globals.timeout, PROBE_TIMEOUT_MS)) };
  } catch (err) {
    if (err instanceof NetworkError || err instanceof TimeoutError) return { kind: 'none', why: `no emulator answered at ${target.origin}` };
    if (err instanceof ApiError) return { kind: 'none', why: `${target.origin} did not take the registration (${err.code}: ${err.message})` };
    if (err instanceof SchemaError) return { kind: 'none', why: `${target.origin} does not look like an offramp emulator` };
    throw err;
  }
}

/** Points the emulator at `url`; with `secret`, signs with it too. Answers how to undo it. */
export async function register(ctx: Context, source: Extract<Source, { kind: 'emulator' }>, url: string, secret: string | undefined): Promise<() => Promise<string>> {
  const { target, found } = source;
  await writeEndpoint(ctx, target, { url, expectUrl: found.url, ...(secret !== undefined ? { secret } : {}) });
  return async () => {
    try {
      await writeEndpoint(ctx, target, { url: found.url, expectUrl: url, ...(secret !== undefined ? { secret: found.secret } : {}) });
      return found.url ? `The emulator delivers to ${shownUrl(found.url)} again, as before.` : 'The emulator records webhooks only again, as before.';
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) return 'The emulator’s webhook URL was changed by someone else meanwhile: left as it is.';
      if (err instanceof CliError) return `warning: could not put back the emulator’s webhook URL (${err.message}); set it with \`offramp emulator webhooks set-url URL\` or \`clear\`.`;
      throw err;
    }
  };
}
