// offramp __complete profiles: the dynamic words completion scripts ask for at TAB time.
// Hidden from help; prints nothing (and never fails loudly) when there is no config. Only
// names `profile add` would accept are offered: a shell may evaluate what it completes
// (bash expands `$(…)` in `compgen -W`), and the file may have been edited by hand.
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { readsNoSecret, withArguments, type OptionsOf } from './command.js';

/** Left out of help, as a `__` command (globals.ts, addTopLevel). */
export const command = () => {
  const cmd = withArguments(new Command('__complete'), new Argument('<what>', 'profiles')).description('words for shell completion');
  readsNoSecret.add(cmd);
  return cmd;
};

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  if (opts.what !== 'profiles') return;
  const { isProfileName } = await import('../lib/config/profile.js');
  const names = Object.keys((await ctx.config()).read().profiles).filter(isProfileName);
  if (names.length > 0) ctx.io.out(`${names.join('\n')}\n`);
}
