// The profile a run uses, for what needs no API key (webhooks, profile show): a plain
// function over the context's dependencies, as the production rules are (production.ts).
import type { Context } from '../context.js';
import { profileNameFor, type Profile } from './profile.js';

/** --profile, else OFFRAMP_PROFILE, else the current one (profileNameFor), as stored. */
export async function profileInUse(ctx: Pick<Context, 'config' | 'globals' | 'env'>): Promise<{ name: string | undefined; profile: Profile | undefined }> {
  const data = (await ctx.config()).read();
  const name = profileNameFor({ flags: { profile: ctx.globals.profile }, env: ctx.env }, data);
  return { name, profile: name !== undefined ? data.profiles[name] : undefined };
}
