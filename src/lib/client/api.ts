// The partner API's endpoints, declared once with their schemas (docs/api.md). Lists go
// through one path: the cursor is read wherever it is (paginate.ts), each item is checked,
// and filters are applied again to the records (filters.ts), so a service that ignores a
// filter's name never changes a result.
import * as z from 'zod/mini';
import { FILTERS, type FilteredList, type ServiceChoices } from '../config/profile.js';
import { SchemaError } from '../errors.js';
import {
  Quote,
  ReplayResult,
  RevenueRow,
  RevenueSummary,
  StatusHistory,
  Transaction,
  TransactionSummary,
  WebhookEvent,
  type CreateTransactionRequest,
  type QuoteRequest,
} from '../schemas.js';
import { FilterCheck, wireFilters, type IgnoredFilter, type RevenueFilters, type TransactionFilters, type WebhookFilters } from './filters.js';
import { issueMessage, type HttpClient, type Query } from './http.js';
import { isLastPage, paginate, readPage, type PaginateHooks } from './paginate.js';

export type ListQuery = { limit?: number; cursor?: string };
export type TransactionListQuery = ListQuery & TransactionFilters;
export type WebhookListQuery = ListQuery & WebhookFilters;
export type RevenueQuery = ListQuery &
  RevenueFilters & {
    from: string;
    to: string;
    include_summary?: boolean;
  };
export type { RevenueFilters };

/** The page size `all()` asks for when the caller names none: the spec's largest. */
export const FULL_PAGE = 100;

/** One page of a list, read, checked and filtered. */
export type ListAnswer<T> = {
  /** The records that satisfy every filter asked for. */
  items: T[];
  /** Every record the service sent, before our filters (a summary check needs them). */
  received: T[];
  /** The API's `data` as sent, less the records our filters left out: what `--json` prints. */
  data: unknown;
  nextCursor: string | null;
  /** No further page: the service said so, or gave no cursor for a page that was not full. */
  last: boolean;
  summary?: RevenueSummary;
  requestId?: string;
};

export type ApiOptions = {
  /** What the service chose on the spec's open points (profile; `conform --save`). */
  service?: ServiceChoices;
  /** Told once per list and filter when the service turned out to ignore one. */
  onIgnoredFilter?: (message: string, filter: IgnoredFilter) => void;
};

const enc = encodeURIComponent;

