// The probes of `offramp conform`: one run of requests that finds out what a service chose
// on each point the spec leaves "not shown" (docs/api.md, "Open points").
//
// On a read-only side (a production profile) only the quote and reads are sent. Otherwise
// the run creates one transaction (a `conform-…` reference) and walks it to completion with
// the simulator, and creates a second one to cancel: everything else reads what those made.
import { randomBytes, randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADERS, type HttpClient, type Query } from '../client/http.js';
import { headerValue } from '../client/transport.js';
import { isObject, readPage, type RawPage } from '../client/paginate.js';
import { FILTERS, type FilteredList, type ServiceChoices } from '../config/profile.js';
import { ApiError, SchemaError } from '../errors.js';
import { EVENT_TYPES, SANDBOX_PAIR, TRANSACTION_STATUSES } from '../vocabulary.js';
import type { JsonSchema } from '../openapi/schemas.js';
import {
  emptyObservation,
  type CallName,
  type ErrorObs,
  type FilterObs,
  type ListObs,
  type Observation,
} from './verdicts.js';

export type ProbeRequest = { method: 'GET' | 'POST'; path: string; query?: Query; body?: unknown; idempotencyKey?: string };

/** An answer, success or error alike: the probes look at both. */
export type Answer = {
  ok: boolean;
  /** HTTP status; 0 when a 2xx came without a JSON body. */
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Errors: the code (the service's when `enveloped`, else one derived from the status) and message. */
  code?: string;
  enveloped?: boolean;
  message?: string;
};

export type Sender = ReturnType<typeof createSender>;

/**
 * A sender over the HTTP client that watches every attempt, so the 429s the client recovers
 * from are seen too, and turns an error status into an answer. No answer at all is thrown.
 */
export function createSender(client: Pick<HttpClient, 'send' | 'observe'>) {
  /** Retry-After of every 429 met ('' when it had none): what the report says about its form. */
  const retryAfter: string[] = [];
  client.observe((a) => {
    if (a.status === 429) retryAfter.push((a.error instanceof ApiError && headerValue(a.error.headers['retry-after'])) || '');
  });
  return {
    retryAfter,
    async send(req: ProbeRequest): Promise<Answer> {
      try {
        const raw = await client.send(req);
        return { ok: true, status: raw.status, body: raw.body, headers: raw.headers };
      } catch (err) {
        if (err instanceof ApiError) {
          return { ok: false, status: err.status, body: err.envelope, headers: err.headers, code: err.code, enveloped: err.enveloped, message: err.message };
        }
        if (err instanceof SchemaError) return { ok: false, status: 0, body: undefined, headers: {}, message: err.message };
        throw err;
      }
    },
  };
}

export type ProbeSide = {
  sender: Sender;
  /** The same service, called with a key it cannot know (the 401 probe). */
  wrongKey: Sender;
  /** Production: only the quote and reads; nothing is created, cancelled, replayed or simulated. */
  readOnly: boolean;
  /** Called after the walk, before delivery statuses are read: lets deliveries happen. */
  awaitDeliveries(): Promise<void>;
  now(): Date;
  /** Filter names to try first (the profile's), before the common candidates. */
  preferredNames?: ServiceChoices['filterNames'];
};

export const READ_ONLY = 'production: read-only';

/** The sandbox pair (the only one staging takes, docs/api.md) and a small amount. */
const FIAT_AMOUNT = '5000.00';
const WALK = ['deposit.detected', 'deposit.confirmed', 'transaction.completed', 'payout.settled'] as const;

/** Revenue window of the probes: well inside the 90-day rule, ending after now. */
const REVENUE_BACK_MS = 60 * 86_400_000;
const REVENUE_AHEAD_MS = 86_400_000;

const FAR_FUTURE = '2999-01-01T00:00:00Z';
const FAR_PAST = '2000-01-01T00:00:00Z';
const FROM_NAMES = ['created_after', 'created_from', 'since', 'start', 'from_date'];
const TO_NAMES = ['created_before', 'created_to', 'until', 'end', 'to_date'];

const DATE_TIME = { type: 'string', format: 'date-time' };
type FilterProbe = { excluding: () => string; candidates: readonly string[]; description: string; schema: JsonSchema };

/**
 * For each of the CLI's filters: a value no record can have (a record coming back despite
 * it means the service ignored the parameter), the names services commonly use for it,
 * tried in this order, and what it filters on, as the overlay's parameter says whatever name
 * the service reads it under. Revenue symbols are compared case-insensitively by the
 * emulator, so `zzz` is no token or network anywhere.
 */
export const FILTER_PROBES: { [L in FilteredList]: Record<(typeof FILTERS)[L][number], FilterProbe> } = {
  transactions: {
    status: { excluding: () => 'conform-none', candidates: ['state', 'transaction_status'], description: 'Only transactions in this status.', schema: { type: 'string', enum: [...TRANSACTION_STATUSES] } },
    from: { excluding: () => FAR_FUTURE, candidates: FROM_NAMES, description: 'Only transactions created at or after this time.', schema: DATE_TIME },
    to: { excluding: () => FAR_PAST, candidates: TO_NAMES, description: 'Only transactions created at or before this time.', schema: DATE_TIME },
  },
  webhooks: {
    transaction_id: { excluding: () => randomUUID(), candidates: ['aggregate_id', 'tx_id', 'transaction'], description: 'Only events about this transaction (their aggregate_id).', schema: { type: 'string', format: 'uuid' } },
    event_type: { excluding: () => 'conform.none', candidates: ['type', 'event'], description: 'Only events of this type.', schema: { type: 'string', enum: [...EVENT_TYPES] } },
    delivery_status: { excluding: () => 'conform-none', candidates: ['status', 'state'], description: "Only events with this delivery status (the words are the service's).", schema: { type: 'string' } },
    from: { excluding: () => FAR_FUTURE, candidates: FROM_NAMES, description: 'Only events created at or after this time.', schema: DATE_TIME },
    to: { excluding: () => FAR_PAST, candidates: TO_NAMES, description: 'Only events created at or before this time.', schema: DATE_TIME },
  },
  revenue: {
    crypto_currency: { excluding: () => 'zzz', candidates: ['token', 'currency', 'asset'], description: "Only rows of this token (the spec's token filter).", schema: { type: 'string' } },
    network: { excluding: () => 'zzz', candidates: ['chain', 'blockchain'], description: "Only rows of this network (the spec's network filter).", schema: { type: 'string' } },
  },
};

/** A query parameter no service reads: tells a refused value from a refused name. */
const UNKNOWN_PARAMETER = 'conform_unknown_parameter';

type Json = Record<string, unknown>;
const dataOf = (body: unknown): unknown => (isObject(body) && 'data' in body ? body.data : body);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export async function runProbes(side: ProbeSide): Promise<Observation> {
  const obs = emptyObservation();
  const idHeaders = new Set<string>();
  const deposit = new Set<string>();
  const delivery = new Set<string>();
  const publish = new Set<string>();
  const events: Json[] = [];
  const transactions: Json[] = [];

  const noteDeposit = (v: unknown) => {
    if (isObject(v) && 'deposit_status' in v) deposit.add(v.deposit_status === null ? 'null' : String(v.deposit_status));
  };
  /** Every answer passes here: request-id headers, and open values wherever they show. */
  const send = async (req: ProbeRequest): Promise<Answer> => {
    const a = await side.sender.send(req);
    for (const name of REQUEST_ID_HEADERS) if (headerValue(a.headers[name])) idHeaders.add(name);
    if (!a.ok || req.method !== 'GET') return a;
    if (req.path === '/webhooks/events') {
      for (const item of readPage(a.body)?.items ?? []) {
        if (!isObject(item)) continue;
        events.push(item);
        if (typeof item.delivery_status === 'string') delivery.add(item.delivery_status);
      }
    } else if (req.path === '/transactions') {
      for (const item of readPage(a.body)?.items ?? []) {
        if (!isObject(item)) continue;
        transactions.push(item);
        noteDeposit(item);
      }
    } else if (req.path.startsWith('/transactions/') && !req.path.endsWith('/status-history')) {
      noteDeposit(dataOf(a.body));
    }
    return a;
  };
  const record = (name: CallName, a: Answer) => {
    obs.calls[name] = a.ok ? { status: a.status } : { failed: { status: a.status, code: a.code, message: a.message ?? `HTTP ${a.status}` } };
  };
  const skip = (names: CallName[], why: string) => {
    for (const name of names) obs.calls[name] = { skipped: why };
  };

  // -- quote, and the errors any side may provoke
  record('quote', await send({ method: 'POST', path: '/quotes', body: { ...SANDBOX_PAIR, fiat_amount: FIAT_AMOUNT } }));
  obs.errors['400'] = errorObs(await send({ method: 'POST', path: '/quotes', body: { ...SANDBOX_PAIR, fiat_amount: FIAT_AMOUNT, crypto_amount: '1.000000' } }));
  obs.errors['401'] = errorObs(await side.wrongKey.send({ method: 'GET', path: '/transactions', query: { limit: 1 } }));
  obs.errors['404'] = errorObs(await send({ method: 'GET', path: `/transactions/${randomUUID()}` }));

  // -- the walk: one transaction to completion, one to cancel
  let walked: { id: string; ref: string } | undefined;
  if (side.readOnly) {
    skip(['create', 'cancel', 'simulate', 'webhook replay'], READ_ONLY);
    obs.errors['409'] = { skipped: READ_ONLY };
    obs.values.publish_status = { skipped: READ_ONLY };
  } else {
    const create = (ref: string) =>
      send({
        method: 'POST',
        path: '/transactions',
        body: { fiat_amount: FIAT_AMOUNT, ...SANDBOX_PAIR, merchant_reference: ref },
        idempotencyKey: randomUUID(),
      });
    const ref = conformReference();
    const created = await create(ref);
    record('create', created);
    const id = created.ok ? str((dataOf(created.body) as Json | undefined)?.id) : undefined;
    if (id) {
      walked = { id, ref };
      let completed = true;
      for (const event of WALK) {
        const a = await send({ method: 'POST', path: '/sandbox/simulate', body: { transaction_id: id, event } });
        // The first answer's status stands, unless a later step fails.
        if (!obs.calls.simulate || !a.ok) record('simulate', a);
        if (!a.ok) {
          completed = false;
          break;
        }
        noteDeposit(dataOf(a.body));
      }
      obs.errors['409'] = completed
        ? errorObs(await send({ method: 'POST', path: `/transactions/${encodeURIComponent(id)}/cancel`, idempotencyKey: randomUUID() }))
        : { skipped: 'the walk did not reach completed' };
    } else {
      skip(['simulate'], 'no transaction: create failed');
      obs.errors['409'] = { skipped: 'no transaction: create failed' };
    }
    const second = id ? await create(conformReference()) : undefined;
    const secondId = second?.ok ? str((dataOf(second.body) as Json | undefined)?.id) : undefined;
    if (secondId) record('cancel', await send({ method: 'POST', path: `/transactions/${encodeURIComponent(secondId)}/cancel`, idempotencyKey: randomUUID() }));
    else skip(['cancel'], 'no transaction: create failed');
    await side.awaitDeliveries();
  }

  // -- lists: shape, cursor, default page size
  const now = side.now().getTime();
  const revenueWindow = { from: new Date(now - REVENUE_BACK_MS).toISOString(), to: new Date(now + REVENUE_AHEAD_MS).toISOString() };
  const txList = await probeList(send, '/transactions', {});
  record('list', txList.answer);
  obs.lists.transactions = txList.obs;
  const revList = await probeList(send, '/revenue', revenueWindow);
  record('revenue', revList.answer);
  obs.lists.revenue = revList.obs;
  const evList = await probeList(send, '/webhooks/events', {});
  record('webhook list', evList.answer);
  obs.lists.webhooks = evList.obs;
  // The delivery words are read from as many events as a page holds: a service that lists
  // newest first (the emulator) may show only its latest failures on the default page.
  await send({ method: 'GET', path: '/webhooks/events', query: { limit: 100 } });

  // -- reads of one transaction: the walked one, else the newest listed
  const listed = transactions.find((t) => str(t.id));
  const known = walked ?? (listed ? { id: String(listed.id), ref: str(listed.merchant_reference) } : undefined);
  if (known) {
    const path = `/transactions/${encodeURIComponent(known.id)}`;
    record('get', await send({ method: 'GET', path }));
    if (known.ref) record('get by reference', await send({ method: 'GET', path: `/transactions/reference/${encodeURIComponent(known.ref)}` }));
    else skip(['get by reference'], 'the transaction has no merchant_reference');
    record('status-history', await send({ method: 'GET', path: `${path}/status-history` }));
  } else {
    skip(['get', 'get by reference', 'status-history'], 'no transaction to read');
  }

  // -- filter names
  obs.filters.transactions = await probeFilters(send, 'transactions', '/transactions', {}, txList.records, side.preferredNames);
  obs.filters.webhooks = await probeFilters(send, 'webhooks', '/webhooks/events', {}, evList.records, side.preferredNames);
  obs.filters.revenue = await probeFilters(send, 'revenue', '/revenue', revenueWindow, revList.records, side.preferredNames);

  // -- one webhook event: read it, and (not read-only) replay it
  let event = walked ? events.find((e) => e.aggregate_id === walked.id && str(e.event_id)) : undefined;
  const txFilter = obs.filters.webhooks?.transaction_id;
  if (walked && !event && txFilter && 'honoured' in txFilter) {
    // A busy service lists older events first: ask for the walked transaction's own.
    await send({ method: 'GET', path: '/webhooks/events', query: { [txFilter.honoured]: walked.id, limit: 100 } });
    event = events.find((e) => e.aggregate_id === walked.id && str(e.event_id));
  }
  event ??= events.find((e) => str(e.event_id));
  const eventPath = event ? `/webhooks/events/${encodeURIComponent(String(event.event_id))}` : undefined;
  if (eventPath) record('webhook get', await send({ method: 'GET', path: eventPath }));
  else skip(['webhook get'], 'no webhook event to read');
  if (!side.readOnly) {
    // Last of all: a replay puts the event back to a pending value, which the delivery
    // statuses read above must not include.
    if (eventPath) {
      const replay = await send({ method: 'POST', path: `${eventPath}/replay` });
      record('webhook replay', replay);
      const status = (dataOf(replay.body) as Json | undefined)?.publish_status;
      if (replay.ok && typeof status === 'string') publish.add(status);
    } else {
      skip(['webhook replay'], 'no webhook event to replay');
    }
    obs.values.publish_status = { seen: [...publish] };
  }

  obs.requestIdHeaders = REQUEST_ID_HEADERS.filter((name) => idHeaders.has(name));
  obs.values.deposit_status = { seen: [...deposit] };
  obs.values.delivery_status = { seen: [...delivery] };
  obs.retryAfter = [...side.sender.retryAfter];
  return obs;
}

/** `conform-` and 12 random hex digits: unique, and plainly conform's in any listing. */
export function conformReference(): string {
  return `conform-${randomBytes(6).toString('hex')}`;
}

function errorObs(a: Answer): ErrorObs {
  if (a.ok) return { accepted: a.status };
  return { status: a.status, code: a.enveloped ? a.code : undefined, enveloped: a.enveloped === true };
}

type ListProbe = { answer: Answer; obs: ListObs; records: number };

/**
 * Three requests: the list without a limit (its default page size; whether 2 records
 * exist), with `limit=1` (where the cursor is, since the page must then continue), and
 * the next page by that cursor (whether it works, percent-encoded as the CLI sends it).
 */
async function probeList(send: (req: ProbeRequest) => Promise<Answer>, path: string, base: Query): Promise<ListProbe> {
  const all = await send({ method: 'GET', path, query: base });
  if (!all.ok) return { answer: all, obs: { skipped: `the list answered ${all.status}` }, records: 0 };
  const page = readPage(all.body);
  const none: ListObs = { shape: 'none', location: 'none', mustContinue: false, follow: 'not-needed', defaultSize: { count: 0, more: false } };
  if (!page) return { answer: all, obs: none, records: 0 };
  const stated = page.statedLimit;
  const defaultSize = {
    ...(stated !== undefined ? { stated } : {}),
    count: page.items.length,
    more: page.hasMore === true || (page.nextCursor !== null && page.hasMore !== false),
  };
  const mustContinue = page.items.length >= 2;
  const one = await send({ method: 'GET', path, query: { ...base, limit: 1 } });
  const first = one.ok ? readPage(one.body) : undefined;
  if (!first) {
    return {
      answer: all,
      obs: { ...none, shape: page.shape, mustContinue, follow: 'refused', followError: one.ok ? 'no list' : `limit=1 answered ${one.status}`, defaultSize },
      records: page.items.length,
    };
  }
  let follow: Extract<ListObs, { shape: string }>['follow'] = 'not-needed';
  let followError: string | undefined;
  if (mustContinue) {
    if (!first.nextCursor || first.hasMore === false) {
      follow = 'no-cursor';
    } else {
      const next = await send({ method: 'GET', path, query: { ...base, limit: 1, cursor: first.nextCursor } });
      const second = next.ok ? readPage(next.body) : undefined;
      if (!next.ok || !second) {
        follow = 'refused';
        followError = next.ok ? 'no list' : `${next.status}${next.code ? ` ${next.code}` : ''}`;
      } else {
        follow = second.items.length > 0 && identity(second.items[0]) !== identity(first.items[0]) ? 'ok' : 'same-page';
      }
    }
  }
  return {
    answer: all,
    obs: { shape: first.shape, location: first.location, mustContinue, follow, ...(followError ? { followError } : {}), defaultSize },
    records: page.items.length,
  };
}

/** A record's id for telling two pages apart: its id field, else its whole JSON. */
function identity(item: unknown): string {
  if (isObject(item)) {
    for (const key of ['id', 'event_id', 'transaction_id']) if (typeof item[key] === 'string') return `${key}:${item[key]}`;
  }
  return JSON.stringify(item);
}

/**
 * For each of the list's filters: send a value that excludes every record under the CLI's
 * name; a record coming back means the name is ignored, and then the common candidates
 * are tried the same way. A 400 counts as honoured (the service read the name and refused
 * the value) unless the service also refuses a name nobody reads.
 */
async function probeFilters(
  send: (req: ProbeRequest) => Promise<Answer>,
  list: FilteredList,
  path: string,
  base: Query,
  records: number,
  preferred: ServiceChoices['filterNames'] | undefined,
): Promise<Partial<Record<string, FilterObs>>> {
  const out: Partial<Record<string, FilterObs>> = {};
  const filters = FILTERS[list] as readonly string[];
  if (records === 0) {
    for (const f of filters) out[f] = { skipped: 'no records to test with' };
    return out;
  }
  const refusesAnyName = new Map<string, boolean>();
  const test = async (name: string, value: string): Promise<'honoured' | 'ignored' | 'unclear'> => {
    const a = await send({ method: 'GET', path, query: { ...base, limit: 1, [name]: value } });
    if (a.ok) {
      const page: RawPage | undefined = readPage(a.body);
      if (!page) return 'unclear';
      return page.items.length === 0 ? 'honoured' : 'ignored';
    }
    if (a.status !== 400) return 'unclear';
    if (!refusesAnyName.has(value)) {
      const b = await send({ method: 'GET', path, query: { ...base, limit: 1, [UNKNOWN_PARAMETER]: value } });
      refusesAnyName.set(value, !b.ok && b.status === 400);
    }
    return refusesAnyName.get(value) ? 'unclear' : 'honoured';
  };
  const probes = FILTER_PROBES[list] as Record<string, FilterProbe>;
  const saved = (preferred?.[list] ?? {}) as Record<string, string | undefined>;
  for (const filter of filters) {
    const value = probes[filter]!.excluding();
    const own = await test(filter, value);
    if (own !== 'ignored') {
      out[filter] = own === 'honoured' ? { honoured: filter } : { unclear: 'the service refused the probe for a reason other than the value' };
      continue;
    }
    const tried = [filter];
    out[filter] = { ignored: tried };
    for (const name of new Set([saved[filter], ...probes[filter]!.candidates])) {
      if (!name || name === filter) continue;
      tried.push(name);
      if ((await test(name, value)) === 'honoured') {
        out[filter] = { honoured: name };
        break;
      }
    }
  }
  return out;
}
