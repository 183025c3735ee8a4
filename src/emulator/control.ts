// The control plane (docs/emulator.md, "Control plane"): `/__emulator/…` on the emulator's
// own origin, for test suites and CI jobs to drive the emulator itself. API keys play no part
// in who may use it: a partner's key must not be able to reset another partner or move
// everyone's clock. Answers use the partner API's wrapper and error envelope, so the CLI
// reads them with the same code.
import { createHash, timingSafeEqual } from 'node:crypto';
import { iso } from './clock.js';
import { parseDuration, MAX_DURATION_MS } from '../lib/input/duration.js';
import { STATE_BODY_LIMIT } from '../lib/emulator-defaults.js';
import type { ApiResult } from './envelope.js';
import { ApiProblem, badRequest, BODY_LIMIT_BYTES, conflict, notFound, ok } from './envelope.js';
import { parseJsonObject } from './params.js';
import { ROUTES } from './routes.js';
import type { Runtime } from './runtime.js';
import { exportDocument, type StateJournal } from './journal.js';
import { decodeDocument, StateFormatError } from './state-codec.js';
import { isLoopbackHost } from '../lib/client/url.js';
import type { FaultInput } from './types.js';
import type { Registration } from '../lib/emulator-defaults.js';

export const CONTROL_PATH = '/__emulator';
export const STATE_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

export type ControlSettings = {
  adminToken: string | undefined;
  stateFile: StateJournal | undefined;
  version: string;
  startedAt: number;
  /** Filled once the server listens. */
  url: string;
};

export type ControlRequest = {
  method: string;
  /** Below CONTROL_PATH, e.g. `/clock`. */
  path: string;
  authorization: string | undefined;
  remoteAddress: string | undefined;
  /** As sent: the JSON routes decode it, PUT /state checks the document's bytes. */
  body: Buffer;
};

/** Whether this request may use the control plane; throws the answer when it may not. */
export function authorize(settings: ControlSettings, req: Pick<ControlRequest, 'authorization' | 'remoteAddress'>): void {
  if (settings.adminToken !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
    if (!m || !sameSecret(m[1]!, settings.adminToken)) {
      throw new ApiProblem('UNAUTHORIZED', 'the control plane needs Authorization: Bearer <admin token> (the emulator was started with --admin-token)');
    }
    return;
  }
  if (!isLoopbackHost(req.remoteAddress)) {
    throw new ApiProblem('FORBIDDEN', 'the control plane answers loopback clients only (start the emulator with --admin-token to allow others)');
  }
}

/** The routes that change the state: refused while it cannot be journaled, answered once it is. */
const STATE_ROUTES = ['POST /clock', 'POST /reset', 'PUT /state'];

export async function controlRequest(rt: Runtime, settings: ControlSettings, req: ControlRequest): Promise<ApiResult> {
  const route = `${req.method} ${req.path.replace(/\/+$/, '') || '/'}`;
  if (!STATE_ROUTES.includes(route)) return answer(rt, settings, req, route);
  rt.journal.admit();
  const result = await answer(rt, settings, req, route);
  await rt.journal.committed();
  return result;
}

function answer(rt: Runtime, settings: ControlSettings, req: ControlRequest, route: string): ApiResult | Promise<ApiResult> {
  switch (route) {
    case 'GET /health':
      return ok({
        status: 'ok',
        offramp_version: settings.version,
        url: settings.url,
        mode: rt.config.mode,
        now: iso(rt.clock.now()),
        clock_offset_ms: rt.clockOffsetMs,
        uptime_ms: Date.now() - settings.startedAt,
        partners: rt.store.partners.length,
        fault_rules: rt.faultRules.list().length,
        state_file: settings.stateFile?.status() ?? null,
      });
    case 'POST /clock':
      return ok(rt.advance(advanceOf(parseJsonObject(req.body.toString('utf8')))));
    case 'POST /reset': {
      const text = req.body.toString('utf8');
      const body = text.trim() === '' ? {} : parseJsonObject(text);
      onlyKeys(body, ['partner']);
      if (body.partner === undefined) {
        rt.reset();
        return ok({ reset: 'all' }, 200, 'Everything reset');
      }
      if (typeof body.partner !== 'string' || body.partner === '') throw badRequest('partner must be an API key the emulator serves');
      // The key is never echoed: it is a credential.
      if (!rt.reset(body.partner)) throw notFound('no partner with that API key (the emulator serves the keys it was started with)');
      return ok({ reset: 'partner' }, 200, 'Partner reset');
    }
    case 'GET /faults':
      return ok(rt.faultRules.list());
    case 'POST /faults': {
      const input = faultInputOf(parseJsonObject(req.body.toString('utf8')));
      try {
        return ok(rt.faultRules.add(input, ROUTES), 201);
      } catch (err) {
        if (err instanceof RangeError) throw badRequest(err.message);
        throw err;
      }
    }
    case 'DELETE /faults':
      return ok({ cleared: rt.faultRules.clear() }, 200, 'Fault rules cleared');
    case 'GET /webhooks':
      return ok(webhookEndpoint(rt));
    case 'PUT /webhooks':
      return ok(setWebhookEndpoint(rt, parseJsonObject(req.body.toString('utf8'))), 200, 'Webhook endpoint set');
    case 'DELETE /webhooks':
      return ok(setWebhookEndpoint(rt, { url: null }), 200, 'Webhook endpoint cleared');
    case 'GET /state':
      return { status: 200, json: exportDocument(rt), headers: { 'content-type': STATE_CONTENT_TYPE } };
    case 'GET /openapi.json':
      return openapiAnswer();
    case 'PUT /state':
      try {
        rt.install(decodeDocument(req.body, 'the state'));
      } catch (err) {
        if (err instanceof StateFormatError) throw badRequest(err.message);
        throw err;
      }
      return ok(rt.summary(), 200, 'State imported');
    default:
      throw notFound(`No control route for ${req.method} ${CONTROL_PATH}${req.path}`);
  }
}

