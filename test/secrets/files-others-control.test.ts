// Files others control are refused, as ssh refuses keys: the config directory, a secret's
// NAME_FILE and `emulator wait --ready-file` are trusted only when no directory above them
// lets another user swap them (src/lib/fs/ancestry.ts). A shared sticky directory such as
// /tmp is fine when what is inside it is ours, and no hint ever suggests changing it. A
// secret file must be a regular file: a FIFO is refused at once, not waited on. Parts that
// need a second user (root gives files to nobody, uid 65534) run as root only.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePrivateDirectory, openPrivateFile } from '../../src/lib/fs/private.js';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { json, scriptedServer } from '../helpers/server.js';

const root = process.getuid?.() === 0;
const posix = process.platform !== 'win32';
const NOBODY = 65534;

/** A directory with `mode` (whatever the umask), inside a fresh private one. */
function dirWithMode(mode: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'offramp-others-')), 'shared');
  mkdirSync(dir);
  chmodSync(dir, mode);
  return dir;
}

function fileIn(dir: string, name: string, content: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

describe.skipIf(!posix)('a directory above others can write, without the sticky bit', () => {
  it('the config directory inside it is refused (exit 3), naming that directory and the fix', async () => {
    const parent = dirWithMode(0o777);
    const config = join(parent, 'offramp');
    mkdirSync(config, { mode: 0o700 });
    fileIn(config, 'config.json', JSON.stringify({ profiles: {} }));
    const r = await runMain(['profile', 'list'], { env: { OFFRAMP_CONFIG_DIR: config } });
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `error: CONFIG_UNSAFE: refusing the config directory ${config}: ${parent} is writable by its group and other users (mode 0777)`,
      `hint: chmod go-w ${parent}, or use a path in a directory only you (or root) can write, such as one under your home directory (or set OFFRAMP_CONFIG_DIR)`,
    ]);
    // Fixed as the hint says, the same directory is trusted.
    chmodSync(parent, 0o755);
    expect((await runMain(['profile', 'list'], { env: { OFFRAMP_CONFIG_DIR: config } })).code).toBe(0);
  });

  it("a config.json that links into it is refused too: the link's target could be swapped", async () => {
    const parent = dirWithMode(0o777);
    const target = fileIn(parent, 'config.json', JSON.stringify({ profiles: {} }));
    const config = mkdtempSync(join(tmpdir(), 'offramp-linked-config-'));
    symlinkSync(target, join(config, 'config.json'));
    const r = await runMain(['profile', 'list'], { env: { OFFRAMP_CONFIG_DIR: config } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: CONFIG_UNSAFE: refusing the config directory ${config}: ${parent} is writable by its group and other users (mode 0777)`);
  });

  it('a secret file in it is refused, even 0600: whoever writes the directory can swap the file', async () => {
    const group = dirWithMode(0o770);
    const file = fileIn(group, 'key', 'sk_test_swappable\n');
    const r = await runMain(['tx', 'list'], { env: { OFFRAMP_API_KEY_FILE: file, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: INSECURE_PATH: refusing OFFRAMP_API_KEY_FILE: ${group} is writable by its group (mode 0770)\n`);
    expect(r.stderr).not.toContain('sk_test_swappable');
  });

  it('a secret reached through a chain of links is refused when a link on the way stands in it', async () => {
    const shared = dirWithMode(0o777);
    const mine = mkdtempSync(join(tmpdir(), 'offramp-mine-'));
    mkdirSync(join(mine, 'real'), { mode: 0o700 });
    const file = fileIn(join(mine, 'real'), 'key', 'sk_test_chained\n');
    // mine/link1 -> shared/link2 -> mine/real: whoever writes `shared` can point link2 elsewhere.
    symlinkSync(join(mine, 'real'), join(shared, 'link2'));
    symlinkSync(join(shared, 'link2'), join(mine, 'link1'));
    const r = await runMain(['tx', 'list'], { env: { OFFRAMP_API_KEY_FILE: join(mine, 'link1', 'key'), OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: INSECURE_PATH: refusing OFFRAMP_API_KEY_FILE: ${shared} is writable by its group and other users (mode 0777)\n`);
    expect(r.stderr).not.toContain('sk_test_chained');
    // The same file by a path through none of it is read.
    const direct = await runMain(['tx', 'list'], { env: { OFFRAMP_API_KEY_FILE: file, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner', OFFRAMP_RETRIES: '0' } });
    expect(direct.stderr).not.toContain('INSECURE_PATH');
  });

  it('emulator wait --ready-file there is refused at once: no request, so no admin token, goes to the URL in it', async () => {
    const server = await scriptedServer([json(200, { status: 'ok' })]);
    try {
      const dir = dirWithMode(0o777);
      const ready = fileIn(dir, 'emulator.url', `${server.baseUrl}\n`, 0o644);
      const started = performance.now();
      const r = await runMain(['emulator', 'wait', '--ready-file', ready, '--admin-token', 'admin-token-not-for-them', '--timeout', '10s']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: INSECURE_PATH: refusing --ready-file ${ready}: ${dir} is writable by its group and other users (mode 0777)`);
      expect(performance.now() - started).toBeLessThan(5000);
      // Not there yet: refused as soon as the wait starts, not at its deadline.
      const missing = await runMain(['emulator', 'wait', '--ready-file', join(dir, 'later.url'), '--timeout', '10s']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('INSECURE_PATH');
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!posix)('a shared sticky directory (as /tmp)', () => {
  it('what is ours inside it is trusted, and no hint ever suggests changing the shared directory', async () => {
    const sticky = dirWithMode(0o1777);
    const key = fileIn(sticky, 'key', 'sk_test_sticky\n');
    const r = await runMain(['tx', 'list', '--json'], { env: { OFFRAMP_API_KEY_FILE: key, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner', OFFRAMP_RETRY_BASE_MS: '1' } });
    expect(r.stderr).not.toContain('INSECURE_PATH');
    const { handle } = await openPrivateFile(join(sticky, 'store.ndjson'), { flags: 0, create: true, createDirectory: true });
    await handle.close();
    const refusal = await ensurePrivateDirectory(sticky).catch((err: { hint?: string }) => err);
    expect(refusal).toMatchObject({ hint: `use a directory of your own (inside ${sticky} or elsewhere), not the shared directory itself` });
    const config = await runMain(['profile', 'list'], { env: { OFFRAMP_CONFIG_DIR: sticky } });
    expect(config.code).toBe(3);
    expect(config.stderr).toContain('hint: use a config directory of your own (OFFRAMP_CONFIG_DIR)\n');
    expect(`${config.stderr}${(refusal as Error).message}`).not.toMatch(/chmod \S+ \S*shared/);
  });

  it.runIf(root)("another user's entry in it is refused: a ready file they wrote, a directory of theirs", async () => {
    const server = await scriptedServer([json(200, { status: 'ok' })]);
    try {
      const sticky = dirWithMode(0o1777);
      const ready = fileIn(sticky, 'emulator.url', `${server.baseUrl}\n`, 0o644);
      chownSync(ready, NOBODY, NOBODY);
      const r = await runMain(['emulator', 'wait', '--ready-file', ready, '--admin-token', 'admin-token-not-for-them', '--timeout', '10s']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: INSECURE_PATH: refusing --ready-file ${ready}: ${ready} is owned by another user (uid ${NOBODY})`);
      expect(server.requests).toEqual([]);

      const theirs = join(sticky, 'theirs');
      mkdirSync(theirs, { mode: 0o755 });
      chownSync(theirs, NOBODY, NOBODY);
      const config = join(theirs, 'offramp');
      mkdirSync(config, { mode: 0o700 });
      const c = await runMain(['profile', 'list'], { env: { OFFRAMP_CONFIG_DIR: config } });
      expect(c.code).toBe(3);
      expect(c.stderr).toContain(`refusing the config directory ${config}: ${theirs} is owned by another user (uid ${NOBODY}) in the shared directory ${sticky}\n`);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!posix)('a secret file that is not a regular file', () => {
  const fifoDir = mkdtempSync(join(tmpdir(), 'offramp-fifo-'));

  it('a FIFO as OFFRAMP_API_KEY_FILE is refused at once, not waited on', async () => {
    const fifo = join(fifoDir, 'key.fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    // A process: a read that blocks would hold this one; here the run is killed after 10 s.
    const started = performance.now();
    const r = await runCli(['tx', 'list'], { env: { OFFRAMP_API_KEY_FILE: fifo, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' }, timeoutMs: 10_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: INSECURE_PATH: refusing OFFRAMP_API_KEY_FILE: ${fifo} is not a regular file (a FIFO)\nhint: give the path of a regular file\n`);
    expect(performance.now() - started).toBeLessThan(8000);
  });

  it('a socket or a device is refused the same way', async () => {
    const socketPath = join(fifoDir, 'key.sock');
    const server = createServer().listen(socketPath);
    await once(server, 'listening');
    try {
      for (const [file, kind] of [[socketPath, 'a socket'], ['/dev/zero', 'a device']] as const) {
        const r = await runMain(['tx', 'list'], { env: { OFFRAMP_API_KEY_FILE: file, OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner' } });
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`error: INSECURE_PATH: refusing OFFRAMP_API_KEY_FILE: ${file} is not a regular file (${kind})\nhint: give the path of a regular file\n`);
      }
    } finally {
      server.close();
    }
  });
});
