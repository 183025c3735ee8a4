// The control subcommands' way to the emulator: its origin (the control plane sits beside the
// base path, at ORIGIN/__emulator/), and one request to it through the context's client, under
// the run's deadline, retries and cap like any other. No API key is sent: the control plane
// answers loopback clients, or holders of the admin token.
import { CertificateRefused } from '../client/errors.js';
import type { HttpClient } from '../client/http.js';
import type { Context } from '../context.js';
import { ApiError, NetworkError, TimeoutError, UsageError } from '../errors.js';
import { ADMIN_TOKEN_ENV } from '../config/secret-variables.js';
import { httpUrl, refusePlainHttp } from '../client/url.js';
import { EMULATOR_DEFAULT_ORIGIN } from '../emulator-defaults.js';

/** What every control command reads of `offramp emulator`'s own flags (given anywhere on the line). */
export type ControlFlags = { adminToken?: string | undefined };

export type ControlTarget = {
  origin: string;
  /** The base URL the origin was taken from (--base-url, OFFRAMP_BASE_URL, the profile's), when it has a path; none for the default. */
  baseUrl?: string;
  token: string | undefined;
  /** Attempts after the first, instead of --retries (0 for a caller that polls). */
  retries?: number;
  /** The context's client for the control plane, made by the first call. */
  http?: HttpClient;
};

/** The emulator to talk to; refuses (exit 2, nothing sent) a profile that is not a local one. */
export async function controlTarget(ctx: Context, adminToken: string | undefined): Promise<ControlTarget> {
  const { globals, env } = ctx;
  let base = globals.baseUrl ?? (env.OFFRAMP_BASE_URL || undefined);
  if (base === undefined) {
    const { profileInUse } = await import('../config/in-use.js');
    const { name, profile } = await profileInUse(ctx);
    if (profile && profile.env !== 'local') {
      throw new UsageError(
        `profile "${name}" is a ${profile.env} profile, not the emulator; nothing was sent`,
        'use a local profile (offramp profile add NAME --env local), or --base-url pointing at the emulator',
      );
    }
    base = profile?.baseUrl;
  }
  const token = adminToken ?? (env[ADMIN_TOKEN_ENV] || undefined);
  // Where `offramp emulator` listens by default, for a machine with no profile at all.
  let origin = EMULATOR_DEFAULT_ORIGIN;
  let baseUrl: string | undefined;
  if (base !== undefined) {
    const url = httpUrl(base, 'base URL', EMULATOR_DEFAULT_ORIGIN);
    // The token is a secret like the API key: the same rule for plain http.
    if (token) refusePlainHttp(url, env, 'admin token');
    origin = url.origin;
    if (url.pathname !== '/') baseUrl = base;
  }
  ctx.io.addSecret(token);
  return { origin, token, ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

/** The control plane's client: the run's deadline, retries and cap, no API key, direct. */
function controlClient(ctx: Context, target: ControlTarget, maxBytes?: number): Promise<HttpClient> {
  const { origin, token, retries } = target;
  return ctx.httpClient({
    baseUrl: `${origin}/__emulator`,
    direct: true,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(maxBytes !== undefined ? { maxResponseBytes: maxBytes } : {}),
  });
}

export type ControlAnswer = { status: number; text: string; data: unknown; message: string | undefined };

export type ControlCall = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below /__emulator, e.g. `/clock`. */
  path: string;
  json?: unknown;
  /** A state document, sent as it is. */
  raw?: string;
  timeoutMs?: number;
  /** The largest answer read, when it may be larger than the run's cap (the state document). */
  maxBytes?: number;
};

/**
 * One control request, through the context's client: an error answer becomes an ApiError,
 * no answer a NetworkError or TimeoutError, each with the emulator's hint. `timeoutMs`
 * bounds the whole call, retries included (a poll's one try).
 */
export async function callControl(ctx: Context, target: ControlTarget, call: ControlCall): Promise<ControlAnswer> {
  target.http ??= await controlClient(ctx, target);
  let http = call.maxBytes !== undefined ? await controlClient(ctx, target, call.maxBytes) : target.http;
  if (call.timeoutMs !== undefined) {
    const end = performance.now() + call.timeoutMs;
    http = http.withBudget(() => end - performance.now());
  }
  try {
    const answer = await http.send({
      method: call.method,
      path: call.path,
      ...(call.raw !== undefined ? { raw: { text: call.raw, contentType: 'application/x-ndjson' } } : {}),
      ...(call.raw === undefined && call.json !== undefined ? { body: call.json } : {}),
      textAnswer: true,
    });
    const parsed = answer.body as { data?: unknown; message?: string } | undefined;
    return { status: answer.status, text: answer.text, data: parsed?.data, message: parsed?.message };
  } catch (err) {
    // A refused certificate keeps its own hint: the emulator is there, its certificate is not trusted.
    if ((err instanceof NetworkError && !(err instanceof CertificateRefused)) || err instanceof TimeoutError) {
      throw err.withHint('is the emulator running there? start it with `offramp emulator`, or wait for it with `offramp emulator wait`');
    }
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 401) err.withHint(`give the admin token the emulator was started with: ${ADMIN_TOKEN_ENV}=…`);
    // Two refusals: a name or port it does not answer (its message names --allow-host), or a peer off loopback.
    else if (err.status === 403 && err.message.includes('--allow-host')) err.withHint(`start the emulator with --allow-host ${new URL(target.origin).hostname}, the name this run used`);
    else if (err.status === 403) err.withHint('from another machine, start the emulator with --admin-token and send it');
    else if (err.status === 404 && !err.enveloped) err.withHint(`${target.origin} does not look like an offramp emulator`);
    throw err;
  }
}
