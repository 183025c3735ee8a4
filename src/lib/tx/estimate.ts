// What a quote implies for the other side of the trade, at its adjusted rate
// (docs/transactions.md, "`offramp quote`"). The CLI computes it, so it is shown with `≈`,
// rounded down, never promising more than the rate gives.
import { Decimal, divide, FIAT_DECIMALS, TOKEN_DECIMALS } from '../money.js';

/** Decimals a token's amount is shown with: 6, as the service derives USDT and USDC amounts (any other token too). */
const SHOWN_TOKEN_DECIMALS = 6;

export type Priced = { fiat_amount: string } | { crypto_amount: string };
/** The other side as the CLI computed it, named as the transaction names it (`crypto_amount`, `amount` in NGN). */
export type Estimate = { crypto_amount: string } | { amount: string };

/** The other side at `adjustedRate`; undefined when the rate is zero (no tokens buy anything). */
export function estimate(priced: Priced, adjustedRate: string): Estimate | undefined {
  const rate = new Decimal(adjustedRate);
  if ('fiat_amount' in priced) {
    if (rate.isZero()) return undefined;
    return { crypto_amount: divide(priced.fiat_amount, rate, TOKEN_DECIMALS, Decimal.ROUND_DOWN).value.toFixed() };
  }
  return { amount: new Decimal(priced.crypto_amount).times(rate).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN).toFixed(FIAT_DECIMALS) };
}

/** The record's line for the other side: `to send ≈ 97.260496 USDT for 150000 NGN`, or `paid out ≈ 154225.00 NGN for 100 USDT`. */
export function otherSide(priced: Priced, adjustedRate: string, token: string): [string, string] {
  const unit = token.toUpperCase();
  const e = estimate(priced, adjustedRate);
  if ('fiat_amount' in priced) {
    const shown = e && 'crypto_amount' in e ? new Decimal(e.crypto_amount).toDecimalPlaces(SHOWN_TOKEN_DECIMALS, Decimal.ROUND_DOWN).toFixed(SHOWN_TOKEN_DECIMALS) : '—';
    return ['to send', `≈ ${shown} ${unit} for ${priced.fiat_amount} NGN`];
  }
  return ['paid out', `≈ ${e && 'amount' in e ? e.amount : '—'} NGN for ${priced.crypto_amount} ${unit}`];
}
