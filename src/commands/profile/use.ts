// offramp profile use NAME: make it the current profile.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { storedProfile } from '../../lib/config/profile.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('use'), new Argument('<name>', 'profile'))
    .description('make a profile the current one')
    .addHelpText('after', examples('offramp profile use staging'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = await ctx.config();
  storedProfile(file.read(), opts.name);
  file.setCurrent(opts.name);
  ctx.io.err(`Now using profile "${opts.name}".`);
}
