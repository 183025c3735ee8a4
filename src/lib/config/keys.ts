// Where a profile's API key lives, and reading it from there (docs/configuration.md,
// "Where keys live"): the keychain (the default, as gh does), a command, or the config file.
//
// The native module is an optional dependency loaded only here, on first use: the CLI
// installs and runs where it cannot load, and keeps keys in the file there.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AuthError, oneLine } from '../errors.js';
import { keyStorage, type ConfigData, type SettingSources } from './profile.js';
import { STANDALONE } from '../../version.js';

/** The credential store's service name every offramp entry is filed under. */
export const KEYCHAIN_SERVICE = 'offramp-cli';

/** The entry of one profile of one config file: two config dirs may both have a "staging". */
export function keychainAccount(name: string, configPath: string): string {
  return `${name}@${configPath}`;
}

export type Keychain = {
  get(account: string): Promise<string | undefined>;
  set(account: string, key: string): Promise<void>;
  /** Whether there was an entry to delete. */
  remove(account: string): Promise<boolean>;
};

/** The platform's credential store, or why there is none here (one line). */
export async function openKeychain(env: NodeJS.ProcessEnv): Promise<Keychain | { unavailable: string }> {
  // The keychain module is native code, which an executable of one file cannot load (docs/install.md).
  if (STANDALONE) return { unavailable: 'the standalone executable keeps keys there, not in the system keychain (the npm package uses the keychain)' };
  // Without a session bus there is no Secret Service to reach, and asking would have
  // libdbus start a bus of its own: not tried at all.
  if (process.platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS && !(env.XDG_RUNTIME_DIR && existsSync(join(env.XDG_RUNTIME_DIR, 'bus')))) {
    return { unavailable: 'no D-Bus session, so no Secret Service' };
  }
  let keyring: typeof import('@napi-rs/keyring');
  try {
    keyring = await import('@napi-rs/keyring');
  } catch {
    return { unavailable: `the credential store module does not load on this platform (${process.platform}-${process.arch})` };
  }
  // On Linux only the Secret Service: the library would otherwise fall back to the kernel
  // keyring, which forgets everything at logout.
  const entry = (account: string) => new keyring.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
  const keychain: Keychain = {
    async get(account) {
      return (await entry(account).getPassword()) ?? undefined;
    },
    async set(account, key) {
      await entry(account).setPassword(key);
    },
    async remove(account) {
      return entry(account).deleteCredential();
    },
  };
  // One read tells whether the store answers (a Secret Service that is not running or
  // is locked fails here, not halfway through storing).
  try {
    await keychain.get(keychainAccount('-probe-', '-'));
  } catch (err) {
    return { unavailable: `the credential store does not answer (${oneLine(err)})` };
  }
  return keychain;
}

/**
 * How long a key command may take: long enough for a password manager's unlock in its own
 * window or by fingerprint (the command has no terminal to ask on: see runKeyCommand).
 */
export const KEY_COMMAND_TIMEOUT_MS = 60_000;
/** The signals that end a run while its key command runs. */
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/**
 * Runs the key command (`$1`) under a watch on fd 3, whose other end only the CLI holds: when
 * the CLI is gone, however it ended (SIGKILL, a crash, its parent killing it), the read sees
 * the end of the file and kills the whole process group, the command and all it started.
 * The command itself does not hold fd 3, so what it leaves behind cannot keep the watch open.
 */
const WATCHED_KEY_COMMAND = 'sh -c "$1" 3<&- & cmd=$!; { read -r _ <&3; kill -KILL 0; } & watch=$!; exec 3<&-; wait "$cmd"; s=$?; kill "$watch" 2>/dev/null; exit "$s"';
/** More than any key: output beyond this is not a key. */
const KEY_COMMAND_MAX_BYTES = 64 * 1024;

/**
 * A profile's key command's output, trimmed. Its stderr is not shown (it may echo what it
 * read), and a failure is an AuthError that never quotes the output.
 */
