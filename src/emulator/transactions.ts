// Transactions: create (quote or direct mode), read by id and by reference, list, cancel,
// status history, and the deadline expiry. Status changes go through the lifecycle table
// in src/lib/lifecycle.ts (the one state machine); this module only applies its steps,
// writing one history row per step. Where the spec is silent, the choices are in
// docs/emulator.md ("Transactions"); a duplicate reference's 409 names the existing
// transaction because that is what timeout recovery needs.
import { randomUUID } from 'node:crypto';
import type { CreateTransactionRequest, Page, StatusHistory, Transaction } from '../lib/schemas.js';
import { TRANSACTION_STATUSES, TransactionSummary } from '../lib/schemas.js';
import type { Step } from '../lib/lifecycle.js';
import { CANCEL_STEP, CANCELLABLE, CREATED_STEP, EXPIRY_STEP } from '../lib/lifecycle.js';
import { DOT_SEGMENT, MAX_REFERENCE_LENGTH } from '../lib/input/values.js';
import { Decimal } from '../lib/money.js';
import { depositAddress } from './addresses.js';
import { iso } from './clock.js';
import { seqPage } from './cursor.js';
import { badRequest, conflict, notFound } from './envelope.js';
import type { Query } from './params.js';
import { parseEnumParam, requireUuid } from './params.js';
import { checkAmount, checkPair, fiatFor, formatFiat, formatToken, tokensFor } from './pricing.js';
import type { Runtime } from './runtime.js';
import { viewOf, type PartnerState, type TxRecord } from './partners.js';

/** the spec: the deposit deadline is 30 minutes after creation. */
export const DEPOSIT_WINDOW_MS = 30 * 60_000;
export const DEFAULT_TRANSACTIONS_LIMIT = 20;
const MAX_PHONE_LENGTH = 32;
/** Shared by every direct-mode creation row (read-only). */
const DIRECT_MODE = Object.freeze({ mode: 'direct' });

type Pricing = Pick<TxRecord, 'network' | 'crypto_currency' | 'crypto_amount' | 'rate' | 'amount' | 'quote_id'>;

/** The partner never sends these (the spec, create rule 2). */
export function refuseServiceFields(json: Record<string, unknown>): void {
  for (const field of ['rate', 'crypto_amount'] as const) {
    if (field in json) throw badRequest(`${field} is set by the service; do not send it (send fiat_amount, or a quote_id)`);
  }
}

export function createTransaction(rt: Runtime, partner: PartnerState, body: CreateTransactionRequest): TransactionSummary {
  const now = rt.clock.now();
  const pricing = body.quote_id !== undefined ? priceFromQuote(partner, body, now) : priceDirect(rt, body);
  checkLength('merchant_reference', body.merchant_reference, MAX_REFERENCE_LENGTH);
  checkLength('merchant_id', body.merchant_id, MAX_REFERENCE_LENGTH);
  checkLength('terminal_id', body.terminal_id, MAX_REFERENCE_LENGTH);
  checkLength('seller_phone', body.seller_phone, MAX_PHONE_LENGTH);
  if (body.merchant_reference.trim() === '') throw badRequest('merchant_reference must not be blank');
  if (DOT_SEGMENT.test(body.merchant_reference)) {
    throw badRequest(`merchant_reference must not be "${body.merchant_reference}": as a path segment it is folded away, so it could not be read back by reference`);
  }
  const refKey = body.merchant_reference.toLowerCase();
  const existing = partner.byReference.get(refKey);
  if (existing) {
    throw conflict(`merchant_reference ${body.merchant_reference} already exists (transaction ${existing.id})`);
  }
  const at = iso(now);
  const tx: TxRecord = {
    seq: partner.txList.length + 1,
    id: randomUUID(),
    status: CREATED_STEP.to,
    deposit_address: depositAddress(pricing.network),
    ...pricing,
    createdMs: now,
    created_at: at,
    updated_at: at,
    expiresMs: now + DEPOSIT_WINDOW_MS,
    expires_at: iso(now + DEPOSIT_WINDOW_MS),
    merchant_reference: body.merchant_reference,
    merchant_id: body.merchant_id ?? null,
    terminal_id: body.terminal_id ?? null,
    seller_phone: body.seller_phone ?? null,
    deposit: null,
    payoutSettled: false,
    history: [
      {
        from_status: CREATED_STEP.from,
        to_status: CREATED_STEP.to,
        changed_at: at,
        reason: CREATED_STEP.reason,
        metadata: pricing.quote_id ? { mode: 'quote', quote_id: pricing.quote_id } : DIRECT_MODE,
      },
    ],
  };
  partner.transactions.set(tx.id, tx);
  partner.txList.push(tx);
  partner.byReference.set(refKey, tx);
  rt.journal.changed('tx', partner, tx.id);
  rt.deadlines.push({ dueMs: tx.expiresMs, partner, tx });
  rt.webhooks.record(partner, 'transaction.created', tx.id, snapshot(tx));
  return summary(tx);
}

