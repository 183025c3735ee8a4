// offramp tx create. What it does when the create gets no answer, and why it can never make
// two transactions, is in docs/transactions.md ("Creating safely"). A quote made by
// `offramp quote` is remembered (src/lib/tx/quotes.ts), so its token and network are taken
// from it and a contradicting --network or --token is refused before anything is sent.
import { randomUUID } from 'node:crypto';
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import {
  ask,
  generateReference,
  MAX_REFERENCE_LENGTH,
  missingFlags,
  offrampWords,
  pasteable,
  parseIdempotencyKey,
  parseReference,
  parseSymbol,
  parseUuid,
  referenceProblem,
  textProblem,
  shellQuote,
  uuidProblem,
  validator,
} from '../../lib/input/values.js';
import { amountProblem, parseAmount } from '../../lib/money.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import type { CreateTransactionRequest } from '../../lib/schemas.js';
import { createWithRecovery } from '../../lib/tx/create.js';
import { askNetwork, askToken } from '../../lib/tx/pair.js';
import { recallQuote, type RememberedQuote } from '../../lib/tx/quotes.js';
import { examples, type OptionsOf } from '../command.js';
import { confirm } from '../../lib/config/production.js';

export const command = () =>
  new Command('create')
    .description('create a transaction and get its deposit address')
    .option('--quote <id>', 'quote mode: a quote id from `offramp quote` (its token and network are used)')
    .option('--fiat-amount <amount>', 'direct mode: amount in NGN')
    .option('--token <symbol>', 'direct mode: token, e.g. usdt (quote mode: must be the quote\'s)')
    .option('--network <network>', "deposit network (quote mode: the quote's unless it was made elsewhere)")
    .option('--ref <merchant_reference>', 'your unique reference for this transaction (required)')
    .option('--merchant-id <id>', 'merchant identifier')
    .option('--terminal-id <id>', 'terminal identifier')
    .option('--seller-phone <phone>', 'seller phone number (metadata)')
    .option('--idempotency-key <key>', 'reuse a key to retry a create safely (default: a fresh UUID)')
    .addHelpText(
      'after',
      examples(
        'offramp tx create --fiat-amount 150000 --token usdt --network bep20 --ref order-1042',
        'offramp tx create --quote 6f1c2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b --ref order-1043',
      ),
    );

/** A sane bound for a phone number (the identifiers take the emulator's, MAX_REFERENCE_LENGTH). */
const PHONE = /^\+?[0-9][0-9 ()-]{2,31}$/;

