// Prices and pairs: which token/network pairs a mode accepts, the market rate and the
// spread that makes the executable rate, and how amounts are derived and rounded. Every
// number here is a "not shown" of the spec; docs/emulator.md lists them.
import { Decimal, divide, FIAT_DECIMALS, MAX_INTEGER_DIGITS, TOKEN_DECIMALS } from '../lib/money.js';
import { SANDBOX_PAIR } from '../lib/vocabulary.js';
import { badRequest } from './envelope.js';
import type { Mode } from './types.js';

/** Default market rate, NGN per token (a plausible USDT/NGN figure; override with --rate). */
export const DEFAULT_RATE = '1550.00';

/** adjusted_rate = base_rate × (1 − SPREAD), rounded down: the partner never gets more than the market. */
export const SPREAD = new Decimal('0.005');

/** Derived token amounts carry 6 decimals, enough for USDT/USDC and short to read. */
export const DERIVED_TOKEN_PLACES = 6;

/** the spec, Limits: sandbox pair is usdt on bep20 only. */
export const STAGING_PAIRS: Record<string, readonly string[]> = { [SANDBOX_PAIR.crypto_currency]: [SANDBOX_PAIR.network] };
/** Production mode accepts a small set of common stablecoin pairs (the spec names none). */
export const PRODUCTION_PAIRS: Record<string, readonly string[]> = {
  usdt: ['bep20', 'trc20', 'erc20', 'polygon'],
  usdc: ['bep20', 'erc20', 'polygon'],
};

/** Confirmations needed for final crediting, per network (typical exchange figures). */
export const REQUIRED_CONFIRMATIONS: Record<string, number> = { bep20: 15, erc20: 12, trc20: 20, polygon: 64 };

/** The rates, and their wire form computed once (they do not move while the emulator runs). */
export type Rates = { base: Decimal; adjusted: Decimal; baseText: string; adjustedText: string };

export function ratesFrom(rate: string): Rates {
  const base = new Decimal(rate).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN);
  const adjusted = base.times(Decimal.sub(1, SPREAD)).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN);
  return { base, adjusted, baseText: formatFiat(base), adjustedText: formatFiat(adjusted) };
}

/** Checks a token/network pair for the mode; both are compared and stored lower-case. */
export function checkPair(mode: Mode, token: string, network: string): { token: string; network: string } {
  const pair = { token: token.toLowerCase(), network: network.toLowerCase() };
  if (mode === 'staging') {
    if (!STAGING_PAIRS[pair.token]?.includes(pair.network)) {
      throw badRequest(
        `sandbox transactions are limited to crypto_currency usdt on network bep20 (got ${token} on ${network})`,
      );
    }
    return pair;
  }
  if (!PRODUCTION_PAIRS[pair.token]?.includes(pair.network)) {
    const supported = Object.entries(PRODUCTION_PAIRS)
      .map(([t, networks]) => `${t} on ${networks.join('/')}`)
      .join(', ');
    throw badRequest(`unsupported pair ${token} on ${network}; supported: ${supported}`);
  }
  return pair;
}

/** A positive amount within the decimals its unit allows; answers the normalised Decimal. */
export function checkAmount(field: string, value: string, unit: 'fiat' | 'token'): Decimal {
  const [integer = '', fraction = ''] = value.replace(/^-/, '').split('.');
  const amount = new Decimal(value);
  if (amount.lte(0)) throw badRequest(`${field} must be greater than zero`);
  const places = unit === 'fiat' ? FIAT_DECIMALS : TOKEN_DECIMALS;
  if (fraction.length > places) {
    throw badRequest(`${field} has ${fraction.length} decimal places; ${unit === 'fiat' ? 'NGN' : 'token'} amounts take at most ${places}`);
  }
  if (integer.replace(/^0+/, '').length > MAX_INTEGER_DIGITS) throw badRequest(`${field} is too large`);
  return amount;
}

export function formatFiat(amount: Decimal): string {
  return amount.toFixed(FIAT_DECIMALS);
}

/** Token amounts: at least 6 decimals, more when the partner sent more. */
export function formatToken(amount: Decimal): string {
  return amount.toFixed(Math.max(DERIVED_TOKEN_PLACES, amount.decimalPlaces()));
}

/** Tokens bought by a fiat amount: rounded DOWN to 6 places, so the service never owes more than it priced. */
export function tokensFor(fiat: Decimal, rate: Decimal, token: string): Decimal {
  const tokens = divide(fiat, rate, DERIVED_TOKEN_PLACES, Decimal.ROUND_DOWN).value;
  if (tokens.isZero()) throw badRequest(`fiat_amount is too small: it buys less than 0.000001 ${token}`);
  return tokens;
}

/** NGN paid for a token amount: rounded DOWN to kobo, for the same reason. */
export function fiatFor(tokens: Decimal, rate: Decimal): Decimal {
  const fiat = tokens.times(rate).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN);
  if (fiat.isZero()) throw badRequest('crypto_amount is too small: it is worth less than 0.01 NGN');
  return fiat;
}

export function pairsFor(mode: Mode): { token: string; network: string }[] {
  const table = mode === 'staging' ? STAGING_PAIRS : PRODUCTION_PAIRS;
  return Object.entries(table).flatMap(([token, networks]) => networks.map((network) => ({ token, network })));
}