export function createApi(http: HttpClient, options: ApiOptions = {}) {
  const service = options.service ?? {};
  const told = new Set<string>();
  const onIgnored = (f: IgnoredFilter) => {
    const key = `${f.list}:${f.filter}`;
    if (told.has(key)) return;
    told.add(key);
    const message = `the service ignored ${f.flag} (sent as ${f.sentAs}=${f.value}): it returned records that do not match, and they were left out here`;
    options.onIgnoredFilter?.(`${message}. \`offramp conform --save\` finds the name this service reads`, f);
  };
  const get = <T extends z.core.$ZodType>(path: string, schema: T, query?: Query) => http.request({ method: 'GET', path, schema, query });

  /** One page of `path`, its filters sent and checked with `check`. */
  async function listPage<L extends FilteredList, T>(
    list: L,
    path: string,
    item: z.core.$ZodType<T>,
    query: ListQuery & Record<string, unknown>,
    filters: Parameters<typeof wireFilters<L>>[1],
    check: FilterCheck<L>,
  ): Promise<ListAnswer<T>> {
    const { limit, cursor, ...rest } = query;
    const extra: Query = {};
    for (const [k, v] of Object.entries(rest)) if (!(k in filters) && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) extra[k] = v;
    const raw = await http.send({ method: 'GET', path, query: { ...wireFilters(list, filters, service), ...extra, limit, cursor } });
    const body = raw.body as { success?: unknown; data?: unknown };
    const page = readPage(body);
    if (!page || body.success !== true) {
      throw new SchemaError(`unexpected response from GET ${path}: no list in it (expected data to be an array, or an object holding a data array)`, raw.requestId);
    }
    const parsed = z.safeParse(z.array(item), page.items);
    if (!parsed.success) throw new SchemaError(`unexpected response from GET ${path}: ${issueMessage(parsed.error, ['data'])}`, raw.requestId);
    // The raw objects, not zod's copies, so `--json` prints exactly what was sent.
    const received = page.items as T[];
    const keep = check.empty ? received : received.filter((i) => check.keep(i as never));
    let data = body.data;
    if (keep.length !== received.length) data = Array.isArray(data) ? keep : { ...(data as object), data: keep };
    let summary: RevenueSummary | undefined;
    if (page.summary !== undefined) {
      const s = RevenueSummary.safeParse(page.summary);
      if (!s.success) throw new SchemaError(`unexpected response from GET ${path}: ${issueMessage(s.error, ['summary'])}`, raw.requestId);
      summary = page.summary as RevenueSummary;
    }
    return {
      items: keep,
      received,
      data,
      nextCursor: page.nextCursor,
      last: isLastPage(page, limit, `GET ${path}`),
      ...(summary ? { summary } : {}),
      ...(raw.requestId ? { requestId: raw.requestId } : {}),
    };
  }

  /** A list's page function and its every-item iterator, sharing one filter check per walk. */
  function listOf<L extends FilteredList, T, Q extends ListQuery>(list: L, path: string, item: z.core.$ZodType<T>, filtersOf: (q: Q) => Parameters<typeof wireFilters<L>>[1]) {
    const check = (q: Q) => new FilterCheck(list, filtersOf(q), service, onIgnored);
    return {
      list: (query: Q, filterCheck = check(query)) => listPage(list, path, item, query, filtersOf(query), filterCheck),
      /** Every record of every page; `onReceived` sees each page's records before our filters. */
      all: (query: Q, hooks?: PaginateHooks & { onReceived?: (records: T[]) => void }) => {
        const q = { ...query, limit: query.limit ?? FULL_PAGE };
        const c = check(q);
        return paginate<T>(
          async (cursor) => {
            const page = await listPage(list, path, item, { ...q, cursor }, filtersOf(q), c);
            hooks?.onReceived?.(page.received);
            return { items: page.items, nextCursor: page.last ? null : page.nextCursor, hasMore: !page.last };
          },
          { cursor: query.cursor, limit: q.limit, what: `GET ${path}`, hooks },
        );
      },
    };
  }

  const transactions = listOf('transactions', '/transactions', Transaction, (q: TransactionListQuery) => pick(q, FILTERS.transactions));
  const webhooks = listOf('webhooks', '/webhooks/events', WebhookEvent, (q: WebhookListQuery) => pick(q, FILTERS.webhooks));
  const revenue = listOf('revenue', '/revenue', RevenueRow, (q: RevenueQuery) => pick(q, FILTERS.revenue));

  return {
    http,
    service,
    /** This API under an overall deadline: `remaining()` ms are left for everything it sends. */
    withBudget: (remaining: () => number) => createApi(http.withBudget(remaining), options),
    /** This API stopped by `signal`: what is in flight lets go, nothing more is sent. */
    withStop: (signal: AbortSignal) => createApi(http.withStop(signal), options),
    quotes: {
      create: (body: QuoteRequest) => http.request({ method: 'POST', path: '/quotes', body, schema: Quote }),
    },
    transactions: {
      create: (body: CreateTransactionRequest, idempotencyKey: string) =>
        http.request({ method: 'POST', path: '/transactions', body, idempotencyKey, schema: TransactionSummary }),
      get: (id: string) => get(`/transactions/${enc(id)}`, Transaction),
      byReference: (ref: string) => get(`/transactions/reference/${enc(ref)}`, Transaction),
      list: transactions.list,
      all: transactions.all,
      cancel: (id: string, idempotencyKey: string) =>
        http.request({ method: 'POST', path: `/transactions/${enc(id)}/cancel`, idempotencyKey, schema: TransactionSummary }),
      history: (id: string) => get(`/transactions/${enc(id)}/status-history`, StatusHistory),
    },
    revenue: {
      /** One page; pass one `check` for every page of a walk so an ignored filter is told once. */
      page: revenue.list,
      all: revenue.all,
      filterCheck: (filters: RevenueFilters) => new FilterCheck('revenue', filters, service, onIgnored),
    },
    webhooks: {
      list: webhooks.list,
      all: webhooks.all,
      get: (eventId: string) => get(`/webhooks/events/${enc(eventId)}`, WebhookEvent),
      replay: (eventId: string) => http.request({ method: 'POST', path: `/webhooks/events/${enc(eventId)}/replay`, schema: ReplayResult }),
    },
    sandbox: {
      simulate: (body: { transaction_id: string; event: string; deposit_id?: string; blockchain_hash?: string }) =>
        http.request({ method: 'POST', path: '/sandbox/simulate', body, schema: Transaction }),
    },
  };
}

function pick<Q extends object, K extends keyof Q>(q: Q, keys: readonly K[]): Pick<Q, K> {
  const out = {} as Pick<Q, K>;
  for (const k of keys) if (q[k] !== undefined) out[k] = q[k];
  return out;
}

export type Api = ReturnType<typeof createApi>;
