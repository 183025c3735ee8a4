// Which transaction a command is about (docs/transactions.md, "Naming a transaction"): a
// whole id, a short id or `--ref REF`, exactly one, checked before any request. Every
// command that takes a transaction goes through here, so they all accept the same forms.
import { transactionById, transactionByReference } from '../client/checked-calls.js';
import type { Api } from '../client/api.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { ask, parseReference, shellQuote, validator } from '../input/values.js';
import type { Transaction } from '../schemas.js';
import { findByPrefix, idOrPrefixProblem, parseIdOrPrefix } from './short-id.js';

export type Target = { id: string } | { prefix: string } | { ref: string };

export type TargetFlags = {
  /** How the positional argument is named in messages ("ID", "TX_ID", "--tx"). */
  name?: string;
  /** The prompt's question when it is missing. */
  message?: string;
  /** Whether a missing transaction is fine (the caller then gets undefined). */
  optional?: boolean;
};

/** The target as given; a missing one asked for on a terminal, or exit 2. Sends nothing. */
export async function resolveTarget(ctx: Pick<Context, 'io' | 'prompts'>, id: string | undefined, ref: string | undefined, flags?: TargetFlags & { optional?: false }): Promise<Target>;
export async function resolveTarget(ctx: Pick<Context, 'io' | 'prompts'>, id: string | undefined, ref: string | undefined, flags: TargetFlags & { optional: true }): Promise<Target | undefined>;
export async function resolveTarget(ctx: Pick<Context, 'io' | 'prompts'>, id: string | undefined, ref: string | undefined, flags: TargetFlags = {}): Promise<Target | undefined> {
  const name = flags.name ?? 'ID';
  if (id !== undefined && ref !== undefined) {
    throw new UsageError(`give either a transaction ${name} or --ref, not both`);
  }
  if (ref !== undefined) return { ref: parseReference(ref, '--ref') };
  if (id !== undefined) {
    try {
      return parseIdOrPrefix(id, name);
    } catch (err) {
      // Not even the head of an id (`tx get order-1`): most likely the transaction's reference.
      throw err instanceof UsageError && !/^[\s0-9a-f{}-]*$/i.test(id) ? err.withHint(`did you mean --ref ${shellQuote(id.trim())}? A reference is given with --ref`) : err;
    }
  }
  if (flags.optional) return undefined;
  const asked = await ask(ctx, `${name} (or --ref MERCHANT_REFERENCE)`, undefined, (p, c) =>
    p.input({ message: flags.message ?? 'Transaction id', validate: validator(idOrPrefixProblem) }, c),
  );
  return parseIdOrPrefix(asked, name);
}

/** The whole id of a transaction named by a short id, among those the service lists first. */
export function idFromPrefix(api: Api, prefix: string): Promise<string> {
  return findByPrefix(prefix, {
    what: 'transaction',
    records: api.transactions.all({}),
    idOf: (tx) => tx.id,
    describe: (tx) => [tx.merchant_reference ?? 'no reference', tx.status, tx.created_at].join(', '),
    listCommand: 'offramp tx list',
  });
}

/** The whole id of a webhook event named by a short id, among those the service lists first. */
export function eventIdFromPrefix(api: Api, prefix: string): Promise<string> {
  return findByPrefix(prefix, {
    what: 'webhook event',
    records: api.webhooks.all({}),
    idOf: (e) => e.event_id,
    describe: (e) => `${e.event_type}, transaction ${e.aggregate_id}, ${e.created_at}`,
    listCommand: 'offramp webhooks list',
  });
}

/** The target's whole id: as given, found by prefix, or read by reference. */
export async function targetId(ctx: Pick<Context, 'api'>, target: Target): Promise<string> {
  if ('id' in target) return target.id;
  const api = await ctx.api();
  if ('prefix' in target) return idFromPrefix(api, target.prefix);
  return (await transactionByReference(api, target.ref)).id;
}

/** The full snapshot, by id, short id or reference; an answer about another transaction is an error. */
export async function fetchTarget(ctx: Pick<Context, 'api'>, target: Target): Promise<Transaction> {
  const api = await ctx.api();
  if ('ref' in target) return transactionByReference(api, target.ref);
  return transactionById(api, 'id' in target ? target.id : await idFromPrefix(api, target.prefix));
}

/**
 * A transaction given as a filter (`--tx ID` or `--ref R`, neither required): its whole id,
 * or undefined when neither was given. The flags are checked before anything is sent.
 */
export async function filterTransactionId(ctx: Pick<Context, 'io' | 'prompts' | 'api'>, id: string | undefined, ref: string | undefined): Promise<string | undefined> {
  const target = await resolveTarget(ctx, id, ref, { name: '--tx', optional: true });
  return target ? targetId(ctx, target) : undefined;
}
