// The spec's open points ("not shown") as the OpenAPI document carries them: an
// `x-offramp-open` object beside the part it concerns, so a reader can tell what the spec
// fixes from what it leaves to the service. `point` names the row of docs/api.md's "Open
// points" table (test/openapi checks every row is here).
import { DELIVERY_STATUSES } from '../vocabulary.js';

export type OpenPoint = { point: string; emulator: string; service: string; cli: string };

/**
 * The emulator's choices as values, where `offramp conform` compares a service with them
 * (its EMULATOR column); OPEN below says the same in words. test/conform runs conform
 * against the emulator, which must find every one of them the same.
 */
export const EMULATOR = {
  /** Success status: createdStatus for creating a quote or a transaction, okStatus for the rest. */
  createdStatus: 201,
  okStatus: 200,
  list: { shape: 'page-object', location: 'data' },
  pageSize: { transactions: 20, webhooks: 20, revenue: 50 },
  errorCodes: { '400': 'BAD_REQUEST', '401': 'UNAUTHORIZED', '404': 'NOT_FOUND', '409': 'CONFLICT' },
  requestIdHeader: 'x-request-id',
  /** The open values (a null deposit_status as "null", as conform reports it). */
  values: {
    deposit_status: ['null', 'detected', 'confirmed', 'refunded'],
    delivery_status: DELIVERY_STATUSES,
    publish_status: ['pending'],
  },
  signatureScheme: 'hmac-sha256-hex',
} as const;

export const OPEN = {
  successStatus: {
    point: 'success status',
    emulator: `${EMULATOR.createdStatus} for creating a quote or a transaction, ${EMULATOR.okStatus} for everything else`,
    service: '200, 201 or 202 on any call but the simulator (whose 200 the spec shows)',
    cli: 'accepts any 2xx',
  },
  listShape: {
    point: 'list shape',
    emulator: 'a page object in data: { data: [...], has_more, limit, next_cursor }',
    service: 'the items in data with the cursor beside them, or under meta / pagination, camelCase',
    cli: 'looks for the cursor in all of these (docs/api.md, "Lists")',
  },
  cursor: {
    point: 'cursor characters',
    emulator: 'base64url, never built by the caller',
    service: 'any text, + / = included',
    cli: 'sends the cursor back percent-encoded, whatever it holds',
  },
  pageSize: {
    point: 'default page size',
    emulator: `${EMULATOR.pageSize.transactions} (revenue ${EMULATOR.pageSize.revenue})`,
    service: 'any size',
    cli: 'always sends a limit (20 for one page, 100 to walk a list)',
  },
  filterNames: {
    point: 'list filter names',
    emulator: "the record's field names: transactions status, from, to; webhook events transaction_id, event_type, delivery_status, from, to; revenue crypto_currency, network",
    service: 'other names; an unknown name is ignored',
    cli: "sends the profile's names (offramp conform --save), and re-applies every filter to the records that come back",
  },
  openValues: {
    point: 'deposit_status, delivery_status, publish_status values',
    emulator: 'deposit_status detected, confirmed, refunded (null before a deposit); delivery_status pending, delivered, failed; publish_status pending',
    service: 'any words',
    cli: "shows them verbatim; the word --failed and reconcile look for is a profile setting",
  },
  errorCodes: {
    point: 'error codes on 401, 403, 429, 500',
    emulator: 'UNAUTHORIZED, FORBIDDEN, RATE_LIMITED, INTERNAL_ERROR (503 SERVICE_UNAVAILABLE from injected faults)',
    service: 'any code, or no envelope at all (a gateway\'s HTML 502)',
    cli: "exit code from the HTTP status; shows the service's code, else one derived from the status",
  },
  retryAfter: {
    point: 'Retry-After',
    emulator: 'whole seconds, at least 1',
    service: 'an HTTP-date',
    cli: 'reads both, waits at most 60 s',
  },
  requestId: {
    point: 'request id header',
    emulator: `${EMULATOR.requestIdHeader} on every answer`,
    service: 'request-id, x-correlation-id, or none',
    cli: 'reads the common names',
  },
  timeFormat: {
    point: 'time format',
    emulator: 'UTC with milliseconds: 2026-01-31T12:00:00.000Z',
    service: '+00:00, no fraction',
    cli: 'parses any RFC 3339 date-time with a zone',
  },
  extraFields: {
    point: 'extra fields',
    emulator: 'none',
    service: 'any',
    cli: 'keeps them verbatim in --json (every object here allows more properties)',
  },
  signature: {
    point: 'webhook signature',
    emulator: 'lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret',
    service: 'base64, SHA-512, a sha256= prefix, t=<unix>,v1=<hex> over "<t>.<body>"',
    cli: 'webhooks listen and verify accept any scheme of the catalogue (docs/webhooks.md, "Webhook signatures") and say which matched; --scheme or the profile pins one',
  },
  idempotencyKey: {
    point: 'idempotency key bounds',
    emulator: '1-255 visible ASCII characters, kept 24 hours; same key and body replays the first answer (Idempotent-Replayed: true), same key and another body is 409',
    service: 'other bounds and retention',
    cli: 'sends a fresh UUID unless given one, and the same key on every retry',
  },
  idForm: {
    point: 'id form ("string, uuid")',
    emulator: 'random (version 4) UUIDs, lower case',
    service: 'any version or variant, either case',
    cli: 'takes any 8-4-4-4-12 hexadecimal id',
  },
  simulatedTiming: {
    point: 'when a simulated event applies',
    emulator: 'before the simulator answers',
    service: 'later ("the same machinery as normal processing")',
    cli: 'simulate walk reads until the status shows, up to --timeout',
  },
  ledgerNulls: {
    point: 'ledger row merchant_id, terminal_id when none was given',
    emulator: '"" (the spec types them as strings)',
    service: 'null',
    cli: 'reads both; a null is an empty CSV field',
  },
  // Points of the spec that docs/api.md's table does not list (nothing in the CLI hangs on them).
  createErrors: {
    point: 'error responses of transaction creation',
    emulator: '400 BAD_REQUEST for an invalid body, an unknown or expired quote, both or neither pricing mode; 409 CONFLICT for a merchant_reference already used or an Idempotency-Key reused with another body',
    service: 'other statuses and codes',
    cli: 'exit code from the HTTP status; a create without an answer is recovered by reading the reference',
  },
  cancellable: {
    point: 'states that allow cancellation',
    emulator: 'pending and awaiting_deposit',
    service: 'others (completed is always refused)',
    cli: 'shows the 409 CONFLICT message, exit 5',
  },
  webhookData: {
    point: 'fields inside a webhook event\'s data',
    emulator: 'the transaction snapshot at that moment',
    service: 'any object',
    cli: 'stores and forwards the body byte for byte; reads id and type only',
  },
  quoteWithoutAmount: {
    point: 'a quote with neither amount',
    emulator: '400 BAD_REQUEST',
    service: 'anything',
    cli: 'refuses it before sending (exit 2)',
  },
} as const satisfies Record<string, OpenPoint>;

export function openExtension(...points: OpenPoint[]): { 'x-offramp-open': OpenPoint | OpenPoint[] } {
  return { 'x-offramp-open': points.length === 1 ? points[0]! : points };
}
