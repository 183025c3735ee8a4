// The partner API's resources as zod schemas: the one description the client parses
// responses with and the emulator validates requests and builds answers with, so the two
// agree by construction (the spec, "Resources and their fields").
//
// Response schemas are loose objects: unknown fields pass through untouched (the service
// may add fields, and `--json` prints exactly what it sent), and fields whose values the
// spec leaves open (deposit_status, delivery_status, publish_status) are plain strings.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// Zod Mini: the same validation core as `zod` in a tenth of the code to load (each command
// starts faster), with functions in place of methods. It ships no messages of its own:
// English is set here, before any schema parses.
z.config(en());

/** A decimal amount as the service writes it: digits, an optional fraction, never a number. */
export const DecimalString = z.string().check(z.regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string such as "1500.25"'));

/** RFC 3339 date-time with a zone (`Z` or an offset). */
export const DateTime = z.iso.datetime({ offset: true });

/**
 * The spec types ids as "string, uuid" and nothing more: any 8-4-4-4-12 hexadecimal id,
 * of any version or variant, in either case. zod's `uuid()` also demands an RFC 9562
 * version and variant nibble, which would turn a service's valid ids into BAD_RESPONSE.
 */
export const Uuid = z.guid('Invalid UUID');

export { EVENT_TYPES, SIMULATOR_EVENTS, TRANSACTION_STATUSES } from './vocabulary.js';
export type { EventType, SimulatorEvent, TransactionStatus } from './vocabulary.js';

// ---------------------------------------------------------------- envelopes

export const ErrorEnvelope = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    timestamp: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

const wrappers = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

/** `{ success: true, data, message }` around `data`; one per data schema, built once. */
export function successWrapper<T extends z.core.$ZodType>(data: T) {
  const build = () => z.looseObject({ success: z.literal(true), data, message: z.nullish(z.string()) });
  let wrapper = wrappers.get(data) as ReturnType<typeof build> | undefined;
  if (!wrapper) wrappers.set(data, (wrapper = build()));
  return wrapper;
}

// ---------------------------------------------------------------- resources

export const Quote = z.looseObject({
  quote_id: Uuid,
  base_rate: DecimalString,
  adjusted_rate: DecimalString,
  amount: DecimalString,
  expires_at: DateTime,
});
export type Quote = z.infer<typeof Quote>;

const transactionSummaryShape = () => ({
  id: Uuid,
  deposit_address: z.string(),
  network: z.string(),
  expires_at: DateTime,
  status: z.string(),
  rate: DecimalString,
  amount: DecimalString,
  crypto_amount: DecimalString,
  crypto_currency: z.string(),
  merchant_reference: z.nullish(z.string()),
  merchant_id: z.nullish(z.string()),
  terminal_id: z.nullish(z.string()),
});
/** The subset returned by create and cancel. */
export const TransactionSummary = z.looseObject(transactionSummaryShape());
export type TransactionSummary = z.infer<typeof TransactionSummary>;

export const Transaction = z.looseObject({
  ...transactionSummaryShape(),
  deposit_status: z.nullable(z.string()),
  created_at: DateTime,
  updated_at: DateTime,
  confirmations: z.nullish(z.int()),
  confirmed_at: z.nullish(DateTime),
  deposit_id: z.nullish(z.string()),
  received_at: z.nullish(DateTime),
  required_confirmations: z.nullish(z.int()),
});
export type Transaction = z.infer<typeof Transaction>;

export const StatusHistoryEntry = z.looseObject({
  from_status: z.string(),
  to_status: z.string(),
  changed_at: DateTime,
  reason: z.string(),
  metadata: z.nullish(z.record(z.string(), z.unknown())),
});
export type StatusHistoryEntry = z.infer<typeof StatusHistoryEntry>;

export const StatusHistory = z.looseObject({
  id: Uuid,
  status: z.string(),
  history: z.array(StatusHistoryEntry),
});
export type StatusHistory = z.infer<typeof StatusHistory>;

export const RevenueRow = z.looseObject({
  transaction_id: Uuid,
  merchant_id: z.nullable(z.string()),
  merchant_reference: z.nullable(z.string()),
  terminal_id: z.nullable(z.string()),
  crypto_currency: z.string(),
  network: z.string(),
  crypto_amount: DecimalString,
  amount: DecimalString,
  platform_fee: DecimalString,
  share: DecimalString,
  ts: DateTime,
});
export type RevenueRow = z.infer<typeof RevenueRow>;

/** Column order of the ledger, as the spec lists it; CSV exports keep it. */
export const REVENUE_COLUMNS = [
  'transaction_id',
  'merchant_id',
  'merchant_reference',
  'terminal_id',
  'crypto_currency',
  'network',
  'crypto_amount',
  'amount',
  'platform_fee',
  'share',
  'ts',
] as const satisfies readonly (keyof RevenueRow)[];

export const RevenueSummary = z.looseObject({
  from: DateTime,
  to: DateTime,
  total_partner_share: DecimalString,
  transaction_count: z.int(),
});
export type RevenueSummary = z.infer<typeof RevenueSummary>;

export function pageOf<T extends z.core.$ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z.boolean(),
    limit: z.int(),
    next_cursor: z.nullable(z.string()),
  });
}
export type Page<T> = { data: T[]; has_more: boolean; limit: number; next_cursor: string | null };

export const RevenuePage = z.extend(pageOf(RevenueRow), { summary: z.optional(RevenueSummary) });
export type RevenuePage = z.infer<typeof RevenuePage>;

export const WebhookEvent = z.looseObject({
  event_id: Uuid,
  aggregate_id: Uuid,
  event_type: z.string(),
  delivery_status: z.string(),
  attempts: z.int(),
  last_error: z.nullable(z.string()),
  created_at: DateTime,
  updated_at: DateTime,
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const ReplayResult = z.looseObject({
  event_id: Uuid,
  aggregate_id: Uuid,
  event_type: z.string(),
  attempts: z.int(),
  publish_status: z.string(),
  replay_scheduled_at: DateTime,
});
export type ReplayResult = z.infer<typeof ReplayResult>;

/** Body of a webhook delivery: `{ id, type, data }` (the spec, Events). */
export const WebhookDelivery = z.looseObject({
  id: z.string(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

// ---------------------------------------------------------------- request bodies

export const QuoteRequest = z.object({
  crypto_currency: z.string().check(z.minLength(1)),
  network: z.string().check(z.minLength(1)),
  crypto_amount: z.optional(DecimalString),
  fiat_amount: z.optional(DecimalString),
});
export type QuoteRequest = z.infer<typeof QuoteRequest>;

export const CreateTransactionRequest = z.object({
  quote_id: z.optional(Uuid),
  fiat_amount: z.optional(DecimalString),
  crypto_currency: z.optional(z.string().check(z.minLength(1))),
  network: z.optional(z.string().check(z.minLength(1))),
  merchant_reference: z.string().check(z.minLength(1)),
  merchant_id: z.optional(z.string()),
  terminal_id: z.optional(z.string()),
  seller_phone: z.optional(z.string()),
});
export type CreateTransactionRequest = z.infer<typeof CreateTransactionRequest>;

export const SimulateRequest = z.object({
  transaction_id: Uuid,
  event: z.string(),
  deposit_id: z.nullish(z.string()),
  blockchain_hash: z.nullish(z.string()),
});
export type SimulateRequest = z.infer<typeof SimulateRequest>;
