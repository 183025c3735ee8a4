// offramp profile migrate: keys kept in the config file move to the system keychain. Each key
// is read back from the keychain before the file lets go of it.
import { Argument, Command } from '@commander-js/extra-typings';
import { keychainAccount, openKeychain } from '../../lib/config/keys.js';
import { keyStorage, storedProfile } from '../../lib/config/profile.js';
import type { Context } from '../../lib/context.js';
import { AuthError, oneLine } from '../../lib/errors.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('migrate'), new Argument('[name]', 'profile (default: every profile)'))
    .description('move keys from the config file into the system keychain')
    .addHelpText('after', examples('offramp profile migrate', 'offramp profile migrate staging'));

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const file = await ctx.config();
  const { profiles } = file.read();
  if (opts.name !== undefined) storedProfile(file.read(), opts.name);
  const names = opts.name !== undefined ? [opts.name] : Object.keys(profiles);
  const moving = names.filter((n) => keyStorage(profiles[n]!) === 'file');
  if (moving.length === 0) {
    const only = opts.name !== undefined ? `profile "${opts.name}" keeps no key in the config file (${keyStorage(profiles[opts.name]!)})` : 'no profile keeps its key in the config file';
    return ctx.io.err(`Nothing to move: ${only}.`);
  }
  const keychain = await openKeychain(ctx.env);
  if ('unavailable' in keychain) throw new AuthError(`cannot move keys to the system keychain: ${keychain.unavailable}; nothing was moved`, 'the keys stay in the config file, a 0600 file readable by you alone');
  for (const name of moving) {
    const { apiKey, ...rest } = profiles[name]!;
    ctx.io.addSecret(apiKey);
    const account = keychainAccount(name, file.path);
    try {
      await keychain.set(account, apiKey!);
      if ((await keychain.get(account)) !== apiKey) throw new Error('the key read back differs');
    } catch (err) {
      throw new AuthError(`profile "${name}": the system keychain did not take its key (${oneLine(err)}); it stays in the config file`);
    }
    file.setProfile(name, { ...rest, keychainAccount: account });
    ctx.io.err(`Moved the key of profile "${name}" to the system keychain.`);
  }
}
