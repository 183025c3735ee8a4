// The API calls whose answers are checked against the request (docs/api.md, "Answers"):
// one function per resource, used by every command and by the sandbox walk, so no caller
// can forget the check.
import type { Api } from './api.js';
import type { Window } from '../input/dates.js';
import { CliError, EXIT } from '../errors.js';
import { shellQuote } from '../input/values.js';
import { decimalEquals } from '../money.js';
import type {
  CreateTransactionRequest,
  ReplayResult,
  RevenueRow,
  RevenueSummary,
  StatusHistory,
  Transaction,
  TransactionSummary,
  WebhookEvent,
} from '../schemas.js';

/** The service answered, but about something other than what was asked. */
export class AnswerMismatch extends CliError {
  constructor(message: string, hint: string, readonly requestId?: string) {
    super(message, 'ANSWER_MISMATCH', EXIT.failure, hint);
  }
}

/** What the client layer hands back: the data, and the request id to quote. */
type Answer<T> = { data: T; requestId?: string | undefined };

const MIXED_UP =
  'the service (or a cache or proxy in front of it) answered another request than the one sent; nothing of that answer was used. --verbose shows the request ids to report';

/** Ids are hexadecimal, written in either case. */
const sameId = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** merchant_reference is "compared case-insensitively" (the spec). */
const sameReference = (a: string | null | undefined, b: string): boolean => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

const shownReference = (ref: string | null | undefined) => (typeof ref === 'string' ? JSON.stringify(ref) : 'none');

/** The answer about `id` (a transaction's `id`, an event's `event_id`), or an AnswerMismatch saying what `question` got instead. */
export function answerAbout<T extends { id: string } | { event_id: string }>(answer: Answer<T>, id: string, question: string, hint = MIXED_UP, about: 'transaction' | 'event' = 'transaction'): T {
  const got = (answer.data as Record<string, string>)[about === 'event' ? 'event_id' : 'id']!;
  if (!sameId(got, id)) throw new AnswerMismatch(`${question} ${id}, and the service answered about ${about} ${got}`, hint, answer.requestId);
  return answer.data;
}

// ---------------------------------------------------------------- transactions

/** GET /transactions/{id}: the snapshot of that transaction. */
export async function transactionById(api: Api, id: string): Promise<Transaction> {
  return answerAbout(await api.transactions.get(id), id, 'asked for transaction');
}

/** GET /transactions/reference/{ref}: the snapshot of the transaction with that reference. */
export async function transactionByReference(api: Api, ref: string): Promise<Transaction> {
  const answer = await api.transactions.byReference(ref);
  const got = answer.data.merchant_reference;
  if (!sameReference(got, ref)) {
    throw new AnswerMismatch(
      `asked for the transaction with reference ${JSON.stringify(ref)}, and the service answered with transaction ${answer.data.id}, whose reference is ${shownReference(got)}`,
      MIXED_UP,
      answer.requestId,
    );
  }
  return answer.data;
}

/** GET /transactions/{id}/status-history: that transaction's history. */
export async function statusHistory(api: Api, id: string): Promise<StatusHistory> {
  return answerAbout(await api.transactions.history(id), id, 'asked for the status history of transaction');
}

/** POST /sandbox/simulate: the snapshot of the transaction the event was sent for. */
export async function simulateEvent(api: Api, body: Parameters<Api['sandbox']['simulate']>[0]): Promise<Transaction> {
  return answerAbout(await api.sandbox.simulate(body), body.transaction_id, `sent ${body.event} for transaction`);
}

/**
 * POST /transactions/{id}/cancel: the spec answers with that transaction, status
 * `cancelled`. Another transaction, or another status, leaves this one's fate unknown.
 */
export async function cancelTransaction(api: Api, id: string, key: string): Promise<{ data: TransactionSummary; message: string | null | undefined }> {
  const answer = await api.transactions.cancel(id, key);
  const look = `\`offramp tx get ${id}\` shows whether it was cancelled`;
  const data = answerAbout(answer, id, 'asked to cancel transaction', `${MIXED_UP}; ${look}`);
  if (data.status !== 'cancelled') {
    throw new AnswerMismatch(
      `asked to cancel transaction ${id}; the service answered 2xx, but with status ${data.status}, not cancelled`,
      look,
      answer.requestId,
    );
  }
  return { data, message: answer.message };
}

