// What processes that are gone left behind (src/lib/fs/stale.ts): whether a process runs,
// and the one sweep, here over directories held by a lock file as an export's run
// directories are. Only the user's own, private, old enough and unheld ones go; never
// through a link.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockHolder } from '../../src/lib/fs/pid-lock.js';
import { isAlive, sweep } from '../../src/lib/fs/stale.js';

const isRoot = process.getuid?.() === 0;
const DAY_MS = 86_400_000;

describe('isAlive', () => {
  it('this process and its parent run; a process that ended, or no process at all, does not', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(process.ppid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(isAlive(Number(ended.stdout))).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 22 + 1]) expect(isAlive(pid)).toBe(false);
  });
});

describe('sweep, over directories held by a lock file', () => {
  it("removes the user's own that are old and unheld, and nothing else", async () => {
    const root = mkdtempSync(join(tmpdir(), 'offramp-sweep-'));
    const old = (Date.now() - 2 * DAY_MS) / 1000;
    const dir = (name: string, holder: number | undefined, mode = 0o700) => {
      const path = join(root, name);
      mkdirSync(path, { mode });
      if (holder !== undefined) writeFileSync(join(path, 'lock'), `${holder}\n`);
      utimesSync(path, old, old);
      return path;
    };
    const stale = dir('run-stale', 2 ** 22 + 1);
    const unlocked = dir('run-unlocked', undefined);
    const held = dir('run-held', process.pid);
    const open = dir('run-open', 2 ** 22 + 1, 0o755);
    const young = dir('run-young', 2 ** 22 + 1);
    utimesSync(young, new Date(), new Date());
    const notOurs = dir('other-stale', 2 ** 22 + 1);
    const target = mkdtempSync(join(tmpdir(), 'offramp-sweep-target-'));
    symlinkSync(target, join(root, 'run-link'));
    const foreign = dir('run-foreign', 2 ** 22 + 1);
    if (isRoot) chownSync(foreign, 65534, 65534);

    const removed = await sweep(root, {
      kind: 'directory',
      ours: (name) => name.startsWith('run-'),
      owner: (_name, path) => lockHolder(join(path, 'lock')),
      olderThanMs: DAY_MS,
    });

    expect(existsSync(stale)).toBe(false);
    expect(existsSync(unlocked)).toBe(false);
    for (const kept of [held, open, young, notOurs, target, join(root, 'run-link')]) expect(existsSync(kept), kept).toBe(true);
    // Only root can make it another user's here; otherwise it is the user's own, and stale.
    expect(existsSync(foreign)).toBe(isRoot);
    expect(removed).toBe(isRoot ? 2 : 3);
  });
});
