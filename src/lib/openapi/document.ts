// The OpenAPI 3.1 document of the partner API as this project reads it (docs/api.md,
// "OpenAPI"), built from the emulator's route table (src/emulator/routes.ts) and the shared
// zod schemas. Built from data in a fixed order, so the same code gives the same document
// byte for byte: docs/openapi.yaml is this document, and a test fails when it is stale.
import { BASE_PATH, EVENT_TYPES, type EventType } from '../vocabulary.js';
import { EMULATOR_DEFAULT_PORT } from '../emulator-defaults.js';
import { WEBHOOK_HEADERS } from '../webhooks/signature.js';
import { CODE_OF_STATUS } from '../errors.js';
import { EMULATOR, OPEN, openExtension } from './open-points.js';
import { componentSchemas, schemaRef, type JsonSchema } from './schemas.js';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};
type Operation = Record<string, unknown> & { responses: Record<string, unknown> };

/** The version of the interface description this document reads (the spec, Versioning). */
export const API_VERSION = '1.0.0';

/** The statuses of the error answers the document names, each a component named for its code (BAD_REQUEST: BadRequest). */
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429 | 500;
const errorName = (status: ErrorStatus) => CODE_OF_STATUS[status].toLowerCase().replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase());

type OperationSpec = {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters?: unknown[];
  /** A component schema name. */
  body?: string;
  idempotent?: boolean;
  /** The success answer's component schema. */
  answer: string;
  answerDescription: string;
  /** The status the spec shows; otherwise `2XX`, the status being open. */
  status?: '200';
  /** Error answers the spec names for this call, besides 401, 429 and 500 (every call's). */
  errors?: ErrorStatus[];
  extra?: JsonSchema;
};

const pathParam = (name: string, description: string, uuid: boolean) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: uuid ? { type: 'string', format: 'uuid' } : { type: 'string', minLength: 1 },
});
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const TX_ID = pathParam('id', 'The transaction id.', true);
const EVENT_ID = pathParam('event_id', 'The webhook event id.', true);

/**
 * Each route of the emulator's table, by `METHOD path`: kept equal to the table by a test,
 * as src/lib points down only and cannot import it.
 */
