// Which stored profile a run means, in plain functions over the context's dependencies, as
// the production rules are (production.ts): by the name a command was given, or the one in
// use (--profile, else OFFRAMP_PROFILE, else the current one) for what needs no API key.
import type { Context } from '../context.js';
import { profileNameFor, storedProfile, type Profile } from './profile.js';

/** The profile in use (profileNameFor), as stored; a name given that none has is refused. */
export async function profileInUse(ctx: Pick<Context, 'config' | 'globals' | 'env'>): Promise<{ name: string | undefined; profile: Profile | undefined }> {
  const data = (await ctx.config()).read();
  const name = profileNameFor({ flags: { profile: ctx.globals.profile }, env: ctx.env }, data);
  if (name === undefined) return { name, profile: undefined };
  // A name given (--profile, OFFRAMP_PROFILE) must be stored; a current one that is gone is none.
  const given = Boolean(ctx.globals.profile || ctx.env.OFFRAMP_PROFILE);
  return { name, profile: given ? storedProfile(data, name) : data.profiles[name] };
}
