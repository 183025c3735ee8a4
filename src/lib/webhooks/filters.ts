// The flags that narrow the webhook event history (`webhooks list`, `webhooks replay
// --failed`), checked before any request. The spec leaves that endpoint's parameters and
// the delivery_status values "not shown": the CLI's filter names are the telemetry's own
// fields, sent under the names the profile records (src/lib/client/filters.ts, which also
// applies every filter to the events that come back).
import type { WebhookListQuery } from '../client/api.js';
import { UsageError } from '../errors.js';
import { parseUuid } from '../input.js';
import { windowFilter } from '../window-input.js';
import { EVENT_TYPES } from '../vocabulary.js';

/** The emulator's delivery_status values; others are accepted (the spec leaves them open). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export type EventFilterFlags = { tx?: string; type?: string; status?: string; from?: string; to?: string };

export function eventFilters(opts: EventFilterFlags): WebhookListQuery {
  const query: WebhookListQuery = { ...windowFilter(opts) };
  if (opts.tx !== undefined) query.transaction_id = parseUuid(opts.tx, '--tx').toLowerCase();
  if (opts.type !== undefined) query.event_type = choiceFlag(opts.type, '--type', EVENT_TYPES);
  if (opts.status !== undefined) query.delivery_status = openValue(opts.status, '--status');
  return query;
}

/** A value from a set the spec leaves open: any non-empty word. */
export function openValue(value: string, flag: string): string {
  const v = value.trim();
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(v)) throw new UsageError(`${flag}: "${value}" is not a status value (letters, digits, "_", "-", "." or ":")`);
  return v;
}

function choiceFlag<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`${flag}: "${value}" is not one of: ${choices.join(', ')}`);
  return value as T;
}
