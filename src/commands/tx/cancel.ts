// offramp tx cancel ID [--idempotency-key K]
// Asks first on a terminal (always on a production profile, unless --yes). The
// Idempotency-Key is printed so a cancel that got no answer can be retried as the same
// intent. A 409 (status no longer cancellable) exits 5 naming the current status.
import { randomUUID } from 'node:crypto';
import { Argument, Command } from '@commander-js/extra-typings';
import { cancelTransaction, transactionById } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { ApiError, CliError, EXIT } from '../../lib/errors.js';
import { parseIdempotencyKey, shellQuote, uuidArgument } from '../../lib/input/values.js';
import { resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { TRANSACTION_STATUSES } from '../../lib/vocabulary.js';
import { describe, outcomeUnknown } from '../../lib/tx/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('cancel'), new Argument('[id]', 'transaction id (asked for on a terminal when left out)'))
    .description('cancel a transaction that has not received a deposit')
    .option('--idempotency-key <key>', 'reuse a key to retry a cancel safely (default: a fresh UUID)')
    .addHelpText('after', examples('offramp tx cancel 0b6f…91', 'offramp tx cancel 0b6f…91 --yes'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals);
  const id = await uuidArgument(ctx, opts.id, 'ID', 'Transaction id to cancel');
  const key = opts.idempotencyKey !== undefined ? parseIdempotencyKey(opts.idempotencyKey) : randomUUID();
  await ctx.confirm(`cancel transaction ${id}`, `transaction ${id} not cancelled`, { always: ctx.io.canPrompt() });
  ctx.io.err(`idempotency-key: ${key}`);

  const api = await ctx.api();
  let answer;
  try {
    answer = await cancelTransaction(api, id, key);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw await withCurrentStatus(ctx, id, err);
    if (outcomeUnknown(err)) {
      const retry = ['offramp', ...(ctx.globals.profile ? ['--profile', shellQuote(ctx.globals.profile)] : []), 'tx', 'cancel', id, '--idempotency-key', shellQuote(key), '--yes'];
      throw new CliError(
        `no answer to the cancel (${describe(err)}), so whether it happened is unknown; retry safely with: ${retry.join(' ')}`,
        'OUTCOME_UNKNOWN',
        EXIT.network,
        `the same --idempotency-key repeats the same cancellation; \`offramp tx get ${id}\` shows the status`,
      );
    }
    throw err;
  }
  if (answer.message) ctx.io.err(answer.message);
  if (format === 'json') writeJson(ctx.io, answer.data);
  else (await import('../../lib/tx/render.js')).renderTransaction(ctx.io, answer.data, ctx.now(), 'summary');
}

/**
 * The contract wants the current status in a 409's message. The emulator's message names
 * it; when a service's does not, it is read and added.
 */
async function withCurrentStatus(ctx: Context, id: string, err: ApiError): Promise<ApiError> {
  const hint = `it has moved past the point where it can be cancelled; \`offramp tx history ${id}\` shows how`;
  if (TRANSACTION_STATUSES.some((s) => new RegExp(`\\b${s}\\b`).test(err.message))) return err.withHint(hint);
  try {
    const tx = await transactionById(await ctx.api(), id);
    Object.defineProperty(err, 'message', { value: `${err.message} (current status: ${tx.status})`, configurable: true });
  } catch {
    // The 409 stands as the service worded it.
  }
  return err.withHint(hint);
}