type Plan = { mode: 'quote'; quoteId: string; network: string } | { mode: 'direct'; fiat: string; token: string; network: string };

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx create'));

  // 1. Every flag that was given is checked before anything else happens.
  if (opts.quote !== undefined && opts.fiatAmount !== undefined) {
    throw new UsageError(
      'choose one pricing mode: --quote ID (quote mode) or --fiat-amount and --token (direct mode), not both',
      'a quote already fixes the token and the amount',
    );
  }
  let quoteId = opts.quote !== undefined ? parseUuid(opts.quote, '--quote') : undefined;
  let fiat = opts.fiatAmount !== undefined ? parseAmount(opts.fiatAmount, 'fiat', '--fiat-amount') : undefined;
  let token = opts.token !== undefined ? parseSymbol(opts.token, '--token') : undefined;
  let network = opts.network !== undefined ? parseSymbol(opts.network, '--network') : undefined;
  let ref = opts.ref !== undefined ? parseReference(opts.ref, '--ref') : undefined;
  const merchantId = optionalId(opts.merchantId, '--merchant-id');
  const terminalId = optionalId(opts.terminalId, '--terminal-id');
  const sellerPhone = opts.sellerPhone?.trim();
  if (sellerPhone !== undefined && !PHONE.test(sellerPhone)) throw new UsageError(`--seller-phone "${opts.sellerPhone}" is not a phone number (like +2348012345678)`);
  const key = opts.idempotencyKey !== undefined ? parseIdempotencyKey(opts.idempotencyKey) : randomUUID();
  let mode: Plan['mode'] | undefined = quoteId !== undefined ? 'quote' : fiat !== undefined || token !== undefined ? 'direct' : undefined;
  // The quote's own token and network, when `offramp quote` made it here; a flag that says
  // otherwise is refused before anything is sent.
  let quoted = quoteId !== undefined ? await quotedPair(ctx, quoteId, token, network) : undefined;
  if (quoted) network = quoted.network;

  // 2. What is missing: named all at once when nobody can be asked.
  if (!ctx.io.canPrompt()) {
    const missing = [
      ...(mode === undefined ? ['--fiat-amount', '--token'] : []),
      ...(mode === 'direct' && fiat === undefined ? ['--fiat-amount'] : []),
      ...(mode === 'direct' && token === undefined ? ['--token'] : []),
      ...(network === undefined ? ['--network'] : []),
      ...(ref === undefined ? ['--ref'] : []),
    ];
    if (missing.length > 0) {
      throw missingFlags(
        missing,
        'direct mode: --fiat-amount Y --token T --network N --ref R; quote mode: --quote ID --ref R',
      );
    }
  }
  // A missing key or profile is found before any question, not after the last one.
  await ctx.settings();

  // 3. Interactive: ask for what is missing (in the order mode, token, network, amount,
  // reference), then confirm a summary before anything is sent.
  let asked = false;
  const fill = <T>(value: T | undefined, question: () => Promise<T>): Promise<T> => {
    if (value !== undefined) return Promise.resolve(value);
    asked = true;
    return question();
  };
  mode = await fill(mode, () =>
    ask(ctx, '--fiat-amount', undefined, (p, c) =>
      p.select<Plan['mode']>(
        {
          message: 'Pricing mode',
          choices: [
            { value: 'direct', name: 'direct: an NGN amount, priced at the rate when created' },
            { value: 'quote', name: 'quote: a quote id from `offramp quote` (rate locked for 120 s)' },
          ],
          default: 'direct',
        },
        c,
      ),
    ),
  );
  let plan: Plan;
  if (mode === 'quote') {
    quoteId = await fill(quoteId, () =>
      ask(ctx, '--quote', undefined, (p, c) => p.input({ message: 'Quote id', validate: validator(uuidProblem) }, c)).then((v) => v.trim()),
    );
    quoted ??= await quotedPair(ctx, quoteId, token, network);
    network = await fill(quoted?.network ?? network, () => askNetwork(ctx, undefined));
    plan = { mode, quoteId, network };
  } else {
    token = await fill(token, () => askToken(ctx, undefined));
    network = await fill(network, () => askNetwork(ctx, undefined));
    fiat = await fill(fiat, () =>
      ask(ctx, '--fiat-amount', undefined, (p, c) =>
        p.input({ message: 'Amount in NGN', validate: validator((v) => amountProblem(v, 'fiat')) }, c),
      ).then((v) => v.trim()),
    );
    plan = { mode, fiat, token, network };
  }
  ref = await fill(ref, () =>
    ask(ctx, '--ref', undefined, (p, c) =>
      p.input({ message: 'Your reference (merchant_reference)', default: generateReference(ctx.now()), validate: validator(referenceProblem) }, c),
    ).then((v) => v.trim()),
  );

  // `rate` and `crypto_amount` are never sent: the service prices (rule 2).
  const body: CreateTransactionRequest = {
    ...(plan.mode === 'quote'
      ? { quote_id: plan.quoteId, network: plan.network }
      : { fiat_amount: plan.fiat, crypto_currency: plan.token, network: plan.network }),
    merchant_reference: ref,
    ...(merchantId !== undefined ? { merchant_id: merchantId } : {}),
    ...(terminalId !== undefined ? { terminal_id: terminalId } : {}),
    ...(sellerPhone !== undefined ? { seller_phone: sellerPhone } : {}),
  };

  if (asked) await confirmSummary(ctx, body);
  else await confirm(ctx, `create transaction ${ref}: ${plan.mode === 'quote' ? `quote ${plan.quoteId} on ${plan.network}` : `${plan.fiat} NGN paid out for ${plan.token} on ${plan.network}`}`, notCreated(ref));

  ctx.io.err(`idempotency-key: ${key}`);
  const retry = retryCommand(ctx, body, key);
  // In quote mode the request carries no token: the answer is checked against the quote's,
  // or against --token when the quote was made elsewhere.
  const quoteToken = plan.mode === 'quote' ? (quoted?.crypto_currency ?? token) : undefined;
  const { tx, recovered } = await createWithRecovery(await ctx.api(), body, key, {
    note: (line) => ctx.io.err(line),
    retry,
    keyGiven: opts.idempotencyKey !== undefined,
    ...(quoteToken !== undefined ? { token: quoteToken } : {}),
  });

  if (format === 'json') writeJson(ctx.io, tx);
  else (await import('../../lib/tx/render.js')).renderTransaction(ctx.io, tx, ctx.now(), recovered ? 'snapshot' : 'summary');
}

