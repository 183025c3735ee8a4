// The document's component schemas, converted from the zod schemas the client parses with
// (src/lib/schemas.ts): zod 4 writes JSON Schema 2020-12, which OpenAPI 3.1 uses as is.
//
// - An ISO date-time becomes `format: date-time` and zod's long pattern for it is dropped
//   (validators check the format); zod's `int()` safe-integer bounds are dropped.
// - The client's schemas are lenient on purpose (a status word the CLI does not know is still
//   shown); SPEC_RULES adds what the spec fixes (statuses, event types, simulator events,
//   `<scope>:<word>` reasons), with the open points (open-points.ts) where they apply.
import * as z from 'zod/mini';
import * as S from '../schemas.js';
import { EVENT_TYPES, SIMULATOR_EVENTS, TRANSACTION_STATUSES } from '../vocabulary.js';
import { OPEN, openExtension } from './open-points.js';

export type JsonSchema = Record<string, unknown>;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// The list pages (the emulator's shape, docs/api.md "Lists"): built once, so that the
// list responses below reference these very instances.
const TransactionPage = S.pageOf(S.Transaction);
const WebhookEventPage = S.pageOf(S.WebhookEvent);

type SchemaName = { [K in keyof typeof S]: (typeof S)[K] extends z.core.$ZodType ? K : never }[keyof typeof S];
/** Zod schemas of src/lib/schemas.ts under their own names (`named`), or in the success wrapper as `<name>Response` (`answers`). */
const named = (...names: SchemaName[]) => names.map((name): [string, z.core.$ZodType] => [name, S[name]]);
const answers = (...names: SchemaName[]) => names.map((name): [string, z.core.$ZodType] => [`${name}Response`, S.successWrapper(S[name])]);

/** Every component schema, by name, in the order the document lists them. */
const COMPONENTS: [string, z.core.$ZodType][] = [
  ...named('Quote', 'TransactionSummary', 'Transaction', 'StatusHistoryEntry', 'StatusHistory'),
  ['TransactionPage', TransactionPage],
  ...named('RevenueRow', 'RevenueSummary', 'RevenuePage', 'WebhookEvent'),
  ['WebhookEventPage', WebhookEventPage],
  ...named('ReplayResult', 'WebhookDelivery', 'ErrorEnvelope', 'QuoteRequest', 'CreateTransactionRequest', 'SimulateRequest'),
  ...answers('Quote', 'TransactionSummary', 'Transaction', 'StatusHistory'),
  // The wrapper's data is an object (the spec, Response wrapper): the page, whose keys are the emulator's.
  ['TransactionListResponse', S.successWrapper(TransactionPage)],
  ['RevenueListResponse', S.successWrapper(S.RevenuePage)],
  ...answers('WebhookEvent'),
  ['WebhookEventListResponse', S.successWrapper(WebhookEventPage)],
  ...answers('ReplayResult'),
];

const DECIMAL = 'A decimal amount as a string (digits, an optional fraction): never a JSON number.';
const UUID = 'A UUID: any 8-4-4-4-12 hexadecimal id, of any version, in either case.';
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Exactly one of some ways to fill a body: each requires its fields and forbids the other's. */
type Mode = { title: string; requires: string[]; forbids: string[] };

type Rules = {
  description?: string;
  properties?: Record<string, JsonSchema>;
  /** A `oneOf` of these modes (written so that generated clients get a union type). */
  modes?: Mode[];
  /** Fields a client must never send (the service sets them). */
  never?: string[];
  /** Fields the spec says are there, beyond those the client's schema requires. */
  required?: string[];
  extra?: JsonSchema;
};

const TRANSACTION_FIELDS: Record<string, JsonSchema> = {
  deposit_address: { description: 'Where the seller sends the funds.' },
  network: { description: 'The network expected for the deposit.' },
  expires_at: { description: 'Deposit deadline, 30 minutes after creation; a deposit after it may need manual recovery.' },
  status: { enum: [...TRANSACTION_STATUSES] },
  rate: { description: 'Executable partner rate, NGN per token.' },
  amount: { description: 'NGN, derived at creation.' },
  crypto_amount: { description: 'Token units.' },
  crypto_currency: { description: 'The token, e.g. usdt.' },
  merchant_reference: { description: "The partner's canonical reference." },
};

