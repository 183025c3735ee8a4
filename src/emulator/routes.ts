// The endpoints of the spec as data: method, path under the base path, and a handler
// that turns a validated request into an answer. HTTP concerns (auth, rate limit, faults,
// latency, logging, writing the answer) live in server.ts. Success statuses the spec does not
// show are in docs/emulator.md ("Wire").
import { CreateTransactionRequest, QuoteRequest, SimulateRequest } from '../lib/schemas.js';
import type { ApiResult } from './envelope.js';
import { ApiProblem, errorResult, ok } from './envelope.js';
import { entryId, IDEMPOTENCY_HEADER, requireIdempotencyKey, type RequestIdentity } from './idempotency.js';
import type { Query } from './params.js';
import { parseBody, parseJsonObject, requireUuid, validate } from './params.js';
import { createQuote } from './quotes.js';
import type { Runtime } from './runtime.js';
import { refuseInProduction, simulate } from './simulator.js';
import type { PartnerState } from './partners.js';
import {
  cancelTransaction,
  createTransaction,
  findByReference,
  findTransaction,
  listTransactions,
  refuseServiceFields,
  snapshot,
  statusHistory,
} from './transactions.js';
import { iso } from './clock.js';

export type ApiRequest = {
  partner: PartnerState;
  param(name: string): string;
  query: Query;
  header(name: string): string | undefined;
  rawBody: string;
};

export type Route = {
  method: 'GET' | 'POST';
  /** Relative to BASE_PATH, in the router's `:param` syntax. */
  path: string;
  handle(rt: Runtime, req: ApiRequest): ApiResult;
};

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/quotes',
    handle: (rt, req) => ok(createQuote(rt, req.partner, parseBody(QuoteRequest, req.rawBody)), 201),
  },
  {
    method: 'POST',
    path: '/transactions',
    handle(rt, req) {
      const key = requireIdempotencyKey(req.header(IDEMPOTENCY_HEADER));
      const json = parseJsonObject(req.rawBody);
      refuseServiceFields(json);
      const body = validate(CreateTransactionRequest, json);
      return idempotent(rt, req.partner, 'POST /transactions', key, { text: req.rawBody, structural: true }, () =>
        ok(createTransaction(rt, req.partner, body), 201),
      );
    },
  },
  {
    method: 'GET',
    path: '/transactions',
    handle: (_rt, req) => ok(listTransactions(req.partner, req.query)),
  },
  {
    method: 'GET',
    path: '/transactions/reference/:merchant_reference',
    handle: (_rt, req) => ok(snapshot(findByReference(req.partner, req.param('merchant_reference')))),
  },
  {
    method: 'GET',
    path: '/transactions/:id',
    handle: (_rt, req) => ok(snapshot(findTransaction(req.partner, req.param('id')))),
  },
  {
    method: 'POST',
    path: '/transactions/:id/cancel',
    handle(rt, req) {
      const key = requireIdempotencyKey(req.header(IDEMPOTENCY_HEADER));
      const id = requireUuid('id', req.param('id'));
      // No body: the intent is "cancel this transaction", so the transaction identifies it.
      return idempotent(rt, req.partner, 'POST /transactions/{id}/cancel', key, { text: `cancel ${id}`, structural: false }, () =>
        ok(cancelTransaction(rt, req.partner, findTransaction(req.partner, id)), 200, 'Transaction cancelled'),
      );
    },
  },
  {
    method: 'GET',
    path: '/transactions/:id/status-history',
    handle: (_rt, req) => ok(statusHistory(findTransaction(req.partner, req.param('id')))),
  },
  {
    method: 'GET',
    path: '/revenue',
    handle: (_rt, req) => ok(req.partner.ledger.page(req.query)),
  },
  {
    method: 'GET',
    path: '/webhooks/events',
    handle: (rt, req) => ok(rt.webhooks.list(req.partner, req.query)),
  },
  {
    method: 'GET',
    path: '/webhooks/events/:event_id',
    handle: (rt, req) => ok(rt.webhooks.get(req.partner, req.param('event_id'))),
  },
  {
    method: 'POST',
    path: '/webhooks/events/:event_id/replay',
    handle: (rt, req) => ok(rt.webhooks.replay(req.partner, req.param('event_id')), 200, 'Webhook replay scheduled'),
  },
  {
    method: 'POST',
    path: '/sandbox/simulate',
    handle(rt, req) {
      refuseInProduction(rt);
      return ok(simulate(rt, req.partner, parseBody(SimulateRequest, req.rawBody)));
    },
  },
];

/**
 * Runs `execute` once per (partner, route, key): the first answer, success or business
 * error, is stored and replayed for the same request (see idempotency.ts).
 */
function idempotent(
  rt: Runtime,
  partner: PartnerState,
  route: string,
  key: string,
  request: RequestIdentity,
  execute: () => ApiResult,
): ApiResult {
  const now = rt.clock.now();
  const replayed = partner.idempotency.lookup(route, key, request, now);
  if (replayed) return replayed;
  let result: ApiResult;
  try {
    result = execute();
  } catch (err) {
    if (!(err instanceof ApiProblem)) throw err;
    result = errorResult(err, iso(now));
  }
  const stored = partner.idempotency.store(route, key, request, result, now, createdBy(route, result));
  rt.journal.changed('idem', partner, entryId(route, key));
  return stored;
}

/** A successful create's answer is its transaction's summary: which one, and in what status. */
function createdBy(route: string, result: ApiResult): { tx: string; status: string } | undefined {
  if (route !== 'POST /transactions' || result.status !== 201 || result.headers) return undefined;
  const data = (result.body as { data?: { id?: unknown; status?: unknown } } | undefined)?.data;
  return typeof data?.id === 'string' && typeof data.status === 'string' ? { tx: data.id, status: data.status } : undefined;
}
