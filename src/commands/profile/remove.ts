// offramp profile remove NAME: delete it (and its stored key).
import { Argument, Command } from '@commander-js/extra-typings';
import type { Context } from '../../lib/context.js';
import { storedProfile } from '../../lib/config/profile.js';
import { oneLine } from '../../lib/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('remove'), new Argument('<name>', 'profile'))
    .description('delete a profile')
    .addHelpText('after', examples('offramp profile remove old-staging'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = await ctx.config();
  const account = storedProfile(file.read(), opts.name).keychainAccount;
  if (account) await forgetKey(ctx, account);
  file.removeProfile(opts.name);
  ctx.io.err(`Removed profile "${opts.name}".`);
}

/** Deletes a key the keychain holds for a profile; a keychain that cannot is named, not fatal. */
export async function forgetKey(ctx: Context, account: string): Promise<void> {
  const { openKeychain } = await import('../../lib/config/keys.js');
  const keychain = await openKeychain(ctx.env);
  try {
    if ('unavailable' in keychain) throw new Error(keychain.unavailable);
    await keychain.remove(account);
  } catch (err) {
    ctx.io.err(`warning: the key could not be deleted from the system keychain (${oneLine(err)}); delete the entry "${account}" of service offramp-cli by hand`);
  }
}