/** What the spec says beyond the client's lenient schemas, by component and property. */
const SPEC_RULES: Record<string, Rules> = {
  Quote: {
    description: 'A quote, valid 120 seconds: after expires_at its quote_id is refused at transaction creation.',
    properties: {
      quote_id: { description: 'Used as quote_id when creating a transaction.' },
      base_rate: { description: 'NGN per token before adjustment.' },
      adjusted_rate: { description: 'NGN per token that will be executable.' },
      amount: { description: 'The amount echoed for the quote; its unit and meaning are not shown by the spec.' },
      expires_at: { description: 'After this instant the quote_id is rejected at transaction creation (120 seconds after the quote).' },
    },
  },
  TransactionSummary: {
    description: 'The subset of a transaction that creation and cancellation answer: merchant_reference, merchant_id and terminal_id are always there (null when none was given).',
    properties: TRANSACTION_FIELDS,
    required: ['merchant_reference', 'merchant_id', 'terminal_id'],
  },
  Transaction: {
    description: 'A transaction snapshot (read by id, by reference, listed, and answered by the simulator).',
    properties: {
      ...TRANSACTION_FIELDS,
      deposit_status: { description: 'Latest known deposit status; null before any deposit exists.', ...openExtension(OPEN.openValues) },
      created_at: { description: 'UTC, RFC 3339.' },
      updated_at: { description: 'UTC, RFC 3339.' },
      confirmations: { format: 'int32', description: 'Latest observed confirmation count.' },
      confirmed_at: { description: 'When the deposit was confirmed.' },
      deposit_id: { description: "The provider's deposit identifier, once a deposit is detected." },
      received_at: { description: 'When the deposit was received.' },
      required_confirmations: { format: 'int32', description: 'Confirmations needed for final crediting.' },
    },
  },
  StatusHistoryEntry: {
    properties: {
      from_status: { enum: [...TRANSACTION_STATUSES] },
      to_status: { enum: [...TRANSACTION_STATUSES] },
      reason: { pattern: '^[^:\\s]+:[^:\\s]+$', description: 'Short reason of the form <scope>:<word>, e.g. order:settled.' },
      metadata: { description: 'Extra data about the change.' },
    },
  },
  StatusHistory: { properties: { status: { enum: [...TRANSACTION_STATUSES], description: 'The current status.' } } },
  RevenueRow: {
    description: 'One row of the revenue ledger.',
    properties: {
      // Strings, as the spec types them; the CLI's tolerance of a null is the open point's.
      merchant_id: { type: 'string', ...openExtension(OPEN.ledgerNulls) },
      merchant_reference: { type: 'string' },
      terminal_id: { type: 'string', ...openExtension(OPEN.ledgerNulls) },
      amount: { description: 'NGN.' },
      share: { description: "The partner's share." },
      ts: { description: 'Ledger time.' },
    },
  },
  RevenueSummary: { description: 'The whole window (with the same filters), not just the page.' },
  RevenuePage: {
    description: 'A page of the revenue ledger.',
    properties: {
      limit: { description: 'The page size used.' },
      next_cursor: { description: 'Opaque: pass it back unchanged as cursor; null when no page follows.' },
      summary: { description: 'Present when include_summary=true.' },
    },
  },
  WebhookEvent: {
    description: "A webhook event's delivery telemetry: delivery state only, never the payload.",
    properties: {
      aggregate_id: { description: 'The id of the record the event is about.' },
      event_type: { enum: [...EVENT_TYPES] },
      delivery_status: openExtension(OPEN.openValues),
      attempts: { description: 'Delivery attempts so far.' },
      last_error: { description: 'The last delivery error.' },
    },
  },
  ReplayResult: {
    description: 'A replay, scheduled: the same event id, no new logical event.',
    properties: {
      event_id: { description: 'The original event id, unchanged.' },
      event_type: { enum: [...EVENT_TYPES] },
      attempts: { description: 'Attempt count after scheduling.' },
      publish_status: { description: 'A pending value right after scheduling.', ...openExtension(OPEN.openValues) },
    },
  },
  WebhookDelivery: {
    description: "The body of a webhook delivery. Consumers must be idempotent (deduplicate by id) and order-tolerant: delivery is at least once, in no guaranteed order.",
    properties: {
      id: { format: 'uuid', description: 'The event id; a redelivery carries the same id.' },
      type: { enum: [...EVENT_TYPES] },
      data: openExtension(OPEN.webhookData),
    },
  },
  ErrorEnvelope: {
    description: 'The body of every error answer.',
    properties: {
      error: {
        properties: {
          code: { description: 'A machine-readable code.' },
          message: { description: 'Human-readable text.' },
          timestamp: { format: 'date-time', description: 'When the error happened.' },
        },
      },
    },
  },
  QuoteRequest: {
    description: 'Exactly one of crypto_amount and fiat_amount; both is 400 BAD_REQUEST.',
    properties: { crypto_currency: { description: 'Token symbol; staging takes usdt only.' }, network: { description: 'Network of the deposit; staging takes bep20 only.' } },
    modes: [
      { title: 'token amount', requires: ['crypto_amount'], forbids: ['fiat_amount'] },
      { title: 'NGN amount', requires: ['fiat_amount'], forbids: ['crypto_amount'] },
    ],
    extra: openExtension(OPEN.quoteWithoutAmount),
  },
  CreateTransactionRequest: {
    description:
      'Exactly one pricing mode: quote mode (quote_id; network is sent with it too) or direct mode (fiat_amount, crypto_currency and network), never both. The partner never sends rate or crypto_amount: the service derives them.',
    properties: {
      merchant_reference: { description: "The partner's own key: unique per partner, compared case-insensitively. Recovers a create whose answer was lost." },
      seller_phone: { description: 'Metadata for seller linkage; creation is not blocked by identity checks.' },
    },
    modes: [
      { title: 'quote mode', requires: ['quote_id'], forbids: ['fiat_amount'] },
      { title: 'direct mode', requires: ['fiat_amount', 'crypto_currency', 'network'], forbids: ['quote_id'] },
    ],
    never: ['rate', 'crypto_amount'],
  },
  SimulateRequest: {
    properties: {
      transaction_id: { description: 'An existing transaction of this partner; the simulator never creates one.' },
      event: { enum: [...SIMULATOR_EVENTS] },
      deposit_id: { description: 'A stable override of the simulated deposit identifier.' },
      blockchain_hash: { description: 'An override of the simulated chain data (deposit events).' },
    },
  },
  ReplayResultResponse: { properties: { message: { type: 'string', description: 'A replay-scheduled notice.' } }, required: ['message'] },
  TransactionListResponse: { extra: openExtension(OPEN.listShape) },
  WebhookEventListResponse: { extra: openExtension(OPEN.listShape) },
};


