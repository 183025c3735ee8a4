// offramp profile add: the key never comes from an argument (a hidden prompt, or stdin); where
// it is kept is src/lib/config/keys.ts. An existing profile of that name is replaced only when
// the user says so (a prompt, or --force).
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { checkBaseUrl, ENVIRONMENTS, LOCAL_BASE_URL, validateProfileName, type Environment, type Profile } from '../../lib/config/profile.js';
import { EMULATOR_DEFAULT_API_KEY } from '../../lib/emulator-defaults.js';
import type { Context } from '../../lib/context.js';
import { displayUrl } from '../../lib/client/url.js';
import { Declined, oneLine, UsageError } from '../../lib/errors.js';
import { readStdinLines } from '../../lib/input/stdin.js';
import { keychainAccount, openKeychain } from '../../lib/config/keys.js';
import { forgetKey } from './remove.js';
import { ask } from '../../lib/input/values.js';
import { examples, withArguments, type OptionsOf } from '../command.js';

export const command = () =>
  withArguments(new Command('add'), new Argument('<name>', 'profile name'))
    .description('add a profile, or replace one (the key comes from a hidden prompt or stdin)')
    .addOption(new Option('--env <env>', 'environment').choices(ENVIRONMENTS))
    .option('--base-url <url>', 'base address including /api/v1/partner (local: the emulator)')
    .option('--api-key-stdin', 'read the API key from stdin')
    .option('--webhook-secret-stdin', 'read the webhook secret from stdin (after the key, on its own line)')
    .option('--insecure-storage', 'keep the key in the config file (0600) instead of the system keychain')
    .option('--api-key-command <command>', "store a command that prints the key (op read …, pass show …), run when a request needs it")
    .option('--force', 'replace a profile of that name without asking')
    .addHelpText(
      'after',
      examples(
        'offramp profile add dev --env local',
        'echo "$KEY" | offramp profile add staging --env staging --base-url https://… --api-key-stdin',
        "offramp profile add prod --env production --base-url https://… --api-key-command 'op read op://team/offramp/key'",
      ),
    );

