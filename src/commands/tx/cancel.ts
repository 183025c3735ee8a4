// offramp tx cancel (docs/transactions.md). The Idempotency-Key is printed so a cancel that got
// no answer can be retried as the same intent. A 409 on a transaction already cancelled is what
// the user wanted: exit 0 with a notice (as gh's "already closed").
import { randomUUID } from 'node:crypto';
import { Argument, Command } from '@commander-js/extra-typings';
import { cancelTransaction, transactionById } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { ApiError, CliError, EXIT } from '../../lib/errors.js';
import { offrampWords, parseIdempotencyKey, pasteable, shellQuote } from '../../lib/input/values.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { TRANSACTION_STATUSES } from '../../lib/vocabulary.js';
import type { Transaction, TransactionSummary } from '../../lib/schemas.js';
import { describe, resultUnknown } from '../../lib/tx/errors.js';
import { resolveTarget, targetId } from '../../lib/tx/lookup.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { confirm } from '../../lib/config/production.js';

export const command = () =>
  withArguments(new Command('cancel'), new Argument('[id]', 'transaction id or its first 8+ characters (asked for on a terminal when left out)'))
    .description('cancel a transaction that has not received a deposit')
    .option('--ref <merchant_reference>', 'by merchant reference instead')
    .option('--idempotency-key <key>', 'reuse a key to retry a cancel safely (default: a fresh UUID)')
    .addHelpText('after', examples('offramp tx cancel 0b6f3c1e', 'offramp tx cancel --ref order-1042 --yes'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx cancel'));
  const target = await resolveTarget(ctx, opts.id, opts.ref, { message: 'Transaction id to cancel' });
  const key = opts.idempotencyKey !== undefined ? parseIdempotencyKey(opts.idempotencyKey) : randomUUID();
  const id = await targetId(ctx, target);
  await confirm(ctx, `cancel transaction ${id}`, `transaction ${id} not cancelled`, { always: ctx.io.canPrompt() });
  ctx.io.err(`idempotency-key: ${key}`);

  const api = await ctx.api();
  let answer: { data: TransactionSummary | Transaction; message: string | null | undefined };
  try {
    answer = await cancelTransaction(api, id, key);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409)) throw rethrow(ctx, id, key, err);
    // The transaction as it is now tells "already cancelled" from "too late" (undefined when it cannot be read).
    const current = await transactionById(api, id).catch(() => undefined);
    if (current?.status !== 'cancelled') throw withStatus(id, err, current?.status);
    answer = { data: current, message: `transaction ${id} is already cancelled; nothing to do` };
  }
  if (answer.message) ctx.io.err(answer.message);
  if (format === 'json') writeJson(ctx.io, answer.data);
  else (await import('../../lib/tx/render.js')).renderTransaction(ctx.io, answer.data, ctx.now(), 'summary');
}

/** A cancel that got no answer says how to retry it as the same intent, at the same service (as a create does); other errors pass. */
function rethrow(ctx: Context, id: string, key: string, err: unknown): unknown {
  if (!resultUnknown(err)) return err;
  const retry = [...offrampWords(ctx.globals), 'tx', 'cancel', id, '--idempotency-key', shellQuote(key), '--yes'];
  return new CliError(
    `no answer to the cancel (${describe(err)}), so whether it happened is unknown; retry safely with: ${pasteable(retry, ctx.globals)}`,
    'OUTCOME_UNKNOWN',
    EXIT.network,
    `the same --idempotency-key repeats the same cancellation; \`offramp tx get ${id}\` shows the status`,
  );
}

/**
 * The contract wants the current status in a 409's message. The emulator's message names
 * it; when a service's does not, the status read is added.
 */
function withStatus(id: string, err: ApiError, status: string | undefined): ApiError {
  const hint = `it has moved past the point where it can be cancelled; \`offramp tx history ${id}\` shows how`;
  const named = TRANSACTION_STATUSES.some((s) => new RegExp(`\\b${s}\\b`).test(err.message));
  if (!named && status !== undefined) Object.defineProperty(err, 'message', { value: `${err.message} (current status: ${status})`, configurable: true });
  return err.withHint(hint);
}
