// The config file, through `conf`: one JSON file, mode 0600 in a 0700 directory.
// OFFRAMP_CONFIG_DIR moves it (tests, several setups side by side); otherwise it lives in
// the platform's config directory (XDG_CONFIG_HOME on Linux).
import { chmodSync, existsSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import Conf from 'conf';
import { CliError, errorKind, EXIT } from '../errors.js';
import { distrustAncestry } from '../fs/ancestry.js';
import { distrust } from '../fs/private.js';
import type { ConfigData, Profile } from './profile.js';

/**
 * Where the config file lives: OFFRAMP_CONFIG_DIR, else the platform's config directory as
 * conf places it. Known without reading the file, so `config path` answers even when the
 * file is damaged.
 */
export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

function configDir(env: NodeJS.ProcessEnv): string {
  if (env.OFFRAMP_CONFIG_DIR) return env.OFFRAMP_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'offramp');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'offramp', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'offramp');
}

/** A config directory or file the CLI will not trust (exit 3), as ssh treats its keys. */
export class UnsafeConfig extends errorKind('CONFIG_UNSAFE', EXIT.auth) {}

export class ConfigFile {
  /** Opened when the file exists or is first written: conf creates the directory as it opens a missing file. */
  private opened: Conf<ConfigData> | undefined;
  readonly path: string;

  /** `warn` hears of what was put right on the way (a file other users could read, now 0600). */
  constructor(env: NodeJS.ProcessEnv, warn: (line: string) => void = () => undefined) {
    this.path = configPath(env);
    const dir = dirname(this.path);
    // The file holds API keys and the base URL they are sent to: a directory or file that
    // another user owns or can write could hand us their URL and receive the key.
    // Reading creates nothing (doctor, shell completion, profile list): the directory is
    // made, 0700 whatever the umask, by the first write (conf would make it with the
    // umask's mode, which the next run refuses). Every directory above it counts too: one
    // others can write lets them swap the whole config directory between this check and
    // conf's read (src/lib/fs/ancestry.ts); once none can, what is checked is what is read.
    const dirStat = statSync(dir, { throwIfNoEntry: false });
    if (dirStat) trusted(dir, dirStat, 'directory');
    // The file's path, not the directory's: where config.json is a link, its target's directories count too.
    const above = distrustAncestry(this.path);
    if (above) throw new UnsafeConfig(`refusing the config directory ${dir}: ${above.reason}`, `${above.hint} (or set OFFRAMP_CONFIG_DIR)`);
    const fileStat = statSync(this.path, { throwIfNoEntry: false });
    if (fileStat) {
      trusted(this.path, fileStat, 'file');
      if (process.platform !== 'win32' && (fileStat.mode & 0o077) !== 0) {
        chmodSync(this.path, 0o600);
        warn(`warning: the config file ${this.path} was readable by other users (mode ${(fileStat.mode & 0o777).toString(8).padStart(4, '0')}); it is now 0600`);
      }
      this.opened = this.open();
    }
  }

  private open(): Conf<ConfigData> {
    try {
      return new Conf<ConfigData>({
        projectName: 'offramp',
        projectSuffix: '',
        configName: 'config',
        configFileMode: 0o600,
        // No defaults: conf writes them to disk on first read, so merely reading (doctor,
        // shell completion, profile list) created the file. A missing file reads as empty.
        cwd: dirname(this.path),
      });
    } catch (err) {
      // The parser's message can quote the file, keys included: only the file is named.
      throw new CliError(
        `the config file ${this.path} cannot be read (${err instanceof SyntaxError ? 'it is not valid JSON' : (err as NodeJS.ErrnoException).code ?? 'unreadable'}); nothing in it was changed`,
        'CONFIG',
        EXIT.usage,
        'fix it in an editor, or move it away and add the profiles again (offramp profile add)',
      );
    }
  }

  /** The file, for a change: its directory made first, 0700 (and any parent it lacks). */
  private get conf(): Conf<ConfigData> {
    if (!this.opened) {
      const dir = dirname(this.path);
      if (!existsSync(dir)) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        chmodSync(dir, 0o700);
      }
      this.opened = this.open();
    }
    return this.opened;
  }

  read(): ConfigData {
    if (!this.opened) return { profiles: {} };
    // conf reads and parses the file on every access: once here, for both fields.
    const data = this.opened.store;
    return { current: data.current, profiles: data.profiles ?? {} };
  }

  setProfile(name: string, profile: Profile): void {
    // The whole map is written back: conf reads dots in a key path as nesting.
    this.conf.set('profiles', { ...this.read().profiles, [name]: profile });
    this.tighten();
  }

  removeProfile(name: string): void {
    const { [name]: _removed, ...rest } = this.read().profiles;
    this.conf.set('profiles', rest);
    if (this.conf.get('current') === name) this.conf.delete('current');
    this.tighten();
  }

  setCurrent(name: string): void {
    this.conf.set('current', name);
    this.tighten();
  }

  /** conf sets the mode only when it creates the file; an older file is brought to 0600 too. */
  private tighten(): void {
    chmodSync(this.conf.path, 0o600);
    chmodSync(dirname(this.conf.path), 0o700);
  }
}

/** Owned by this user and writable by no one else (src/lib/fs/private.ts); otherwise UnsafeConfig. */
function trusted(path: string, st: Stats, what: 'directory' | 'file'): void {
  const reason = distrust(path, st, what, `the config ${what} ${path}`);
  if (!reason) return;
  // A shared directory (/tmp) is meant to be writable by all: never suggest changing it.
  const shared = what === 'directory' && st.mode & 0o1000;
  throw new UnsafeConfig(reason, `use a config ${what} of your own (OFFRAMP_CONFIG_DIR)${shared ? '' : `, or make it yours alone: chmod ${what === 'directory' ? '700' : '600'} ${path}`}`);
}
