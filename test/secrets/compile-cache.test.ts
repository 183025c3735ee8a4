// Compiled code lives in the user's own cache dir, never under the system temp dir, where
// another local user could create the directory first and plant entries that run inside
// the process holding the keys. Node 20 has no compile cache: nothing is kept anywhere and
// these runs would prove nothing, so they are skipped there (CI runs them on Node 24 and 26).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const hasCompileCache = 'enableCompileCache' in nodeModule;

describe.skipIf(!hasCompileCache || process.platform === 'win32')('the compile cache (Node 22.1+; Node 20 has none)', () => {
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), 'offramp-cache-'));
    mkdirSync(join(dir, 'tmp'));
    return { dir, tmp: join(dir, 'tmp'), env: { HOME: dir, TMPDIR: join(dir, 'tmp'), OFFRAMP_CONFIG_DIR: join(dir, 'config') } };
  };

  it('is kept in ~/.cache/offramp, made 0700; the temp dir is left empty', async () => {
    const h = home();
    const r = await runCli(['profile', 'list'], { env: h.env });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(h.tmp)).toEqual([]);
    const dir = join(h.dir, '.cache', 'offramp');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dir, 'compile-cache')).length).toBeGreaterThan(0);
  });

  it('XDG_CACHE_HOME moves it; NODE_COMPILE_CACHE still wins', async () => {
    const h = home();
    await runCli(['profile', 'list'], { env: { ...h.env, XDG_CACHE_HOME: join(h.dir, 'xdg') } });
    expect(readdirSync(join(h.dir, 'xdg', 'offramp', 'compile-cache')).length).toBeGreaterThan(0);
    await runCli(['profile', 'list'], { env: { ...h.env, NODE_COMPILE_CACHE: join(h.dir, 'chosen') } });
    expect(readdirSync(join(h.dir, 'chosen')).length).toBeGreaterThan(0);
    expect(readdirSync(h.tmp)).toEqual([]);
  });

  it('a planted group-writable cache dir is not used (said with --verbose), and nothing goes to the temp dir', async () => {
    const h = home();
    const planted = join(h.dir, '.cache', 'offramp');
    mkdirSync(planted, { recursive: true });
    chmodSync(planted, 0o775);
    const quiet = await runCli(['profile', 'list'], { env: h.env });
    expect(quiet.stderr).not.toContain('compile cache');
    const r = await runCli(['--verbose', 'profile', 'list'], { env: h.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: compile cache not used: ${planted}: others can write it (mode 0775)`);
    expect(readdirSync(planted)).toEqual([]);
    expect(readdirSync(h.tmp)).toEqual([]);
  });

  it('nor is one below a directory others can write (no sticky bit): the whole cache dir could be swapped', async () => {
    const h = home();
    const shared = join(h.dir, 'shared-cache');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const r = await runCli(['--verbose', 'profile', 'list'], { env: { ...h.env, XDG_CACHE_HOME: shared } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: compile cache not used: ${join(shared, 'offramp')}: ${shared} is writable by its group and other users (mode 0777)`);
    expect(existsSync(join(shared, 'offramp'))).toBe(false);
    expect(readdirSync(h.tmp)).toEqual([]);
  });
});
