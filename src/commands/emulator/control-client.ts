// The control subcommands' way to the emulator: its origin, taken from --base-url,
// OFFRAMP_BASE_URL or the current profile (the control plane sits beside the base path, at
// ORIGIN/__emulator/), and one request to it. No API key is needed or sent: the control
// plane answers loopback clients, or holders of the admin token (OFFRAMP_EMULATOR_ADMIN_TOKEN,
// or `offramp emulator --admin-token T …`).
import type { Context } from '../../lib/context.js';
import { ApiError, NetworkError, TimeoutError, UsageError } from '../../lib/errors.js';
import type { EmulatorFlags } from '../emulator.js';
import { ADMIN_TOKEN_ENV } from './admin-token.js';

/** What every control command reads of `offramp emulator`'s own flags (given anywhere on the line). */
export type ControlFlags = Pick<EmulatorFlags, 'adminToken'>;

export type ControlTarget = { origin: string; token: string | undefined };

/** Where `offramp emulator` listens by default, for a machine with no profile at all. */
const DEFAULT_ORIGIN = 'http://127.0.0.1:4010';

/** The emulator to talk to; refuses (exit 2, nothing sent) a profile that is not a local one. */
export async function controlTarget(ctx: Context, adminToken: string | undefined): Promise<ControlTarget> {
  const { globals, env } = ctx;
  let base = globals.baseUrl ?? (env.OFFRAMP_BASE_URL || undefined);
  if (base === undefined) {
    const { profileNameFor } = await import('../../lib/config/profile.js');
    const data = (await ctx.config()).read();
    const name = profileNameFor({ flags: { profile: globals.profile }, env }, data);
    const profile = name ? data.profiles[name] : undefined;
    if (name && !profile && (globals.profile || env.OFFRAMP_PROFILE)) throw new UsageError(`no profile named "${name}"`);
    if (profile && profile.env !== 'local') {
      throw new UsageError(
        `profile "${name}" is a ${profile.env} profile, not the emulator; nothing was sent`,
        'use a local profile (offramp profile add NAME --env local), or --base-url pointing at the emulator',
      );
    }
    base = profile?.baseUrl;
  }
  let origin = DEFAULT_ORIGIN;
  if (base !== undefined) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new UsageError(`base URL "${base}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`base URL "${base}" must be http:// or https://`);
    origin = url.origin;
  }
  const token = adminToken ?? (env[ADMIN_TOKEN_ENV] || undefined);
  ctx.io.addSecret(token);
  return { origin, token };
}

export type ControlAnswer = { status: number; text: string; data: unknown; message: string | undefined };

export type ControlCall = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below /__emulator, e.g. `/clock`. */
  path: string;
  json?: unknown;
  /** A body sent as it is (the state document). */
  raw?: string;
  contentType?: string;
  timeoutMs?: number;
};

/** One control request; an error answer becomes an ApiError, no answer a NetworkError or TimeoutError. */
export async function callControl(ctx: Context, target: ControlTarget, call: ControlCall): Promise<ControlAnswer> {
  const url = `${target.origin}/__emulator${call.path}`;
  const headers: Record<string, string> = { 'user-agent': `offramp-cli/${ctx.version}` };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  let body: string | undefined;
  if (call.raw !== undefined) {
    body = call.raw;
    headers['content-type'] = call.contentType ?? 'application/octet-stream';
  } else if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] = 'application/json';
  }
  const timeoutMs = call.timeoutMs ?? ctx.globals.timeout;
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(url, { method: call.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      throw new TimeoutError(`no answer from the emulator at ${target.origin} within ${timeoutMs} ms`);
    }
    const why = e.cause?.code ?? e.cause?.message ?? e.message;
    throw new NetworkError(`cannot reach the emulator at ${target.origin} (${why})`, 'is it running? start it with `offramp emulator`, or wait for it with `offramp emulator wait`');
  }
  const text = await res.text();
  if (ctx.globals.verbose) ctx.io.err(`${call.method} ${url} ${res.status} ${(performance.now() - started).toFixed(0)}ms`);
  let parsed: { data?: unknown; message?: string; error?: { code?: string; message?: string; timestamp?: string } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const error = new ApiError({
      status: res.status,
      code: parsed?.error?.code ?? `HTTP_${res.status}`,
      message: parsed?.error?.message ?? `the emulator answered HTTP ${res.status} on ${call.method} /__emulator${call.path}`,
      method: call.method,
      url,
      envelope: parsed,
      enveloped: parsed?.error !== undefined,
      ...(parsed?.error?.timestamp ? { timestamp: parsed.error.timestamp } : {}),
    });
    if (res.status === 401) error.withHint(`give the admin token the emulator was started with: ${ADMIN_TOKEN_ENV}=…`);
    else if (res.status === 403) error.withHint('from another machine, start the emulator with --admin-token and send it');
    else if (res.status === 404 && !parsed?.error) error.withHint(`${target.origin} does not look like an offramp emulator`);
    throw error;
  }
  return { status: res.status, text, data: parsed?.data, message: parsed?.message };
}
