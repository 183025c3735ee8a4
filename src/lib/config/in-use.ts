// Which stored profile a run means, in plain functions over the context's dependencies, as
// the production rules are (production.ts): by the name a command was given, or the one in
// use (--profile, else OFFRAMP_PROFILE, else the current one) for what needs no API key.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { profileNameFor, type ConfigData, type Profile } from './profile.js';

/** The stored profile `name`; a name none has is refused, naming those there are. */
export function storedProfile(data: ConfigData, name: string): Profile {
  const profile = data.profiles[name];
  if (profile) return profile;
  const known = Object.keys(data.profiles);
  throw new UsageError(`no profile named "${name}"`, known.length ? `known profiles: ${known.join(', ')}` : 'add one with: offramp profile add NAME --env local');
}

/** The profile in use (profileNameFor), as stored; a name given that none has is refused. */
export async function profileInUse(ctx: Pick<Context, 'config' | 'globals' | 'env'>): Promise<{ name: string | undefined; profile: Profile | undefined }> {
  const data = (await ctx.config()).read();
  const name = profileNameFor({ flags: { profile: ctx.globals.profile }, env: ctx.env }, data);
  if (name === undefined) return { name, profile: undefined };
  // A name given (--profile, OFFRAMP_PROFILE) must be stored; a current one that is gone is none.
  const given = Boolean(ctx.globals.profile || ctx.env.OFFRAMP_PROFILE);
  return { name, profile: given ? storedProfile(data, name) : data.profiles[name] };
}
