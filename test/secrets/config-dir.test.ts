// The config directory is 0700 whatever the umask, and only a command that writes makes it:
// under umask 002 (user-private groups) a read-only first run used to leave it 0775, which
// the next `profile add` refused. umask is per process, so the built binary runs under sh.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';

function underUmask(mask: string, args: string[], env: Record<string, string>) {
  const r = spawnSync('sh', ['-c', `umask ${mask}; exec "$0" "$@"`, process.execPath, BIN, ...args], {
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, CI: 'true', NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(process.platform === 'win32')('the config directory under umask 002', () => {
  it('doctor and profile list create nothing; profile add makes it 0700 and the next run trusts it', () => {
    const home = tempHome();
    // Where a user's config lives by default: under XDG_CONFIG_HOME, which does not exist yet.
    const env = { HOME: home.dir, XDG_CONFIG_HOME: join(home.dir, '.config') };
    const dir = join(home.dir, '.config', 'offramp');
    underUmask('002', ['doctor'], env);
    expect(existsSync(join(home.dir, '.config'))).toBe(false);
    const listed = underUmask('002', ['profile', 'list'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(existsSync(join(home.dir, '.config'))).toBe(false);

    const added = underUmask('002', ['profile', 'add', 'dev', '--env', 'local'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    const again = underUmask('002', ['profile', 'add', 'staging', '--env', 'local'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(underUmask('002', ['profile', 'list', '--json'], env).stdout).toContain('"staging"');
  });
});
