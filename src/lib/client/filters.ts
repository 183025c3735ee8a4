// Filters verified on our side (docs/api.md, "Filters"): a service that does not know a
// parameter name ignores it, so every filter the CLI sends is also applied here to the
// records, and the first record a filter had to drop is reported once.
import type { FilteredList, FilterName, ServiceChoices } from '../config/profile.js';
import type { RevenueRow, Transaction, WebhookEvent } from '../schemas.js';
import type { Query } from './http.js';

/** A list's filters under the CLI's names (profile.ts, FILTERS), each optional. */
type FiltersOf = { [L in FilteredList]: { [K in FilterName<L>]?: string } };
export type TransactionFilters = FiltersOf['transactions'];
export type WebhookFilters = FiltersOf['webhooks'];
export type RevenueFilters = FiltersOf['revenue'];
type ItemOf = { transactions: Transaction; webhooks: WebhookEvent; revenue: RevenueRow };

/** The flag a user gave each filter with, for messages. */
const FLAGS: { [L in FilteredList]: Record<keyof FiltersOf[L], string> } = {
  transactions: { status: '--status', from: '--from', to: '--to' },
  webhooks: { transaction_id: '--tx', event_type: '--type', delivery_status: '--status', from: '--from', to: '--to' },
  revenue: { crypto_currency: '--token', network: '--network' },
};

/** Whether `time` is not outside the `from` or `to` bound `value` (one that does not parse is kept, as the service sent it). */
const within = (time: string, bound: 'from' | 'to', value: string): boolean =>
  !(bound === 'from' ? Date.parse(time) < Date.parse(value) : Date.parse(time) > Date.parse(value));
const same = (a: string | null | undefined, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/** Does `item` satisfy filter `key` with `value`? On the record's own fields. */
const MATCH: { [L in FilteredList]: (item: ItemOf[L], key: keyof FiltersOf[L], value: string) => boolean } = {
  transactions: (tx, key, value) => (key === 'status' ? tx.status === value : within(tx.created_at, key, value)),
  webhooks: (e, key, value) =>
    key === 'transaction_id' ? same(e.aggregate_id, value) : key === 'from' || key === 'to' ? within(e.created_at, key, value) : e[key] === value,
  // The ledger writes symbols lower-case; a service may not.
  revenue: (row, key, value) => same(key === 'crypto_currency' ? row.crypto_currency : row.network, value),
};

/** A filter the service did not apply: reported once per list and filter. */
export type IgnoredFilter = { list: FilteredList; filter: string; flag: string; sentAs: string; value: string };

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