/** The quote's token and network when this CLI made it (src/lib/tx/quotes.ts); a flag that contradicts them is exit 2. */
async function quotedPair(ctx: Context, quoteId: string, token: string | undefined, network: string | undefined): Promise<RememberedQuote | undefined> {
  const quote = await recallQuote(ctx.env, (await ctx.settings()).baseUrl, quoteId);
  if (!quote) return undefined;
  const pair = `${quote.crypto_currency} on ${quote.network}`;
  if (network !== undefined && network !== quote.network) {
    throw new UsageError(`--network ${network} contradicts quote ${quoteId}, which is for ${pair}`, 'leave --network out: the quote fixes it');
  }
  if (token !== undefined && token !== quote.crypto_currency) {
    throw new UsageError(`--token ${token} contradicts quote ${quoteId}, which is for ${pair}`, 'leave --token out: the quote fixes it');
  }
  return quote;
}

/** The create as a command line that repeats it exactly, idempotency key included (never the API key, nor the base URL's credentials). */
function retryCommand(ctx: Context, body: CreateTransactionRequest, key: string): string {
  const q = shellQuote;
  const parts = [...offrampWords(ctx.globals), 'tx', 'create'];
  if (body.quote_id !== undefined) parts.push('--quote', body.quote_id);
  if (body.fiat_amount !== undefined) parts.push('--fiat-amount', body.fiat_amount);
  if (body.crypto_currency !== undefined) parts.push('--token', q(body.crypto_currency));
  if (body.network !== undefined) parts.push('--network', q(body.network));
  parts.push('--ref', q(body.merchant_reference));
  if (body.merchant_id !== undefined) parts.push('--merchant-id', q(body.merchant_id));
  if (body.terminal_id !== undefined) parts.push('--terminal-id', q(body.terminal_id));
  if (body.seller_phone !== undefined) parts.push('--seller-phone', q(body.seller_phone));
  parts.push('--idempotency-key', q(key));
  return pasteable(parts, ctx.globals);
}

async function confirmSummary(ctx: Context, body: CreateTransactionRequest): Promise<void> {
  const lines = [
    'about to create:',
    body.quote_id !== undefined
      ? `  pricing     quote ${body.quote_id}`
      : `  pricing     direct: ${body.fiat_amount} NGN of ${body.crypto_currency} at the rate when created`,
    `  network     ${body.network}`,
    `  reference   ${body.merchant_reference}`,
    ...(body.merchant_id !== undefined ? [`  merchant id ${body.merchant_id}`] : []),
    ...(body.terminal_id !== undefined ? [`  terminal id ${body.terminal_id}`] : []),
    ...(body.seller_phone !== undefined ? [`  seller phone ${body.seller_phone}`] : []),
  ];
  for (const line of lines) ctx.io.err(line);
  await confirm(ctx, 'Create this transaction', notCreated(body.merchant_reference), { always: true, yes: true });
}

const notCreated = (ref: string) => `transaction ${JSON.stringify(ref)} not created`;

function optionalId(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '' || v.length > MAX_REFERENCE_LENGTH) throw new UsageError(`${flag} must be 1 to ${MAX_REFERENCE_LENGTH} characters`);
  const problem = textProblem(v);
  if (problem) throw new UsageError(`${flag} ${problem}`);
  return v;
}
