// The pid lock (src/lib/fs/pid-lock.ts) that keeps a second emulator off a state file and
// a second listener off a store: created with the pid already in it, refused while its
// process runs, taken over when it does not, and released once.
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockHeldError, lockHolder, takePidLock } from '../../src/lib/fs/pid-lock.js';

const DEAD = 2 ** 22 + 12345;
const fresh = () => join(mkdtempSync(join(tmpdir(), 'offramp-lock-')), 'store.lock');

describe('takePidLock', () => {
  it('holds the pid from the moment it exists, 0600; a second holder is refused, even in this process; release frees it', async () => {
    const path = fresh();
    const lock = await takePidLock(path);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid}\n`);
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(lock.tookOverFrom).toBeUndefined();
    const refused = await takePidLock(path).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(LockHeldError);
    expect(refused).toMatchObject({ pid: process.pid, path });
    await lock.release();
    await lock.release();
    expect(existsSync(path)).toBe(false);
    expect(await lockHolder(path)).toBeUndefined();
  });

  it('takes over a lock naming this pid that this process did not take: a container restarted on its volume after docker kill', async () => {
    const path = fresh();
    writeFileSync(path, `${process.pid}\n`);
    const lock = await takePidLock(path);
    expect(lock.tookOverFrom).toBe(process.pid);
    await expect(takePidLock(path)).rejects.toBeInstanceOf(LockHeldError);
    await lock.release();
  });

  it('takes over a lock whose process is gone, and says whose it was; a lock without a pid is stale too', async () => {
    const path = fresh();
    writeFileSync(path, `${DEAD}\n`);
    const lock = await takePidLock(path);
    expect(lock.tookOverFrom).toBe(DEAD);
    expect(await lockHolder(path)).toBe(process.pid);
    await lock.release();
    writeFileSync(path, 'not a pid');
    const again = await takePidLock(path);
    expect(again.tookOverFrom).toBeUndefined();
    expect(await lockHolder(path)).toBe(process.pid);
    await again.release();
  });

  it('removes the temporary file a killed process left while creating its lock', async () => {
    const path = fresh();
    writeFileSync(`${path}.tmp-${DEAD}-0a0a`, `${DEAD}\n`);
    const lock = await takePidLock(path);
    expect(readdirSync(join(path, '..'))).toEqual(['store.lock']);
    await lock.release();
  });
});