export const OPERATIONS: Record<string, OperationSpec> = {
  'POST /quotes': {
    operationId: 'createQuote',
    summary: 'Quote a token amount or an NGN amount',
    description:
      'Prices exactly one of crypto_amount (token units) and fiat_amount (NGN); both is 400 BAD_REQUEST with a message saying to give one or the other. The quote is valid 120 seconds: after its expires_at the quote_id is rejected at transaction creation.',
    tag: 'Quotes',
    body: 'QuoteRequest',
    answer: 'QuoteResponse',
    answerDescription: 'The quote.',
    errors: [400],
  },
  'POST /transactions': {
    operationId: 'createTransaction',
    summary: 'Create a transaction and get its deposit address',
    description:
      'Quote mode (quote_id) or direct mode (fiat_amount, crypto_currency, network; the latest market rate at creation is used and crypto_amount derived), never both. merchant_reference is unique per partner, compared case-insensitively: after a create that got no answer, read GET /transactions/reference/{merchant_reference} instead of creating again. The deposit deadline (expires_at) is 30 minutes after creation. Sandbox (staging) takes usdt on bep20 only. The answer is the create subset, status awaiting_deposit.',
    tag: 'Transactions',
    body: 'CreateTransactionRequest',
    idempotent: true,
    answer: 'CreateTransactionResponse',
    answerDescription: 'The created transaction (the create subset), status awaiting_deposit.',
    // The spec shows no errors here: these are the emulator's (the open point says which).
    errors: [400, 409],
    extra: openExtension(OPEN.createErrors),
  },
  'GET /transactions': {
    operationId: 'listTransactions',
    summary: "List the partner's transactions",
    description: 'A cursor list: pass next_cursor back as cursor, unchanged, to get the next page. Its shape and its filters are not shown by the spec.',
    tag: 'Transactions',
    parameters: [ref('parameters', 'TransactionsLimit'), ref('parameters', 'Cursor')],
    answer: 'TransactionListResponse',
    answerDescription: 'One page of transactions.',
    errors: [400],
    extra: openExtension(OPEN.filterNames),
  },
  'GET /transactions/reference/:merchant_reference': {
    operationId: 'getTransactionByReference',
    summary: 'Read a transaction by merchant reference',
    description: 'The same snapshot as the read by id, looked up by the partner-scoped reference (compared case-insensitively). Recovers a create whose answer was lost. Unknown reference: 404 NOT_FOUND.',
    tag: 'Transactions',
    parameters: [pathParam('merchant_reference', "The partner's reference, as given at creation.", false)],
    answer: 'TransactionResponse',
    answerDescription: 'The transaction snapshot.',
    errors: [404],
  },
  'GET /transactions/:id': {
    operationId: 'getTransaction',
    summary: 'Read a transaction',
    description: "The transaction snapshot of the authenticated partner. Unknown id: 404 NOT_FOUND, with a message about a missing transaction.",
    tag: 'Transactions',
    parameters: [TX_ID],
    answer: 'TransactionResponse',
    answerDescription: 'The transaction snapshot.',
    errors: [400, 404],
  },
  'POST /transactions/:id/cancel': {
    operationId: 'cancelTransaction',
    summary: 'Cancel a transaction',
    description:
      'No body. Reusing the same Idempotency-Key retries the same cancellation intent. The answer is the create subset with status cancelled and a cancelled notice as message. When the current state does not allow cancellation (completed never does): 409 CONFLICT, the message naming the current status.',
    tag: 'Transactions',
    parameters: [TX_ID],
    idempotent: true,
    answer: 'CancelTransactionResponse',
    answerDescription: 'The cancelled transaction (the create subset), status cancelled; message is a cancelled notice.',
    errors: [400, 404, 409],
    extra: openExtension(OPEN.cancellable),
  },
  'GET /transactions/:id/status-history': {
    operationId: 'getTransactionStatusHistory',
    summary: "Read a transaction's status history",
    description: 'The current status and every change, each with a <scope>:<word> reason. Unknown id: 404 NOT_FOUND.',
    tag: 'Transactions',
    parameters: [TX_ID],
    answer: 'StatusHistoryResponse',
    answerDescription: 'The status history.',
    errors: [400, 404],
  },
  'GET /revenue': {
    operationId: 'listRevenue',
    summary: 'Read the revenue ledger',
    description:
      'The ledger rows of a window: from and to are inclusive and at most 90 days apart; a longer window is 400 BAD_REQUEST saying the time window cannot exceed 90 days. With include_summary=true every page carries the summary of the whole window. The spec names a token and a network filter without naming their parameters.',
    tag: 'Revenue',
    parameters: [
      { name: 'from', in: 'query', required: true, description: 'Start of the window, inclusive (RFC 3339).', schema: { type: 'string', format: 'date-time' } },
      { name: 'to', in: 'query', required: true, description: 'End of the window, inclusive (RFC 3339); at most 90 days after from.', schema: { type: 'string', format: 'date-time' } },
      { name: 'include_summary', in: 'query', required: false, description: 'When true, the page carries summary.', schema: { type: 'boolean' } },
      ref('parameters', 'Cursor'),
      ref('parameters', 'RevenueLimit'),
    ],
    answer: 'RevenueListResponse',
    answerDescription: 'One page of the ledger.',
    errors: [400],
    extra: openExtension(OPEN.filterNames),
  },
  'GET /webhooks/events': {
    operationId: 'listWebhookEvents',
    summary: "List the partner's webhook events",
    description: 'The webhook event history (delivery telemetry), to find events by transaction or time window. Its parameters and shape are not shown by the spec; the emulator takes limit and cursor as the other lists do.',
    tag: 'Webhooks',
    parameters: [ref('parameters', 'WebhookEventsLimit'), ref('parameters', 'Cursor')],
    answer: 'WebhookEventListResponse',
    answerDescription: 'One page of webhook events.',
    errors: [400],
    extra: openExtension(OPEN.filterNames),
  },
  'GET /webhooks/events/:event_id': {
    operationId: 'getWebhookEvent',
    summary: "Read a webhook event's delivery telemetry",
    description: 'Delivery state only; the payload is not returned. Unknown id: 404 NOT_FOUND, with a message about a missing webhook event.',
    tag: 'Webhooks',
    parameters: [EVENT_ID],
    answer: 'WebhookEventResponse',
    answerDescription: 'The delivery telemetry.',
    errors: [400, 404],
  },
  'POST /webhooks/events/:event_id/replay': {
    operationId: 'replayWebhookEvent',
    summary: 'Redeliver a webhook event',
    description: 'No body. Requeues the existing event for redelivery under the same event id (no new logical event); message is a replay-scheduled notice. Unknown id: 404 NOT_FOUND.',
    tag: 'Webhooks',
    parameters: [EVENT_ID],
    answer: 'ReplayResultResponse',
    answerDescription: 'The replay, scheduled; message is a replay-scheduled notice.',
    errors: [400, 404],
  },
  'POST /sandbox/simulate': {
    operationId: 'simulate',
    summary: 'Drive a lifecycle event (staging only)',
    description:
      "Staging only: the route is mounted outside production, which refuses it (403). Drives one of the seven simulator events for an existing transaction through the same deposit and lifecycle machinery as normal processing, and emits the partner webhook for it. 400 BAD_REQUEST when event is not one of the seven (the message lists them); 404 when transaction_id is not this partner's; 409 when the event is not a valid step from the transaction's current status.",
    tag: 'Sandbox',
    body: 'SimulateRequest',
    answer: 'TransactionResponse',
    answerDescription: 'The transaction snapshot after the event.',
    status: '200',
    errors: [400, 403, 404, 409],
    extra: openExtension(OPEN.simulatedTiming),
  },
};

