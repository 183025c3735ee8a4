// The config file, through `conf`: one JSON file, mode 0600 in a 0700 directory.
// OFFRAMP_CONFIG_DIR moves it (tests, several setups side by side); otherwise it lives in
// the platform's config directory (XDG_CONFIG_HOME on Linux).
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Conf from 'conf';
import type { ConfigData, Profile } from './profile.js';

export class ConfigStore {
  private readonly conf: Conf<ConfigData>;

  constructor(env: NodeJS.ProcessEnv) {
    const cwd = env.OFFRAMP_CONFIG_DIR || undefined;
    if (cwd) mkdirSync(cwd, { recursive: true, mode: 0o700 });
    this.conf = new Conf<ConfigData>({
      projectName: 'offramp',
      projectSuffix: '',
      configName: 'config',
      configFileMode: 0o600,
      // No defaults: conf writes them to disk on first read, so merely reading (doctor,
      // shell completion, profile list) created the file. A missing file reads as empty.
      ...(cwd ? { cwd } : {}),
    });
  }

  get path(): string {
    return this.conf.path;
  }

  read(): ConfigData {
    return { current: this.conf.get('current'), profiles: this.conf.get('profiles') ?? {} };
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
