// Which transaction a command is about: a positional id or `--ref`, exactly one of them,
// checked before any request; asked for when missing and the session is interactive.
import { transactionById, transactionByReference } from '../client/checked-calls.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { ask, parseReference, parseUuid, uuidProblem, validator } from '../input/values.js';
import type { Transaction } from '../schemas.js';

export type Target = { id: string } | { ref: string };

export async function resolveTarget(ctx: Context, id: string | undefined, ref: string | undefined): Promise<Target> {
  if (id !== undefined && ref !== undefined) {
    throw new UsageError('give either a transaction ID or --ref, not both');
  }
  if (ref !== undefined) return { ref: parseReference(ref, '--ref') };
  if (id !== undefined) return { id: parseUuid(id, 'ID') };
  const asked = await ask(ctx, 'ID (or --ref MERCHANT_REFERENCE)', undefined, (p, c) =>
    p.input({ message: 'Transaction id', validate: validator(uuidProblem) }, c),
  );
  return { id: asked.trim() };
}

/** The full snapshot, by id or by reference; an answer about another transaction is an error. */
export async function fetchTarget(ctx: Context, target: Target): Promise<Transaction> {
  const api = await ctx.api();
  return 'id' in target ? transactionById(api, target.id) : transactionByReference(api, target.ref);
}
