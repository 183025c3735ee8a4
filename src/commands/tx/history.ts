// offramp tx history: every status change, from → to, when, reason, metadata (docs/transactions.md).
import { Argument, Command } from '@commander-js/extra-typings';
import { statusHistory } from '../../lib/client/checked-calls.js';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { resolveTarget, targetId } from '../../lib/tx/lookup.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('history'), new Argument('[id]', 'transaction id or its first 8+ characters (asked for on a terminal when left out)'))
    .description("show a transaction's status history")
    .option('--ref <merchant_reference>', 'by merchant reference instead')
    .addHelpText('after', examples('offramp tx history 0b6f3c1e', 'offramp tx history --ref order-1042'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx history'));
  const id = await targetId(ctx, await resolveTarget(ctx, opts.id, opts.ref));
  const history = await statusHistory(await ctx.api(), id);
  if (format === 'json') return writeJson(ctx.io, history);
  ctx.io.err(`transaction ${history.id}: ${history.status} (${history.history.length} ${history.history.length === 1 ? 'change' : 'changes'})`);
  const { renderHistory } = await import('../../lib/tx/render.js');
  renderHistory(ctx.io, history, ctx.now());
}
