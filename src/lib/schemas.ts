// The partner API's resources as zod schemas: the one description the client parses
// responses with and the emulator validates requests and builds answers with, so the two
// agree by construction (partner-api.md, "Resources and their fields").
//
// Response schemas are loose objects: unknown fields pass through untouched (the service
// may add fields, and `--json` prints exactly what it sent), and fields whose values the
// spec leaves open (deposit_status, delivery_status, publish_status) are plain strings.
import * as z from 'zod';

/** A decimal amount as the service writes it: digits, an optional fraction, never a number. */
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string such as "1500.25"');

/** RFC 3339 date-time with a zone (`Z` or an offset). */
export const DateTime = z.iso.datetime({ offset: true });

export const Uuid = z.uuid();

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

export function successWrapper<T extends z.ZodType>(data: T) {
  return z.looseObject({
    success: z.literal(true),
    data,
    message: z.string().nullish(),
  });
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

/** The subset returned by create and cancel. */
export const TransactionSummary = z.looseObject({
  id: Uuid,
  deposit_address: z.string(),
  network: z.string(),
  expires_at: DateTime,
  status: z.string(),
  rate: DecimalString,
  amount: DecimalString,
  crypto_amount: DecimalString,
  crypto_currency: z.string(),
  merchant_reference: z.string().nullish(),
  merchant_id: z.string().nullish(),
  terminal_id: z.string().nullish(),
});
export type TransactionSummary = z.infer<typeof TransactionSummary>;

export const Transaction = TransactionSummary.extend({
  deposit_status: z.string().nullable(),
  created_at: DateTime,
  updated_at: DateTime,
  confirmations: z.number().int().nullish(),
  confirmed_at: DateTime.nullish(),
  deposit_id: z.string().nullish(),
  received_at: DateTime.nullish(),
  required_confirmations: z.number().int().nullish(),
});
export type Transaction = z.infer<typeof Transaction>;

export const StatusHistoryEntry = z.looseObject({
  from_status: z.string(),
  to_status: z.string(),
  changed_at: DateTime,
  reason: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
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
  merchant_id: z.string().nullable(),
  merchant_reference: z.string().nullable(),
  terminal_id: z.string().nullable(),
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
  transaction_count: z.number().int(),
});
export type RevenueSummary = z.infer<typeof RevenueSummary>;

export function pageOf<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z.boolean(),
    limit: z.number().int(),
    next_cursor: z.string().nullable(),
  });
}
export type Page<T> = { data: T[]; has_more: boolean; limit: number; next_cursor: string | null };

export const RevenuePage = pageOf(RevenueRow).extend({ summary: RevenueSummary.optional() });
export type RevenuePage = z.infer<typeof RevenuePage>;

export const WebhookEvent = z.looseObject({
  event_id: Uuid,
  aggregate_id: Uuid,
  event_type: z.string(),
  delivery_status: z.string(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  created_at: DateTime,
  updated_at: DateTime,
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const ReplayResult = z.looseObject({
  event_id: Uuid,
  aggregate_id: Uuid,
  event_type: z.string(),
  attempts: z.number().int(),
  publish_status: z.string(),
  replay_scheduled_at: DateTime,
});
export type ReplayResult = z.infer<typeof ReplayResult>;

/** Body of a webhook delivery: `{ id, type, data }` (partner-api.md, Events). */
export const WebhookDelivery = z.looseObject({
  id: z.string(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

// ---------------------------------------------------------------- request bodies

export const QuoteRequest = z.object({
  crypto_currency: z.string().min(1),
  network: z.string().min(1),
  crypto_amount: DecimalString.optional(),
  fiat_amount: DecimalString.optional(),
});
export type QuoteRequest = z.infer<typeof QuoteRequest>;

export const CreateTransactionRequest = z.object({
  quote_id: Uuid.optional(),
  fiat_amount: DecimalString.optional(),
  crypto_currency: z.string().min(1).optional(),
  network: z.string().min(1).optional(),
  merchant_reference: z.string().min(1),
  merchant_id: z.string().optional(),
  terminal_id: z.string().optional(),
  seller_phone: z.string().optional(),
});
export type CreateTransactionRequest = z.infer<typeof CreateTransactionRequest>;

export const SimulateRequest = z.object({
  transaction_id: Uuid,
  event: z.string(),
  deposit_id: z.string().nullish(),
  blockchain_hash: z.string().nullish(),
});
export type SimulateRequest = z.infer<typeof SimulateRequest>;
