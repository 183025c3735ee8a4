// offramp profile remove NAME: delete it (and its stored key).
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';

export async function run(opts: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.config();
  if (!store.read().profiles[opts.name]) throw new UsageError(`no profile named "${opts.name}"`, 'list them with: offramp profile list');
  store.removeProfile(opts.name);
  ctx.io.err(`Removed profile "${opts.name}".`);
}