/**
 * Where a create's answer differs from what was asked: reference, network, and in direct
 * mode the token and NGN amount.
 *
 * In quote mode the request carries no token or amount (the quote fixed them), the answer
 * carries no quote id, and the spec offers no read of a quote: only the reference and
 * the network can be compared, plus the token when the caller knows what the quote was
 * for (`token`: the walk made its quote itself). A quote's `amount` has no unit in the
 * spec, so it is never compared with the transaction's.
 */
export function createDifferences(tx: TransactionSummary, body: CreateTransactionRequest, token = body.crypto_currency): string[] {
  const out: string[] = [];
  if (!sameReference(tx.merchant_reference, body.merchant_reference)) {
    out.push(`reference ${shownReference(tx.merchant_reference)}, not ${JSON.stringify(body.merchant_reference)}`);
  }
  if (body.network !== undefined && tx.network.toLowerCase() !== body.network.toLowerCase()) out.push(`network ${tx.network}, not ${body.network}`);
  if (token !== undefined && tx.crypto_currency.toLowerCase() !== token.toLowerCase()) out.push(`token ${tx.crypto_currency}, not ${token}`);
  if (body.fiat_amount !== undefined && !decimalEquals(tx.amount, body.fiat_amount)) out.push(`amount ${tx.amount} NGN, not ${body.fiat_amount}`);
  return out;
}

/**
 * POST /transactions: the answer must be the transaction this request asked for. A
 * service that keeps an Idempotency-Key replays the first request's answer to any later
 * request with that key, so an answer for another reference, pair or amount most likely
 * means the key was used before, for another request.
 */
export function checkCreated(answer: Answer<TransactionSummary>, body: CreateTransactionRequest, key: string, token?: string): TransactionSummary {
  const differences = createDifferences(answer.data, body, token);
  if (differences.length === 0) return answer.data;
  const ref = body.merchant_reference;
  throw new AnswerMismatch(
    `the create for reference ${JSON.stringify(ref)} was answered with transaction ${answer.data.id}: ${differences.join('; ')}. The Idempotency-Key ${key} may have been used for another request`,
    `nothing was shown as created; run again with a fresh --idempotency-key (or none). \`offramp tx get --ref ${shellQuote(ref)}\` shows whether ${JSON.stringify(ref)} exists`,
    answer.requestId,
  );
}

// ---------------------------------------------------------------- webhook events

/** GET /webhooks/events/{event_id}: that event's delivery telemetry. */
export async function webhookEvent(api: Api, eventId: string): Promise<WebhookEvent> {
  return answerAbout(await api.webhooks.get(eventId), eventId, 'asked for webhook event', MIXED_UP, 'event');
}

/** POST /webhooks/events/{event_id}/replay: the spec keeps the event id on a replay. */
export async function replayEvent(api: Api, eventId: string): Promise<ReplayResult> {
  const hint = `a replay keeps the event's id (the spec), so whether ${eventId} was requeued is unknown; \`offramp webhooks get ${eventId}\` shows its delivery`;
  return answerAbout(await api.webhooks.replay(eventId), eventId, 'asked to replay webhook event', hint, 'event');
}

// ---------------------------------------------------------------- revenue

/**
 * A summary must be of the window asked for. Compared to the second: a service may write
 * date-times without a fraction, and a window's inclusive end is asked as `…:59.999Z`.
 */
export function checkSummaryWindow(summary: RevenueSummary, window: Window, requestId?: string): RevenueSummary {
  const second = (ms: number) => Math.floor(ms / 1000);
  const same = (shown: string, asked: Date) => second(Date.parse(shown)) === second(asked.getTime());
  if (!same(summary.from, window.from) || !same(summary.to, window.to)) {
    throw new AnswerMismatch(
      `asked for the revenue summary of ${window.from.toISOString()} … ${window.to.toISOString()}, and the service answered with the summary of ${summary.from} … ${summary.to}`,
      'its totals are for another window, so they were not shown; the service may not have read from/to as sent',
      requestId,
    );
  }
  return summary;
}

/** A ledger row must lie in the window asked for (bounds inclusive, the spec: GET /revenue). */
export function checkRowInWindow(row: RevenueRow, window: Window): RevenueRow {
  const ts = Date.parse(row.ts);
  if (!(ts >= window.from.getTime() && ts <= window.to.getTime())) {
    throw new AnswerMismatch(
      `asked for ledger rows of ${window.from.toISOString()} … ${window.to.toISOString()}, and the service returned one stamped ${row.ts} (transaction ${row.transaction_id})`,
      'totals summed from such rows would count another window; the service may not have read from/to as sent',
    );
  }
  return row;
}