function priceFromQuote(partner: PartnerState, body: CreateTransactionRequest, now: number): Pricing {
  if (body.fiat_amount !== undefined) {
    throw badRequest('use either quote mode (quote_id) or direct mode (fiat_amount, crypto_currency, network), not both');
  }
  const quote = partner.quotes.get(body.quote_id!.toLowerCase());
  if (!quote) throw badRequest(`quote_id ${body.quote_id} not found`);
  // "after this instant the quote id is rejected": still valid at expires_at itself.
  if (now > quote.expiresMs) {
    throw badRequest(`quote ${quote.quote_id} expired at ${quote.expires_at} (quotes are valid 120 seconds); request a new quote`);
  }
  if (body.network !== undefined && body.network.toLowerCase() !== quote.network) {
    throw badRequest(`network ${body.network} does not match the quote's network ${quote.network}`);
  }
  if (body.crypto_currency !== undefined && body.crypto_currency.toLowerCase() !== quote.token) {
    throw badRequest(`crypto_currency ${body.crypto_currency} does not match the quote's crypto_currency ${quote.token}`);
  }
  const rate = new Decimal(quote.adjusted_rate);
  const fiat = quote.unit === 'fiat' ? quote.amount : fiatFor(quote.amount, rate);
  const tokens = quote.unit === 'token' ? quote.amount : tokensFor(quote.amount, rate, quote.token);
  return {
    network: quote.network,
    crypto_currency: quote.token,
    crypto_amount: formatToken(tokens),
    rate: quote.adjusted_rate,
    amount: formatFiat(fiat),
    quote_id: quote.quote_id,
  };
}

function priceDirect(rt: Runtime, body: CreateTransactionRequest): Pricing {
  const missing = (['fiat_amount', 'crypto_currency', 'network'] as const).filter((f) => body[f] === undefined);
  if (missing.length === 3) {
    throw badRequest('provide either quote_id (quote mode) or fiat_amount, crypto_currency and network (direct mode)');
  }
  if (missing.length > 0) throw badRequest(`direct mode needs fiat_amount, crypto_currency and network; missing ${missing.join(', ')}`);
  const { token, network } = checkPair(rt.config.mode, body.crypto_currency!, body.network!);
  const fiat = checkAmount('fiat_amount', body.fiat_amount!, 'fiat');
  // Direct mode uses the latest market rate at creation (the spec, create rule 2).
  const rate = rt.config.rates.adjusted;
  return {
    network,
    crypto_currency: token,
    crypto_amount: formatToken(tokensFor(fiat, rate, token)),
    rate: rt.config.rates.adjustedText,
    amount: formatFiat(fiat),
    quote_id: null,
  };
}

function checkLength(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) throw badRequest(`${field} is too long (at most ${max} characters)`);
}

