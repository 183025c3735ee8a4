// offramp quote (docs/transactions.md, "offramp quote").
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { missingFlags, parseSymbol } from '../lib/input/values.js';
import { parseAmount } from '../lib/money.js';
import { writeJson } from '../lib/output/json.js';
import { formatsOf, resolveFormat } from '../lib/output/format.js';
import type { QuoteRequest } from '../lib/schemas.js';
import { estimate, otherSide } from '../lib/tx/estimate.js';
import { askNetwork, askToken, explainPair } from '../lib/tx/pair.js';
import { rememberQuote } from '../lib/tx/quotes.js';
import { examples, type OptionsOf } from './command.js';

export const command = () =>
  new Command('quote')
    .description('get a rate quote (valid 120 s) for a token amount or an NGN amount')
    .option('--token <symbol>', 'token, e.g. usdt')
    .option('--network <network>', 'deposit network, e.g. bep20')
    .option('--crypto-amount <amount>', 'amount in token units')
    .option('--fiat-amount <amount>', 'amount in NGN')
    .addHelpText(
      'after',
      examples('offramp quote --token usdt --network bep20 --fiat-amount 150000', 'offramp quote --token usdt --network bep20 --crypto-amount 100 --json'),
    );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('quote'));
  // Exactly one amount (the spec, POST /quotes). Neither is refused here too, rather
  // than prompted for: which amount to price is the one choice a quote is about.
  if (opts.cryptoAmount !== undefined && opts.fiatAmount !== undefined) {
    throw new UsageError('give either --crypto-amount or --fiat-amount, not both', 'a quote prices one amount: token units or NGN');
  }
  if (opts.cryptoAmount === undefined && opts.fiatAmount === undefined) {
    throw new UsageError('give one of --crypto-amount (token units) or --fiat-amount (NGN)', 'e.g. offramp quote --token usdt --network bep20 --fiat-amount 150000');
  }
  const amount =
    opts.fiatAmount !== undefined
      ? { fiat_amount: parseAmount(opts.fiatAmount, 'fiat', '--fiat-amount') }
      : { crypto_amount: parseAmount(opts.cryptoAmount!, 'token', '--crypto-amount') };
  let token = opts.token !== undefined ? parseSymbol(opts.token, '--token') : undefined;
  let network = opts.network !== undefined ? parseSymbol(opts.network, '--network') : undefined;
  if (!ctx.io.canPrompt()) {
    const missing = [...(token === undefined ? ['--token'] : []), ...(network === undefined ? ['--network'] : [])];
    if (missing.length > 0) throw missingFlags(missing, 'staging accepts --token usdt --network bep20');
  }
  token = await askToken(ctx, token);
  network = await askNetwork(ctx, network);

  const body: QuoteRequest = { crypto_currency: token, network, ...amount };
  const api = await ctx.api();
  let quote;
  try {
    quote = (await api.quotes.create(body)).data;
  } catch (err) {
    throw explainPair(err, token, network);
  }

  // Remembered for `tx create --quote`, which then takes the token and network from it.
  const { baseUrl } = await ctx.settings();
  await rememberQuote(ctx.env, { quote_id: quote.quote_id, crypto_currency: token, network, expires_at: quote.expires_at, base_url: baseUrl }, ctx.now(), (line) => ctx.io.err(line));

  // --json: the API's data, and the other side as computed here under `estimate` (the
  // quote carries no such figure; docs/transactions.md).
  const computed = estimate(amount, quote.adjusted_rate);
  if (format === 'json') return writeJson(ctx.io, computed ? { ...quote, estimate: computed } : quote);
  const [{ renderRecord }, { deadlineCell }] = await Promise.all([import('../lib/output/render.js'), import('../lib/tx/render.js')]);
  const now = ctx.now();
  const unit = 'fiat_amount' in amount ? 'NGN' : token.toUpperCase();
  const per = `NGN per ${token.toUpperCase()}`;
  renderRecord(ctx.io, [
    {
      fields: [
        ['quote id', quote.quote_id],
        ['base rate', `${quote.base_rate} ${per}`],
        ['adjusted rate', `${quote.adjusted_rate} ${per}`],
        // The spec leaves the unit of `amount` open; it is labelled with the unit we priced.
        ['amount', `${quote.amount} ${unit}`],
        otherSide(amount, quote.adjusted_rate, token),
        ['expires', deadlineCell(quote.expires_at, now)],
      ],
    },
  ]);
  ctx.io.err(`next: offramp tx create --quote ${quote.quote_id} --ref YOUR_REFERENCE (before it expires; token and network come from the quote)`);
}
