// Which stored profile a run means, in plain functions over the context's dependencies, as
// the production rules are (production.ts): by the name a command was given, or the one in
// use (--profile, else OFFRAMP_PROFILE, else the current one) for what needs no API key.
import type { Context } from '../context.js';
import { profileOf } from './profile.js';

/** The profile in use, as stored (profileOf), read from the context's config file. */
export async function profileInUse(ctx: Pick<Context, 'config' | 'globals' | 'env'>): Promise<ReturnType<typeof profileOf>> {
  return profileOf({ flags: { profile: ctx.globals.profile }, env: ctx.env }, (await ctx.config()).read());
}
