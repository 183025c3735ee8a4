// Filters verified on our side (docs/api.md, "Filters"): a service that does not know a
// parameter name ignores it, so every filter the CLI sends is also applied here to the
// records, and the first record a filter had to drop is reported once.
import type { FilteredList, ServiceChoices } from '../config/profile.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../schemas.js';
import type { Query } from './http.js';

export type TransactionFilters = { status?: string; from?: string; to?: string };
export type WebhookFilters = { transaction_id?: string; event_type?: string; delivery_status?: string; from?: string; to?: string };
export type RevenueFilters = { crypto_currency?: string; network?: string };

type FiltersOf = { transactions: TransactionFilters; webhooks: WebhookFilters; revenue: RevenueFilters };
type ItemOf = { transactions: Transaction; webhooks: WebhookEvent; revenue: RevenueRow };

/** The flag a user gave each filter with, for messages. */
const FLAGS: { [L in FilteredList]: Record<keyof FiltersOf[L], string> } = {
  transactions: { status: '--status', from: '--from', to: '--to' },
  webhooks: { transaction_id: '--tx', event_type: '--type', delivery_status: '--status', from: '--from', to: '--to' },
  revenue: { crypto_currency: '--token', network: '--network' },
};

const within = (time: string, from: string | undefined, to: string | undefined): boolean => {
  const t = Date.parse(time);
  return !(from !== undefined && t < Date.parse(from)) && !(to !== undefined && t > Date.parse(to));
};
const same = (a: string | null | undefined, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/** Does `item` satisfy filter `key` with `value`? On the record's own fields. */
const MATCH: { [L in FilteredList]: (item: ItemOf[L], key: keyof FiltersOf[L], value: string) => boolean } = {
  transactions: (tx, key, value) => (key === 'status' ? tx.status === value : key === 'from' ? within(tx.created_at, value, undefined) : within(tx.created_at, undefined, value)),
  webhooks: (e, key, value) =>
    key === 'transaction_id'
      ? same(e.aggregate_id, value)
      : key === 'event_type'
        ? e.event_type === value
        : key === 'delivery_status'
          ? e.delivery_status === value
          : key === 'from'
            ? within(e.created_at, value, undefined)
            : within(e.created_at, undefined, value),
  // The ledger writes symbols lower-case; a service may not.
  revenue: (row, key, value) => same(key === 'crypto_currency' ? row.crypto_currency : row.network, value),
};

/** A filter the service did not apply: reported once per list and filter. */
export type IgnoredFilter = { list: FilteredList; filter: string; flag: string; sentAs: string; value: string };

export function describeIgnored(f: IgnoredFilter): string {
  return (
    `the service ignored ${f.flag} (sent as ${f.sentAs}=${f.value}): it returned records that do not match, ` +
    'and they were left out here. `offramp conform --save` finds the name this service reads'
  );
}

/** The query parameters for a list's filters, under the names the service reads. */
export function wireFilters<L extends FilteredList>(list: L, filters: FiltersOf[L], service: ServiceChoices): Query {
  const names = (service.filterNames?.[list] ?? {}) as Record<string, string | undefined>;
  const query: Query = {};
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) query[names[key] ?? key] = value as string;
  return query;
}

/** Keeps the records that satisfy every filter; tells `onIgnored` once per filter that had to drop one. */
export class FilterCheck<L extends FilteredList> {
  private readonly active: [keyof FiltersOf[L], string][];
  private readonly reported = new Set<string>();

  constructor(
    private readonly list: L,
    filters: FiltersOf[L],
    private readonly service: ServiceChoices,
    private readonly onIgnored: (f: IgnoredFilter) => void = () => undefined,
  ) {
    this.active = Object.entries(filters).filter(([, v]) => v !== undefined) as [keyof FiltersOf[L], string][];
  }

  get empty(): boolean {
    return this.active.length === 0;
  }

  keep(item: ItemOf[L]): boolean {
    const match = MATCH[this.list] as (item: ItemOf[L], key: keyof FiltersOf[L], value: string) => boolean;
    let ok = true;
    for (const [key, value] of this.active) {
      if (match(item, key, value)) continue;
      ok = false;
      const name = key as string;
      if (!this.reported.has(name)) {
        this.reported.add(name);
        const names = (this.service.filterNames?.[this.list] ?? {}) as Record<string, string | undefined>;
        const flags = FLAGS[this.list] as Record<string, string>;
        this.onIgnored({ list: this.list, filter: name, flag: flags[name] ?? name, sentAs: names[name] ?? name, value });
      }
    }
    return ok;
  }
}
