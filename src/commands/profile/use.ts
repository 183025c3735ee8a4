// offramp profile use NAME: make it the current profile.
import type { Context } from '../../lib/context.js';
import { UsageError } from '../../lib/errors.js';

export async function run(opts: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.config();
  const known = Object.keys(store.read().profiles);
  if (!known.includes(opts.name)) {
    throw new UsageError(`no profile named "${opts.name}"`, known.length ? `known profiles: ${known.join(', ')}` : 'add one with: offramp profile add NAME --env local');
  }
  store.setCurrent(opts.name);
  ctx.io.err(`Now using profile "${opts.name}".`);
}
