// offramp profile remove NAME: delete it (and its stored key).
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('remove'), new Argument('<name>', 'profile'))
    .description('delete a profile')
    .addHelpText('after', examples('offramp profile remove old-staging'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const store = await ctx.config();
  if (!store.read().profiles[opts.name]) throw new UsageError(`no profile named "${opts.name}"`, 'list them with: offramp profile list');
  store.removeProfile(opts.name);
  ctx.io.err(`Removed profile "${opts.name}".`);
}
