// The spec's closed lists (statuses, simulator events, event types), kept free of zod so
// that the command tree can name them in help and completions without loading a parser.

export const TRANSACTION_STATUSES = [
  'pending',
  'awaiting_deposit',
  'deposit_confirming',
  'selling_crypto',
  'order_filled',
  'completed',
  'failed',
  'expired',
  'cancelled',
  'refunded',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const SIMULATOR_EVENTS = [
  'deposit.detected',
  'deposit.confirmed',
  'transaction.completed',
  'transaction.failed',
  'transaction.expired',
  'transaction.refunded',
  'payout.settled',
] as const;
export type SimulatorEvent = (typeof SIMULATOR_EVENTS)[number];

export const EVENT_TYPES = ['transaction.created', ...SIMULATOR_EVENTS] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The emulator's delivery_status values; others are accepted (the spec leaves them open). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The one pair the sandbox accepts (the spec, Limits): what the walk, conform and the prompts use. */
export const SANDBOX_PAIR = { crypto_currency: 'usdt', network: 'bep20' } as const;

/** The partner API's path under a host: the version prefix and the partner segment (the spec, "Address convention"). */
export const BASE_PATH = '/api/v1/partner';
