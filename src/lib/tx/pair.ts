// The token and network of a quote or a direct-mode create, asked for with the staging
// pair preselected (the spec, Limits: sandbox is usdt on bep20). Flags are parsed
// by the command first (parseSymbol), so a bad flag fails before any question is asked.
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import { ask } from '../input/values.js';
import { SANDBOX_PAIR } from '../vocabulary.js';

const { crypto_currency: STAGING_TOKEN, network: STAGING_NETWORK } = SANDBOX_PAIR;

/** Choices offered at the prompt, the staging pair first; any other pair is typed as flags. */
const TOKENS = ['usdt', 'usdc'];
const NETWORKS = ['bep20', 'trc20', 'erc20', 'polygon'];

const choice = (value: string, staging: string) => ({ value, name: value === staging ? `${value} (staging)` : value });

/** The token: the parsed flag, or a question (usdt preselected), or exit 2 naming --token. */
export function askToken(ctx: Context, parsed: string | undefined, flag = '--token'): Promise<string> {
  return ask(ctx, flag, parsed, (p, context) =>
    p.select({ message: 'Token', choices: TOKENS.map((t) => choice(t, STAGING_TOKEN)), default: STAGING_TOKEN }, context),
  );
}

/** The network: the parsed flag, or a question (bep20 preselected), or exit 2 naming --network. */
export function askNetwork(ctx: Context, parsed: string | undefined, flag = '--network'): Promise<string> {
  return ask(ctx, flag, parsed, (p, context) =>
    p.select({ message: 'Network', choices: NETWORKS.map((n) => choice(n, STAGING_NETWORK)), default: STAGING_NETWORK }, context),
  );
}

/** A 400 for a pair other than the staging one is, on staging, the sandbox rule: say so (never a refusal made here). */
export function explainPair(err: unknown, token: string, network: string): unknown {
  if (err instanceof ApiError && err.status === 400 && !(token === STAGING_TOKEN && network === STAGING_NETWORK)) {
    return err.withHint(`staging (sandbox) accepts only --token ${STAGING_TOKEN} --network ${STAGING_NETWORK}`);
  }
  return err;
}