export function openapiPath(routePath: string): string {
  return routePath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

const json = (schema: unknown) => ({ 'application/json': { schema } });

function operation(spec: OperationSpec): Operation {
  const parameters = [...(spec.idempotent ? [ref('parameters', 'IdempotencyKey')] : []), ...(spec.parameters ?? [])];
  const success = { description: spec.answerDescription, content: json(schemaRef(spec.answer)), ...(spec.status ? {} : openExtension(OPEN.successStatus)) };
  const errors = [...(spec.errors ?? []), 401, 429, 500].sort((a, b) => a - b) as ErrorStatus[];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body ? { requestBody: { required: true, content: json(schemaRef(spec.body)) } } : {}),
    responses: {
      [spec.status ?? '2XX']: success,
      ...Object.fromEntries(errors.map((status) => [String(status), ref('responses', errorName(status))])),
      default: ref('responses', 'Error'),
    },
    ...spec.extra,
  };
}

function paths(): OpenApiDocument['paths'] {
  const out: OpenApiDocument['paths'] = {};
  for (const [key, spec] of Object.entries(OPERATIONS)) {
    const [method, path] = key.split(' ') as [string, string];
    (out[openapiPath(path)] ??= {})[method.toLowerCase()] = operation(spec);
  }
  return out;
}

const errorBody = (code: string | undefined) =>
  json(code === undefined ? schemaRef('ErrorEnvelope') : { allOf: [schemaRef('ErrorEnvelope'), { properties: { error: { properties: { code: { const: code } } } } }] });

function responses(): Record<string, unknown> {
  // The spec shows no code for these: the envelope, and the open point.
  const openCode = (description: string, headers?: object) => ({ description, ...(headers ? { headers } : {}), content: errorBody(undefined), ...openExtension(OPEN.errorCodes) });
  return {
    BadRequest: { description: 'An invalid request (code BAD_REQUEST); the message says what to fix.', content: errorBody('BAD_REQUEST') },
    Unauthorized: openCode('The X-API-KEY header is missing or not a valid key.'),
    Forbidden: openCode('Not allowed here: simulation in production.'),
    NotFound: { description: 'No such record for this partner (code NOT_FOUND).', content: errorBody('NOT_FOUND') },
    Conflict: { description: 'Not allowed in the current state (code CONFLICT); the message names it.', content: errorBody('CONFLICT') },
    RateLimited: openCode('Rate limit exceeded (staging is relaxed, production enforced; the numbers are not shown).', { 'Retry-After': ref('headers', 'Retry-After') }),
    InternalError: openCode('An internal error.'),
    Error: {
      description: 'Any other error answer, in the error envelope (a gateway in front of the service may answer without one).',
      content: errorBody(undefined),
    },
  };
}

const limit = (fallback: number) => ({
  name: 'limit',
  in: 'query',
  required: false,
  description: `Page size, 1 to 100. The default is not shown by the spec (the emulator: ${fallback}).`,
  schema: { type: 'integer', minimum: 1, maximum: 100 },
  ...openExtension(OPEN.pageSize),
});

function parameters(): Record<string, unknown> {
  return {
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'Always sent, for safe retries: a retry with the same key and the same request is the same operation, never a second one.',
      schema: { type: 'string', minLength: 1 },
      ...openExtension(OPEN.idempotencyKey),
    },
    Cursor: {
      name: 'cursor',
      in: 'query',
      required: false,
      description: "Opaque: the previous page's next_cursor, unchanged (percent-encoded in the query). Never built by the caller.",
      schema: { type: 'string' },
      ...openExtension(OPEN.cursor),
    },
    TransactionsLimit: limit(EMULATOR.pageSize.transactions),
    WebhookEventsLimit: limit(EMULATOR.pageSize.webhooks),
    RevenueLimit: limit(EMULATOR.pageSize.revenue),
    WebhookSignature: {
      name: WEBHOOK_HEADERS.signature,
      in: 'header',
      required: true,
      description: 'The signature of the raw body, to verify before anything else (the brand part of the real header name is replaced by SVC). Its computation is not shown by the spec.',
      schema: { type: 'string', minLength: 1 },
      ...openExtension(OPEN.signature),
    },
  };
}

