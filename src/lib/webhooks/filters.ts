// The flags that narrow the webhook event history (`webhooks list`, `webhooks replay
// --failed`), checked before any request. The spec leaves the parameters "not shown": the
// filter names are the telemetry's own fields, sent under the names the profile records.
import type { WebhookListQuery } from '../client/api.js';
import { UsageError } from '../errors.js';
import { windowFilter } from '../input/window.js';
import { EVENT_TYPES } from '../vocabulary.js';

/** The transaction (`--tx`, `--ref`) is not among them: lib/tx/lookup's filterTransactionId resolves it. */
export function eventFilters(opts: { type?: string; status?: string; from?: string; to?: string }): WebhookListQuery {
  const query: WebhookListQuery = { ...windowFilter(opts) };
  if (opts.type !== undefined) {
    if (!(EVENT_TYPES as readonly string[]).includes(opts.type)) throw new UsageError(`--type: "${opts.type}" is not one of: ${EVENT_TYPES.join(', ')}`);
    query.event_type = opts.type;
  }
  if (opts.status !== undefined) query.delivery_status = openValue(opts.status, '--status');
  return query;
}

/** A value from a set the spec leaves open: any non-empty word. */
export function openValue(value: string, flag: string): string {
  const v = value.trim();
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(v)) throw new UsageError(`${flag}: "${value}" is not a status value (letters, digits, "_", "-", "." or ":")`);
  return v;
}

/**
 * `--events T,...` of `webhooks listen` and `webhooks resend`, which event types to take:
 * comma-separated event types, `prefix.*` for a family, `*` for all. An event without a
 * type matches only `*`.
 */
export function eventTypeFilter(value: string) {
  const patterns = [...new Set(value.split(',').map((p) => p.trim()).filter(Boolean))];
  if (patterns.length === 0) throw new UsageError(`--events: give one or more event types, like ${EVENT_TYPES[0]},${EVENT_TYPES[1]}`);
  for (const p of patterns) {
    if (p !== '*' && !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?$/.test(p)) {
      throw new UsageError(`--events: "${p}" is not an event type`, `like ${EVENT_TYPES.join(', ')}, or a family such as deposit.*`);
    }
  }
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1));
  const all = patterns.includes('*');
  return {
    /** The names as given (`deposit.*` matches every `deposit.` type). */
    patterns,
    /** Names that are neither one of the spec's types nor a wildcard (a service may send others). */
    unknown: patterns.filter((p) => !p.endsWith('*') && !(EVENT_TYPES as readonly string[]).includes(p)),
    matches: (type: string | undefined): boolean => all || (type !== undefined && (exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix)))),
  };
}