/** The component schemas, from zod plus SPEC_RULES; a fresh object on every call. */
export function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of COMPONENTS) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    // Request bodies are read as sent (no unknown-key stripping shown as a rule);
    // responses have no transforms, so input and output are the same for them.
    io: 'input',
    unrepresentable: 'throw',
    uri: (id) => schemaRef(id).$ref,
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === S.DecimalString) jsonSchema.description = DECIMAL;
      if (zodSchema === S.Uuid) jsonSchema.description = UUID;
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
      if (jsonSchema.type === 'integer' && jsonSchema.minimum === -MAX_SAFE && jsonSchema.maximum === MAX_SAFE) {
        delete jsonSchema.minimum;
        delete jsonSchema.maximum;
      }
    },
  });
  const out: Record<string, JsonSchema> = {};
  for (const [id] of COMPONENTS) {
    const { $schema: _dialect, $id: _id, ...schema } = schemas[id] as JsonSchema;
    out[id] = withRules(id, schema);
    if (id === 'TransactionSummaryResponse') {
      out.CreateTransactionResponse = summaryAnswer('awaiting_deposit');
      out.CancelTransactionResponse = summaryAnswer('cancelled', 'A cancelled notice.');
    }
  }
  return out;
}

/** The create or cancel answer: the create subset in the status the spec gives it, and with `notice`, a message that is there. */
function summaryAnswer(status: string, notice?: string): JsonSchema {
  const message = notice ? { message: { type: 'string', description: notice } } : {};
  return {
    description: `The create subset in status ${status}${notice ? ', with the notice as message' : ''}.`,
    allOf: [schemaRef('TransactionSummaryResponse'), { properties: { data: { properties: { status: { const: status } } }, ...message }, ...(notice ? { required: ['message'] } : {}) }],
  };
}

function withRules(id: string, schema: JsonSchema): JsonSchema {
  const rules = SPEC_RULES[id];
  if (!rules) return schema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema | false>;
  const property = (name: string): JsonSchema => {
    const found = properties[name];
    if (!found) throw new Error(`openapi: ${id} has no property ${name}`);
    return found;
  };
  for (const [name, extra] of Object.entries(rules.properties ?? {})) properties[name] = mergeProperty(property(name), extra);
  // `false`: the field must be absent (a generated client types it `never`).
  for (const name of rules.never ?? []) properties[name] = false;
  const oneOf = rules.modes?.map((mode) => ({
    title: mode.title,
    required: mode.requires,
    properties: Object.fromEntries([...mode.requires.map((name) => [name, property(name)]), ...mode.forbids.map((name) => [name, false])]),
  }));
  const required = rules.required ? { required: [...((schema.required as string[] | undefined) ?? []), ...rules.required] } : {};
  return { ...(rules.description ? { description: rules.description } : {}), ...schema, ...required, ...(oneOf ? { oneOf } : {}), ...rules.extra };
}

/**
 * A property with the spec's rule: beside a `$ref` or inside each branch of a nullable
 * `anyOf`, so that `null` stays allowed where the schema allowed it.
 */
function mergeProperty(property: JsonSchema, extra: JsonSchema): JsonSchema {
  const { description, 'x-offramp-open': open, properties: inner, ...rule } = extra;
  if (inner) {
    // An object's own properties get their rules the same way, one level down.
    const own = { ...(property.properties as Record<string, JsonSchema>) };
    for (const [name, sub] of Object.entries(inner as Record<string, JsonSchema>)) {
      if (!own[name]) throw new Error(`openapi: no property ${name} to describe`);
      own[name] = mergeProperty(own[name], sub);
    }
    property = { ...property, properties: own };
  }
  // The spec's note first, then the general one the conversion gave (a decimal, a UUID).
  const text = [description, property.description].filter(Boolean).join(' ');
  const notes = { ...(text ? { description: text } : {}), ...(open ? { 'x-offramp-open': open } : {}) };
  const anyOf = property.anyOf as JsonSchema[] | undefined;
  if (anyOf && Object.keys(rule).length > 0) {
    return { ...property, ...notes, anyOf: anyOf.map((branch) => (branch.type === 'null' ? branch : { ...branch, ...rule })) };
  }
  return { ...property, ...notes, ...rule };
}
