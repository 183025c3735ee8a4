// Whether a process runs (src/lib/fs/stale.ts). What gone processes left behind, and which
// of it goes, is in atomic.test.ts (temporary files) and pid-lock.test.ts (locks).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/lib/fs/stale.js';

describe('isAlive', () => {
  it('this process and its parent run; a process that ended, or no process at all, does not', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(process.ppid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(isAlive(Number(ended.stdout))).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 22 + 1]) expect(isAlive(pid)).toBe(false);
  });
});
