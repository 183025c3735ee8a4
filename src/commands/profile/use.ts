// offramp profile use NAME: make it the current profile.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('use'), new Argument('<name>', 'profile'))
    .description('make a profile the current one')
    .addHelpText('after', examples('offramp profile use staging'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = await ctx.config();
  const known = Object.keys(file.read().profiles);
  if (!known.includes(opts.name)) {
    throw new UsageError(`no profile named "${opts.name}"`, known.length ? `known profiles: ${known.join(', ')}` : 'add one with: offramp profile add NAME --env local');
  }
  file.setCurrent(opts.name);
  ctx.io.err(`Now using profile "${opts.name}".`);
}
