// offramp tx get: the full snapshot, grouped as transaction / deposit / partner fields (docs/transactions.md).
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { formatsOf, resolveFormat } from '../../lib/output/format.js';
import { writeJson } from '../../lib/output/json.js';
import { fetchTarget, resolveTarget } from '../../lib/tx/lookup.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('get'), new Argument('[id]', 'transaction id or its first 8+ characters'))
    .description('show one transaction, by id or by your reference')
    .option('--ref <merchant_reference>', 'look up by merchant reference instead')
    .addHelpText('after', examples('offramp tx get 0b6f3c1e', 'offramp tx get --ref order-1042 --json'));

export type GetOptions = OptionsOf<typeof command>;

export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  const format = resolveFormat(ctx.globals, formatsOf('tx get'));
  const target = await resolveTarget(ctx, opts.id, opts.ref);
  const tx = await fetchTarget(ctx, target);
  if (format === 'json') writeJson(ctx.io, tx);
  else (await import('../../lib/tx/render.js')).renderTransaction(ctx.io, tx, ctx.now(), 'snapshot');
}
