// The partner API's endpoints, declared once with their schemas (partner-api.md,
// "Endpoints"). Every command talks to the service through this object.
import * as z from 'zod/mini';
import {
  Quote,
  RevenuePage,
  ReplayResult,
  StatusHistory,
  Transaction,
  TransactionSummary,
  WebhookEvent,
  pageOf,
  type CreateTransactionRequest,
  type QuoteRequest,
} from '../schemas.js';
import type { HttpClient, Query } from './http.js';
import { paginate, type PageLike, type PaginateHooks } from './paginate.js';

// Built on first use, like the resource schemas.
const TransactionPage = z.lazy(() => z.union([pageOf(Transaction), z.array(Transaction)]));
const WebhookEventPage = z.lazy(() => z.union([pageOf(WebhookEvent), z.array(WebhookEvent)]));

export type ListQuery = { limit?: number; cursor?: string };
export type TransactionListQuery = ListQuery & { status?: string; from?: string; to?: string };
export type WebhookListQuery = ListQuery & {
  transaction_id?: string;
  event_type?: string;
  delivery_status?: string;
  from?: string;
  to?: string;
};
export type RevenueQuery = {
  from: string;
  to: string;
  include_summary?: boolean;
  cursor?: string;
  limit?: number;
  crypto_currency?: string;
  network?: string;
};

const enc = encodeURIComponent;

export function createApi(http: HttpClient) {
  const get = <T extends z.core.$ZodType>(path: string, schema: T, query?: Query) => http.request({ method: 'GET', path, schema, query });

  return {
    http,
    quotes: {
      create: (body: QuoteRequest) => http.request({ method: 'POST', path: '/quotes', body, schema: Quote }),
    },
    transactions: {
      create: (body: CreateTransactionRequest, idempotencyKey: string) =>
        http.request({ method: 'POST', path: '/transactions', body, idempotencyKey, schema: TransactionSummary }),
      get: (id: string) => get(`/transactions/${enc(id)}`, Transaction),
      byReference: (ref: string) => get(`/transactions/reference/${enc(ref)}`, Transaction),
      list: (query: TransactionListQuery = {}) => get('/transactions', TransactionPage, query),
      all: (query: TransactionListQuery = {}, hooks?: PaginateHooks) =>
        paginate(async (cursor) => (await get('/transactions', TransactionPage, { ...query, cursor })).data, query.cursor, hooks),
      cancel: (id: string, idempotencyKey: string) =>
        http.request({ method: 'POST', path: `/transactions/${enc(id)}/cancel`, idempotencyKey, schema: TransactionSummary }),
      history: (id: string) => get(`/transactions/${enc(id)}/status-history`, StatusHistory),
    },
    revenue: {
      page: (query: RevenueQuery) => get('/revenue', RevenuePage, query),
      all: (query: RevenueQuery, hooks?: PaginateHooks) =>
        paginate(async (cursor) => (await get('/revenue', RevenuePage, { ...query, cursor })).data, query.cursor, hooks),
    },
    webhooks: {
      list: (query: WebhookListQuery = {}) => get('/webhooks/events', WebhookEventPage, query),
      all: (query: WebhookListQuery = {}, hooks?: PaginateHooks) =>
        paginate(async (cursor) => (await get('/webhooks/events', WebhookEventPage, { ...query, cursor })).data, query.cursor, hooks),
      get: (eventId: string) => get(`/webhooks/events/${enc(eventId)}`, WebhookEvent),
      replay: (eventId: string) => http.request({ method: 'POST', path: `/webhooks/events/${enc(eventId)}/replay`, schema: ReplayResult }),
    },
    sandbox: {
      simulate: (body: { transaction_id: string; event: string; deposit_id?: string; blockchain_hash?: string }) =>
        http.request({ method: 'POST', path: '/sandbox/simulate', body, schema: Transaction }),
    },
  };
}

export type Api = ReturnType<typeof createApi>;
export type { PageLike };