const WEBHOOK_NOTE: Record<EventType, string> = {
  'transaction.created': 'A transaction was created.',
  'deposit.detected': 'A deposit was detected.',
  'deposit.confirmed': 'The deposit was confirmed.',
  'transaction.completed': 'The transaction completed.',
  'transaction.failed': 'The transaction failed.',
  'transaction.expired': 'The transaction expired (no deposit before expires_at).',
  'transaction.refunded': 'The transaction was refunded.',
  'payout.settled': 'The payout settled.',
};

function webhook(type: EventType): Operation {
  return {
    operationId: `on_${type.replace('.', '_')}`,
    summary: `${type} delivery`,
    description: `${WEBHOOK_NOTE[type]} Sent to the partner's webhook endpoint, at least once and in no guaranteed order: verify the signature, deduplicate by id, store the raw event, apply the update idempotently (only a valid progression), answer quickly. A missed delivery is recovered with the event list, the telemetry read and the replay.`,
    tags: ['Webhooks'],
    security: [],
    parameters: [ref('parameters', 'WebhookSignature')],
    requestBody: {
      required: true,
      content: json({ allOf: [schemaRef('WebhookDelivery'), { properties: { type: { const: type } } }] }),
    },
    responses: {
      '2XX': { description: 'Accepted: any 2xx answer means the delivery is done.' },
      '4XX': { description: 'Refused (for example a signature that does not verify): the delivery counts as failed and is retried or replayed.' },
    },
  };
}

export function openapiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner crypto-to-fiat offramp API',
      version: API_VERSION,
      summary: 'Quotes, transactions, the revenue ledger, webhook events and the staging simulator, as offramp-cli reads them.',
      description: [
        "The partner API of the crypto-to-fiat offramp service, as offramp-cli and its emulator read the service's interface description (version 1.0.0): the same zod schemas the CLI parses answers with and the emulator answers with, and the emulator's route table.",
        '',
        'Every path is relative to the base URL of an environment, which already ends in /api/v1/partner; staging and production have their own hosts (ask the service operator). The server listed here is the local emulator (`offramp emulator`).',
        '',
        'Amounts are decimal strings, never JSON numbers: fiat in NGN, crypto in token units, rates in NGN per token. Every resource is scoped to the partner the X-API-KEY belongs to.',
        '',
        'Where the spec says "not shown", this document stays permissive and says so in an `x-offramp-open` extension: the open point, what the emulator chose, what a service may choose, and what the CLI does (docs/api.md, "Open points"). `offramp conform --overlay FILE` writes an OpenAPI Overlay of what a real service was observed to choose.',
      ].join('\n'),
      license: { name: 'MIT (this description; not the service)', identifier: 'MIT' },
    },
    servers: [
      {
        url: `http://127.0.0.1:{port}${BASE_PATH}`,
        description: 'The local emulator (offramp emulator).',
        variables: { port: { default: String(EMULATOR_DEFAULT_PORT), description: 'offramp emulator --port' } },
      },
    ],
    security: [{ ApiKey: [] }],
    tags: [
      { name: 'Quotes', description: 'Rates for a token amount or an NGN amount, valid 120 seconds.' },
      { name: 'Transactions', description: 'Create, read, list and cancel transactions, and read their status history.' },
      { name: 'Revenue', description: 'The revenue ledger: rows of completed transactions and their fees and shares.' },
      { name: 'Webhooks', description: 'Webhook event telemetry and replay, and the deliveries themselves (under webhooks).' },
      { name: 'Sandbox', description: 'The staging simulator.' },
    ],
    paths: paths(),
    webhooks: Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: webhook(type) }])),
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'The partner API key; missing or invalid is 401. Staging keys are sandbox-only.' },
      },
      parameters: parameters(),
      headers: {
        'Retry-After': {
          description: 'How long to wait before retrying.',
          required: true,
          schema: { type: 'string', minLength: 1 },
          ...openExtension(OPEN.retryAfter),
        },
      },
      responses: responses(),
      schemas: componentSchemas(),
    },
    ...openExtension(OPEN.requestId, OPEN.timeFormat, OPEN.extraFields, OPEN.idForm),
  };
}