let openapiJson: Promise<string> | undefined;

/** The document is the same for every emulator: built on the first ask, its code loaded only then. */
async function openapiAnswer(): Promise<ApiResult> {
  openapiJson ??= import('../lib/openapi/document.js').then(({ openapiDocument }) => JSON.stringify(openapiDocument()));
  return { status: 200, json: await openapiJson, headers: { 'content-type': 'application/json; charset=utf-8' } };
}

/** The body limit of a control request, known before its body is read. */
export function bodyLimitFor(method: string, path: string): number {
  return method === 'PUT' && path.replace(/\/+$/, '') === '/state' ? STATE_BODY_LIMIT : BODY_LIMIT_BYTES;
}

/**
 * Where deliveries go and how they are signed. The secret is part of the answer: a holder of
 * the control plane may replace the whole state, and `webhooks listen` verifies with it.
 */
function webhookEndpoint(rt: Runtime): { url: string | null; secret: string; signature_scheme: string; registered_by: Registration | null } {
  const { url, secret, scheme, registeredBy } = rt.webhooks.endpoint();
  return { url: url ?? null, secret, signature_scheme: scheme, registered_by: registeredBy ?? null };
}

/**
 * `expect_url` sets the URL only if it is still that one (409 otherwise): a listener putting
 * back the URL it found never overwrites one set after it.
 */
function setWebhookEndpoint(rt: Runtime, body: Record<string, unknown>): ReturnType<typeof webhookEndpoint> & { previous_url: string | null } {
  onlyKeys(body, ['url', 'secret', 'expect_url', 'registered_by']);
  const registeredBy = body.registered_by === undefined || body.registered_by === null ? undefined : registrationOf(body.registered_by);
  const url = body.url === null ? undefined : webhookUrlOf(body.url, 'url');
  if (body.secret !== undefined && (typeof body.secret !== 'string' || body.secret === '' || /\s/.test(body.secret))) {
    throw badRequest('secret must be a non-empty string without spaces');
  }
  const previous = rt.webhooks.endpoint().url ?? null;
  if (body.expect_url !== undefined) {
    const expected = body.expect_url === null ? null : webhookUrlOf(body.expect_url, 'expect_url');
    const now = previous === null ? null : new URL(previous).toString();
    if (expected !== now) throw conflict('the webhook URL is no longer the one expected (set since by someone else); left as it is');
  }
  rt.webhooks.setEndpoint(url, body.secret as string | undefined, registeredBy);
  return { ...webhookEndpoint(rt), previous_url: previous };
}

/** `registered_by`: the listener's process id, its command, and the URL it found. */
function registrationOf(value: unknown): Registration {
  const r = value as Partial<Registration> | null;
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw badRequest('registered_by must be an object: { pid, command, previous_url }');
  onlyKeys(r as Record<string, unknown>, ['pid', 'command', 'previous_url']);
  if (!Number.isSafeInteger(r.pid) || r.pid! <= 0) throw badRequest('registered_by.pid must be a positive whole number');
  if (typeof r.command !== 'string' || r.command === '' || r.command.length > 64) throw badRequest('registered_by.command must be a string of 1 to 64 characters');
  const previous = r.previous_url === null ? null : webhookUrlOf(r.previous_url, 'registered_by.previous_url');
  return { pid: r.pid!, command: r.command, previous_url: previous };
}

function webhookUrlOf(value: unknown, field: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw badRequest(`${field} must be an http:// or https:// URL (or null for none)`);
  return url.toString();
}

function advanceOf(body: Record<string, unknown>): number {
  onlyKeys(body, ['advance', 'advance_ms']);
  let ms: number | string;
  if (typeof body.advance === 'string' && body.advance_ms === undefined) ms = parseDuration(body.advance);
  else if (typeof body.advance_ms === 'number' && body.advance === undefined) {
    ms = Number.isInteger(body.advance_ms) && body.advance_ms >= 0 && body.advance_ms <= MAX_DURATION_MS ? body.advance_ms : 'advance_ms must be a whole number of milliseconds, at most a year';
  } else {
    ms = 'send {"advance": "31m"} (a duration) or {"advance_ms": 1860000}';
  }
  if (typeof ms === 'string') throw badRequest(ms);
  return ms;
}

/** A fault rule's wire fields (snake_case) and their names in FaultInput. */
const FAULT_FIELDS = { route: 'route', next: 'next', status: 'status', drop_after_commit: 'dropAfterCommit', latency_ms: 'latencyMs', webhook: 'webhook', event_type: 'eventType' };

/** The wire's snake_case rule as the code's FaultInput; refuses unknown fields (a typo would silently do nothing). */
function faultInputOf(body: Record<string, unknown>): FaultInput {
  onlyKeys(body, Object.keys(FAULT_FIELDS));
  const input: Record<string, unknown> = {};
  for (const [wire, name] of Object.entries(FAULT_FIELDS)) if (body[wire] !== undefined) input[name] = body[wire];
  if (input.webhook !== undefined && input.webhook !== true) throw badRequest('webhook must be true (or absent for a route fault)');
  return input as FaultInput;
}

function onlyKeys(body: Record<string, unknown>, allowed: string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw badRequest(`unknown field ${unknown[0]!.slice(0, 40)}; this route takes ${allowed.join(', ')}`);
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
