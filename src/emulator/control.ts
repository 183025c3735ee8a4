// The control plane (docs/emulator.md, "Control plane"): `/__emulator/…` on the emulator's
// own origin, for test suites and CI jobs to drive the emulator itself. API keys play no part
// in who may use it: a partner's key must not be able to reset another partner or move
// everyone's clock. Answers use the partner API's wrapper and error envelope, so the CLI
// reads them with the same code.
import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from 'zod/mini';
import { VERSION } from '../version.js';
import { iso } from './clock.js';
import { parseDuration, MAX_DURATION_MS } from '../lib/input/duration.js';
import { STATE_BODY_LIMIT } from '../lib/emulator-defaults.js';
import type { ApiResult } from './envelope.js';
import { ApiProblem, badRequest, BODY_LIMIT_BYTES, conflict, notFound, ok } from './envelope.js';
import { parseBody, parseJsonObject, strictBody, validate } from './params.js';
import { ROUTES } from './routes.js';
import type { Runtime } from './runtime.js';
import { exportDocument, type StateJournal } from './journal.js';
import { decodeDocument, StateFormatError } from './state-codec.js';
import { isLoopbackHost } from '../lib/client/url.js';
import type { FaultInput } from './types.js';

export const CONTROL_PATH = '/__emulator';
export const STATE_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

export type ControlSettings = {
  adminToken: string | undefined;
  stateFile: StateJournal | undefined;
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
    // Compared as digests: of equal length, so timingSafeEqual says nothing of the token's length either.
    const digest = (secret: string) => createHash('sha256').update(secret).digest();
    if (!m || !timingSafeEqual(digest(m[1]!), digest(settings.adminToken))) {
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
        offramp_version: VERSION,
        url: settings.url,
        mode: rt.config.mode,
        now: iso(rt.clock.now()),
        clock_offset_ms: rt.clockOffsetMs,
        uptime_ms: Date.now() - settings.startedAt,
        partners: rt.partners.served.length,
        fault_rules: rt.faultRules.list().length,
        state_file: settings.stateFile?.status() ?? null,
      });
    case 'POST /clock': {
      const body = parseBody(ClockBody, req.body.toString('utf8'));
      if ((body.advance === undefined) === (body.advance_ms === undefined)) throw badRequest('send {"advance": "31m"} (a duration) or {"advance_ms": 1860000}');
      const ms = body.advance_ms ?? parseDuration(body.advance!);
      if (typeof ms === 'string') throw badRequest(ms);
      return ok(rt.advance(ms));
    }
    case 'POST /reset': {
      const text = req.body.toString('utf8');
      const body = validate(ResetBody, text.trim() === '' ? {} : parseJsonObject(text));
      if (body.partner === undefined) {
        rt.reset();
        return ok({ reset: 'all' }, 200, 'Everything reset');
      }
      // The key is never echoed: it is a credential.
      if (!rt.reset(body.partner)) throw notFound('no partner with that API key (the emulator serves the keys it was started with)');
      return ok({ reset: 'partner' }, 200, 'Partner reset');
    }
    case 'GET /faults':
      return ok(rt.faultRules.list());
    case 'POST /faults': {
      const { drop_after_commit: dropAfterCommit, latency_ms: latencyMs, event_type: eventType, ...rest } = parseBody(FaultBody, req.body.toString('utf8'));
      const input = { ...rest, dropAfterCommit, latencyMs, eventType } as FaultInput;
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
      return ok(rt.webhooks.endpoint());
    case 'PUT /webhooks':
      return ok(setWebhookEndpoint(rt, parseBody(WebhooksBody, req.body.toString('utf8'))), 200, 'Webhook endpoint set');
    case 'DELETE /webhooks':
      return ok(setWebhookEndpoint(rt, { url: null }), 200, 'Webhook endpoint cleared');
    case 'GET /state':
      return { status: 200, json: exportDocument(rt), headers: { 'content-type': STATE_CONTENT_TYPE } };
    case 'GET /openapi.json':
      // The document is the same for every emulator: built on the first ask, its code loaded only then.
      openapiJson ??= import('../lib/openapi/document.js').then(({ openapiDocument }) => JSON.stringify(openapiDocument()));
      return openapiJson.then((json) => ({ status: 200, json, headers: { 'content-type': 'application/json; charset=utf-8' } }));
    case 'PUT /state':
      try {
        rt.install(decodeDocument(req.body));
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

/** The body limit of a control request, known before its body is read. */
export function bodyLimitFor(method: string, path: string): number {
  return method === 'PUT' && path.replace(/\/+$/, '') === '/state' ? STATE_BODY_LIMIT : BODY_LIMIT_BYTES;
}

/** An http(s) URL, normalised: `expect_url` is compared with the URL as stored. */
const HttpUrl = z.pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL (or null for none)' }), z.transform((url) => new URL(url).toString()));

const WebhooksBody = strictBody({
  url: z.nullable(HttpUrl),
  secret: z.optional(z.string().check(z.regex(/^\S+$/, 'must be a non-empty string without spaces'))),
  expect_url: z.optional(z.nullable(HttpUrl)),
  /** The listener's process id, its command, and the URL it found. */
  registered_by: z.nullish(strictBody({ pid: z.int().check(z.positive()), command: z.string().check(z.minLength(1), z.maxLength(64)), previous_url: z.nullable(HttpUrl) })),
});

/**
 * `expect_url` sets the URL only if it is still that one (409 otherwise): a listener putting
 * back the URL it found never overwrites one set after it.
 */
function setWebhookEndpoint(rt: Runtime, body: z.infer<typeof WebhooksBody>): ReturnType<Runtime['webhooks']['endpoint']> & { previous_url: string | null } {
  const previous = rt.webhooks.endpoint().url;
  if (body.expect_url !== undefined && body.expect_url !== (previous === null ? null : new URL(previous).toString())) {
    throw conflict('the webhook URL is no longer the one expected (set since by someone else); left as it is');
  }
  rt.webhooks.setEndpoint(body.url ?? undefined, body.secret, body.registered_by ?? undefined);
  return { ...rt.webhooks.endpoint(), previous_url: previous };
}

const WHOLE_MS = { error: 'must be a whole number of milliseconds, at most a year' };
const ClockBody = strictBody({ advance: z.optional(z.string()), advance_ms: z.optional(z.int(WHOLE_MS).check(z.minimum(0, WHOLE_MS), z.maximum(MAX_DURATION_MS, WHOLE_MS))) });

const ResetBody = strictBody({ partner: z.optional(z.string().check(z.minLength(1))) });

/** A fault rule's wire fields (snake_case); the rule itself is checked by faultProblem, which the CLI shares. */
const FaultBody = strictBody({
  route: z.optional(z.string()),
  next: z.optional(z.number()),
  status: z.optional(z.number()),
  drop_after_commit: z.optional(z.boolean()),
  latency_ms: z.optional(z.number()),
  webhook: z.optional(z.literal(true, { error: 'must be true (or absent for a route fault)' })),
  event_type: z.optional(z.string()),
});
