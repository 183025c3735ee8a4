// offramp __complete profiles: the dynamic words completion scripts ask for at TAB time.
// Hidden from help; prints nothing (and never fails loudly) when there is no config.
import type { Context } from '../lib/context.js';

export async function run(opts: { what: string }, ctx: Context): Promise<void> {
  if (opts.what !== 'profiles') return;
  const names = Object.keys((await ctx.config()).read().profiles);
  if (names.length > 0) ctx.io.out(`${names.join('\n')}\n`);
}