export async function run(opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const name = validateProfileName(opts.name);
  // --api-key is a global flag, so commander accepts it here too; storing it would put the
  // key in shell history, and ignoring it would store something else.
  if (ctx.globals.apiKey !== undefined) {
    throw new UsageError('profile add does not take the key as an argument (it would stay in shell history and the process list)', 'pipe it: printf %s "$KEY" | offramp profile add NAME --api-key-stdin, or type it at the hidden prompt');
  }
  if (opts.apiKeyCommand !== undefined && (opts.apiKeyStdin || opts.insecureStorage)) {
    throw new UsageError(`--api-key-command stores a command, not a key: it does not go with ${opts.apiKeyStdin ? '--api-key-stdin' : '--insecure-storage'}`);
  }
  if (opts.apiKeyCommand !== undefined && !opts.apiKeyCommand.trim()) throw new UsageError('--api-key-command: the command is empty');
  const file = await ctx.config();
  const existing = file.read().profiles[name];
  if (existing && !opts.force) {
    if (!ctx.io.canPrompt()) throw new UsageError(`profile "${name}" exists (${existing.env}, ${displayUrl(existing.baseUrl)})`, 'pass --force to replace it');
    const { confirm } = await ctx.prompts();
    const replace = await confirm({ message: `Replace profile "${name}" (${existing.env}, ${displayUrl(existing.baseUrl)})?`, default: false }, { output: ctx.io.stderr });
    if (!replace) throw new Declined(`profile "${name}" not replaced`, 'nothing was changed');
  }
  // --base-url is also a global flag; commander hands it to whichever command sees it.
  const baseUrl = opts.baseUrl ?? ctx.globals.baseUrl;
  const env = await ask(ctx, '--env', opts.env, (p, c) =>
    p.select<Environment>({ message: 'Environment', choices: ['local', 'staging', 'production'].map((v) => ({ value: v as Environment })) }, c),
  );
  // The spec names no hosts for staging or production; only the emulator has a known address.
  const profile: Profile = {
    env,
    baseUrl: await ask(ctx, '--base-url', baseUrl ?? (env === 'local' ? LOCAL_BASE_URL : undefined), (p, c) =>
      p.input({ message: `Base URL of ${env} (ends in /api/v1/partner)`, validate: (v) => validUrl(v, ctx.env) }, c),
    ),
  };
  checkBaseUrl(profile.baseUrl, ctx.env);

  const lines = opts.apiKeyStdin || opts.webhookSecretStdin ? await readStdinLines(ctx.io.stdin) : [];
  let key: string | undefined;
  if (opts.apiKeyStdin) {
    key = lines.shift();
    if (!key) throw new UsageError('--api-key-stdin: stdin was empty');
    if (/[\x00-\x1f\x7f]/.test(key)) throw new UsageError('--api-key-stdin: the key contains a control character (a stray carriage return?)');
  } else if (opts.apiKeyCommand === undefined && ctx.io.canPrompt()) {
    const { password } = await ctx.prompts();
    const typed = await password({ message: 'API key (hidden; empty to skip)', mask: false }, { output: ctx.io.stderr });
    if (typed.trim()) key = typed.trim();
  }
  if (opts.webhookSecretStdin) {
    profile.webhookSecret = lines.shift();
    if (!profile.webhookSecret) throw new UsageError('--webhook-secret-stdin: no secret on stdin');
  } else if (env !== 'local' && ctx.io.canPrompt()) {
    // Without it `webhooks listen` on this profile fails later; a local profile has the
    // emulator's public one. Kept where --webhook-secret-stdin keeps it (docs/configuration.md).
    const { password } = await ctx.prompts();
    const typed = await password({ message: 'Webhook secret (hidden; empty to skip)', mask: false }, { output: ctx.io.stderr });
    if (typed.trim()) profile.webhookSecret = typed.trim();
  }
  ctx.io.addSecret(key);
  ctx.io.addSecret(profile.webhookSecret);

  const account = keychainAccount(name, file.path);
  let where: string;
  if (opts.apiKeyCommand !== undefined) {
    profile.apiKeyCommand = opts.apiKeyCommand;
    where = 'the key is read from its command when needed';
  } else if (key) {
    where = await storeKey(ctx, profile, key, account, opts.insecureStorage === true);
  } else if (env === 'local') {
    // A local profile talks to the emulator, whose default key is public: it works with no
    // key typed (an emulator started with --api-key needs that key stored instead). Being
    // public, it stays in the file.
    profile.apiKey = EMULATOR_DEFAULT_API_KEY;
    where = "the emulator's public key is in the config file";
  } else {
    where = 'no key stored';
  }
  const first = Object.keys(file.read().profiles).length === 0;
  file.setProfile(name, profile);
  if (first) file.setCurrent(name);
  // The key this profile kept in the keychain before, if it keeps it elsewhere now.
  if (existing?.keychainAccount && existing.keychainAccount !== profile.keychainAccount) await forgetKey(ctx, existing.keychainAccount);
  const notes = [where, profile.webhookSecret ? 'webhook secret stored in the config file' : '', first ? 'now the current profile' : ''].filter(Boolean);
  ctx.io.err(`${existing ? 'Replaced' : 'Saved'} profile "${name}" (${env}, ${displayUrl(profile.baseUrl)}); ${notes.join(', ')}.`);
  if (env === 'production') ctx.io.err('Production profile: changes will ask for confirmation, and simulate is refused.');
}

/** Puts the key in the keychain when there is one, else in the profile; says where. */
async function storeKey(ctx: Context, profile: Profile, key: string, account: string, insecure: boolean): Promise<string> {
  if (insecure) {
    profile.apiKey = key;
    return 'key stored in the config file (--insecure-storage)';
  }
  const keychain = await openKeychain(ctx.env);
  if (!('unavailable' in keychain)) {
    try {
      await keychain.set(account, key);
      profile.keychainAccount = account;
      return 'key stored in the system keychain';
    } catch (err) {
      ctx.io.err(`warning: the system keychain did not take the key (${oneLine(err)})`);
    }
  } else {
    ctx.io.err(`note: the key is kept in the config file, a 0600 file readable by you alone: ${keychain.unavailable}`);
  }
  profile.apiKey = key;
  return 'key stored in the config file';
}

function validUrl(value: string, env: NodeJS.ProcessEnv): true | string {
  try {
    checkBaseUrl(value, env);
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}
