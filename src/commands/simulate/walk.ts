// offramp simulate walk (docs/sandbox.md): each status change shown as it happens. Staging only.
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { statusHistory } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { Timeline } from '../../lib/sandbox/timeline.js';
import { continuingWalk, OUTCOMES, runWalk, WalkInterrupted } from '../../lib/sandbox/walk.js';
import { isOutage } from '../../lib/client/errors.js';
import { CliError, UsageError } from '../../lib/errors.js';
import { offrampWords, pasteable } from '../../lib/input/values.js';
import { resolveTarget, targetId } from '../../lib/tx/lookup.js';
import { isNotFound } from '../../lib/tx/errors.js';
import type { ApiError } from '../../lib/errors.js';
import { renderHistory, renderTransaction } from '../../lib/tx/render.js';
import { examples, withArguments, type OptionsOf } from '../command.js';
import { refuseProduction } from '../../lib/config/production.js';

export const command = () =>
  withArguments(new Command('walk'), new Argument('[tx_id]', 'existing transaction id or its first 8+ characters'))
    .description('walk a transaction (a new one unless given) to an outcome, step by step')
    .option('--ref <merchant_reference>', 'walk an existing transaction named by merchant reference')
    .addOption(new Option('--outcome <outcome>', 'where to end').choices(OUTCOMES).default('completed'))
    .option('--settle', 'also send payout.settled after completion')
    .addHelpText('after', examples('offramp simulate walk', 'offramp simulate walk 0b6f3c1e --outcome refunded', 'offramp simulate walk --ref order-1042'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  resolveFormat(ctx.globals, formatsOf('simulate walk'));
  const { outcome } = opts;
  // --settle sends payout.settled, which only follows a completion.
  if (opts.settle && outcome !== 'completed') throw new UsageError(`--settle only applies to --outcome completed (got ${outcome})`);
  const target = await resolveTarget(ctx, opts.txId, opts.ref, { name: 'TX_ID', optional: true });
  await refuseProduction(ctx, 'simulate walk');
  const txId = target
    ? await targetId(ctx, target).catch((err: unknown) => {
        // `--ref R` may be read as "walk a new transaction called R": it names an existing one.
        throw 'ref' in target && isNotFound(err) ? (err as ApiError).withHint("--ref names an existing transaction's reference; leave it out and simulate walk creates a transaction") : err;
      })
    : undefined;
  const api = await ctx.api();
  const timeline = await Timeline.create(ctx.io);
  let result;
  try {
    result = await runWalk(
      api,
      { ...(txId ? { txId } : {}), outcome, settle: Boolean(opts.settle), now: ctx.now, sleep: ctx.sleep, timeoutMs: ctx.globals.timeout },
      { onBegin: (i) => timeline.begin(i), onStep: (i) => timeline.done(i), onNote: (line) => timeline.note(line) },
    );
  } catch (err) {
    const cause = err instanceof WalkInterrupted ? err.cause : err;
    timeline.fail();
    // The service stopped answering once the transaction existed: the walk can go on from
    // where it is (docs/sandbox.md, "When a walk stops").
    if (err instanceof WalkInterrupted && err.transactionId && isOutage(cause) && cause instanceof CliError) {
      const prefix = offrampWords(ctx.globals);
      cause.hint = `continue it with: ${pasteable([...prefix, ...continuingWalk(err.transactionId, outcome, Boolean(opts.settle))], ctx.globals)}`;
    }
    throw cause;
  }
  if (ctx.globals.json) return writeJson(ctx.io, { transaction: result.transaction, steps: result.steps });
  const history = await statusHistory(api, result.transaction.id);
  renderTransaction(ctx.io, result.transaction, ctx.now(), 'snapshot');
  ctx.io.out('\nstatus history\n');
  renderHistory(ctx.io, history, ctx.now());
}