export function runKeyCommand(profileName: string, command: string, env: NodeJS.ProcessEnv, timeoutMs = KEY_COMMAND_TIMEOUT_MS): Promise<string> {
  const fail = (what: string) =>
    new AuthError(`profile "${profileName}": its key command ${what}`, `check it by hand, or store the key again: offramp profile add ${profileName} --force`);
  return new Promise((resolve, reject) => {
    // Its own process group, so a deadline stops the shell and whatever it started. Detached, it
    // is also a new session without a terminal: a password manager may unlock in a window of
    // its own or by fingerprint, but a command that prompts on the terminal cannot.
    const child =
      process.platform === 'win32'
        ? spawn(command, { shell: true, env, stdio: ['ignore', 'pipe', 'ignore'] })
        : spawn('/bin/sh', ['-c', WATCHED_KEY_COMMAND, 'sh', command], { env, stdio: ['ignore', 'pipe', 'ignore', 'pipe'], detached: true });
    // Nothing is sent on the watch; read, so its end (when the group is done) is seen and the run can finish.
    (child.stdio[3] as NodeJS.ReadableStream | undefined)?.resume();
    const chunks: Buffer[] = [];
    let size = 0;
    let failure: AuthError | undefined;
    const kill = () => {
      try {
        if (process.platform === 'win32') child.kill();
        else process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stop = (why: AuthError) => {
      failure ??= why;
      kill();
    };
    // Outside the terminal's process group, Ctrl-C does not reach it: the CLI stops it on the
    // way out, then lets the signal end the run as it would have.
    const interrupted = (signal: NodeJS.Signals) => {
      kill();
      unwatch();
      process.kill(process.pid, signal);
    };
    const unwatch = () => {
      for (const signal of EXIT_SIGNALS) process.off(signal, interrupted);
    };
    for (const signal of EXIT_SIGNALS) process.once(signal, interrupted);
    const timer = setTimeout(() => stop(fail(`did not finish within ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > KEY_COMMAND_MAX_BYTES) stop(fail('printed more than a key'));
      else chunks.push(chunk);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      unwatch();
      reject(fail(`could not start (${(err as NodeJS.ErrnoException).code ?? 'error'})`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      unwatch();
      if (failure) return reject(failure);
      if (code !== 0) return reject(fail(code === null ? `was killed (${signal})` : `failed (exit ${code})`));
      const key = Buffer.concat(chunks).toString('utf8').trim();
      if (!key) return reject(fail('printed nothing'));
      if (/[\x00-\x1f\x7f]/.test(key)) return reject(fail('printed more than one line (keep the first: … | head -n 1)'));
      resolve(key);
    });
  });
}

/**
 * The config with the key of the profile in use filled in from the keychain or its
 * command, when a request will need it: not when a flag or the environment gives the key
 * (they win anyway), nor for any other profile.
 */
export async function withStoredKey(src: SettingSources, data: ConfigData | undefined, profileName: string | undefined): Promise<ConfigData | undefined> {
  if (!data || !profileName || src.flags.apiKey || src.env.OFFRAMP_API_KEY) return data;
  const profile = data.profiles[profileName];
  if (!profile) return data;
  const storage = keyStorage(profile);
  if (storage !== 'keychain' && storage !== 'command') return data;
  const apiKey = profile.apiKeyCommand ? await runKeyCommand(profileName, profile.apiKeyCommand, src.env) : await keychainKey(profileName, profile.keychainAccount!, src.env);
  return { ...data, profiles: { ...data.profiles, [profileName]: { ...profile, apiKey } } };
}

/** The key of profile `name`, kept in the system keychain under `account`. */
async function keychainKey(name: string, account: string, env: NodeJS.ProcessEnv): Promise<string> {
  const keychain = await openKeychain(env);
  const again = `store it again: offramp profile add ${name} --force (--insecure-storage keeps it in the config file)`;
  if ('unavailable' in keychain) throw new AuthError(`profile "${name}" keeps its key in the system keychain, which cannot be read here: ${keychain.unavailable}`, again);
  const key = await keychain.get(account).catch((err: unknown) => {
    throw new AuthError(`profile "${name}": its key could not be read from the system keychain (${oneLine(err)})`, again);
  });
  if (!key) throw new AuthError(`profile "${name}": its key is no longer in the system keychain`, again);
  return key;
}
