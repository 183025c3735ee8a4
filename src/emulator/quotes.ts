// POST /quotes (the spec): exactly one of crypto_amount and fiat_amount; valid 120 s.
// Where the spec is silent, the choices are in docs/emulator.md ("Quotes"). A quote may back
// any number of transactions until it expires: the spec states only the expiry rule, and a
// quote is a price guarantee, not a reservation.
import { Quote, type QuoteRequest } from '../lib/schemas.js';
import { randomUUID } from 'node:crypto';
import { iso } from './clock.js';
import { badRequest } from './envelope.js';
import { checkAmount, checkPair, formatFiat, formatToken } from './pricing.js';
import type { Runtime } from './runtime.js';
import { viewOf, type PartnerState, type QuoteRecord } from './partners.js';

export const QUOTE_VALIDITY_MS = 120_000;

export function createQuote(rt: Runtime, partner: PartnerState, body: QuoteRequest): Quote {
  const hasCrypto = body.crypto_amount !== undefined;
  const hasFiat = body.fiat_amount !== undefined;
  if (hasCrypto && hasFiat) throw badRequest('provide either crypto_amount or fiat_amount, not both');
  if (!hasCrypto && !hasFiat) throw badRequest('provide either crypto_amount or fiat_amount (exactly one of them)');
  const { token, network } = checkPair(rt.config.mode, body.crypto_currency, body.network);
  const unit = hasFiat ? 'fiat' : 'token';
  const amount = hasFiat
    ? checkAmount('fiat_amount', body.fiat_amount!, 'fiat')
    : checkAmount('crypto_amount', body.crypto_amount!, 'token');
  const now = rt.clock.now();
  const record: QuoteRecord = {
    quote_id: randomUUID(),
    token,
    network,
    unit,
    amount,
    base_rate: rt.config.rates.baseText,
    adjusted_rate: rt.config.rates.adjustedText,
    expiresMs: now + QUOTE_VALIDITY_MS,
    expires_at: iso(now + QUOTE_VALIDITY_MS),
  };
  partner.quotes.set(record.quote_id, record);
  rt.journal.changed('quote', partner, record.quote_id);
  return { ...quoteOf(record), amount: unit === 'fiat' ? formatFiat(amount) : formatToken(amount) };
}

/** The API's quote: the record's fields as they are, but the amount, which is formatted for its unit. */
const quoteOf: (record: QuoteRecord) => Quote = viewOf(Quote);