export function findTransaction(partner: PartnerState, rawId: string): TxRecord {
  // Stored ids are valid lower-case UUIDs: a hit needs no validation, a miss is checked (400 vs 404).
  const tx = partner.transactions.get(rawId) ?? partner.transactions.get(requireUuid('id', rawId));
  if (!tx) throw notFound(`Transaction ${rawId} not found`);
  return tx;
}

export function findByReference(partner: PartnerState, reference: string): TxRecord {
  const tx = partner.byReference.get(reference.toLowerCase());
  if (!tx) throw notFound(`Transaction with merchant_reference ${reference} not found`);
  return tx;
}

export function listTransactions(partner: PartnerState, query: Query): Page<Transaction> {
  const status = parseEnumParam(query, 'status', TRANSACTION_STATUSES);
  return seqPage(partner.txList, query, {
    kind: 'tx',
    defaultLimit: DEFAULT_TRANSACTIONS_LIMIT,
    keep: (tx) => status === undefined || tx.status === status,
    view: snapshot,
  });
}

/** Cancellation is allowed from the lifecycle's CANCELLABLE statuses only; otherwise 409 naming the status. */
export function cancelTransaction(rt: Runtime, partner: PartnerState, tx: TxRecord): TransactionSummary {
  if (!(CANCELLABLE as readonly string[]).includes(tx.status)) {
    throw conflict(`Transaction cannot be cancelled in status ${tx.status}`);
  }
  applySteps(tx, [CANCEL_STEP], { source: 'partner' }, rt.clock.now());
  rt.journal.changed('tx', partner, tx.id);
  return summary(tx);
}

export function statusHistory(tx: TxRecord): StatusHistory {
  return { id: tx.id, status: tx.status, history: tx.history };
}

export function applySteps(tx: TxRecord, steps: readonly Step[], metadata: Record<string, unknown> | null, now: number): void {
  const at = iso(now);
  for (const step of steps) {
    tx.history.push({ from_status: tx.status, to_status: step.to, changed_at: at, reason: step.reason, metadata });
    tx.status = step.to;
  }
  tx.updated_at = at;
}

/** A passed deposit deadline expires the transaction if it still waits for its deposit (docs/emulator.md, "Lifecycle"). */
export function expireDue(rt: Runtime, now: number): number {
  let expired = 0;
  for (const { partner, tx } of rt.deadlines.popDue(now)) {
    // A reset or an import replaced the partner: its deadlines went with it.
    if (partner.detached) continue;
    if (tx.status !== 'awaiting_deposit' && tx.status !== 'pending') continue;
    applySteps(tx, [EXPIRY_STEP], { trigger: 'deadline', expires_at: tx.expires_at }, now);
    rt.journal.changed('tx', partner, tx.id);
    rt.webhooks.record(partner, 'transaction.expired', tx.id, snapshot(tx));
    expired++;
  }
  return expired;
}

/** The create and cancel answers' subset (the spec), which a TxRecord holds as it is. */
export const summary: (tx: TxRecord) => TransactionSummary = viewOf(TransactionSummary);

/** The full snapshot; optional fields are always present (null when unknown) so the shape never varies. */
export function snapshot(tx: TxRecord): Transaction {
  const d = tx.deposit;
  return {
    id: tx.id,
    deposit_address: tx.deposit_address,
    network: tx.network,
    expires_at: tx.expires_at,
    status: tx.status,
    crypto_currency: tx.crypto_currency,
    crypto_amount: tx.crypto_amount,
    rate: tx.rate,
    amount: tx.amount,
    deposit_status: d ? d.status : null,
    created_at: tx.created_at,
    updated_at: tx.updated_at,
    confirmations: d ? d.confirmations : null,
    confirmed_at: d ? d.confirmed_at : null,
    deposit_id: d ? d.deposit_id : null,
    merchant_id: tx.merchant_id,
    merchant_reference: tx.merchant_reference,
    received_at: d ? d.received_at : null,
    required_confirmations: d ? d.required_confirmations : null,
    terminal_id: tx.terminal_id,
  };
}
