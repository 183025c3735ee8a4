// The flags that narrow the webhook event history (`webhooks list`, `webhooks replay
// --failed`), checked before any request and turned into GET /webhooks/events query
// parameters. The spec leaves that endpoint's parameters "not shown"; the names are the
// telemetry's own fields (transaction_id, event_type, delivery_status) plus a created_at
// window (from, to), as the emulator serves them.
import type { WebhookListQuery } from '../client/api.js';
import { parseDateArg } from '../dates.js';
import { UsageError } from '../errors.js';
import { parseUuid } from '../input.js';
import { EVENT_TYPES } from '../vocabulary.js';

/**
 * delivery_status values: "not shown" in the spec; these are the emulator's, and the
 * known set is enforced so that a typo is an error rather than an empty list.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export type EventFilterFlags = { tx?: string; type?: string; status?: string; from?: string; to?: string };

export function eventFilters(opts: EventFilterFlags): WebhookListQuery {
  const query: WebhookListQuery = {};
  if (opts.tx !== undefined) query.transaction_id = parseUuid(opts.tx, '--tx').toLowerCase();
  if (opts.type !== undefined) query.event_type = choiceFlag(opts.type, '--type', EVENT_TYPES);
  if (opts.status !== undefined) query.delivery_status = choiceFlag(opts.status, '--status', DELIVERY_STATUSES);
  const from = opts.from !== undefined ? parseDateArg(opts.from, 'start', '--from') : undefined;
  const to = opts.to !== undefined ? parseDateArg(opts.to, 'end', '--to') : undefined;
  if (from && to && to < from) throw new UsageError(`--to (${to.toISOString()}) is before --from (${from.toISOString()})`);
  if (from) query.from = from.toISOString();
  if (to) query.to = to.toISOString();
  return query;
}

function choiceFlag<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`${flag}: "${value}" is not one of: ${choices.join(', ')}`);
  return value as T;
}
