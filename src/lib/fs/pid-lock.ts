// A lock file holding its owner's process id, beside what it guards (FILE.lock): an
// emulator's state file, a webhook store, a resumable export's directory. Node has no
// flock(); a pid file is what ssh-agent, postgres and npm's own locks rely on.
//
// The lock is created with the pid already in it (a temporary file linked into place; link
// fails when the lock exists), so no one reads a lock without its id and takes it for stale.
// A lock whose process runs is held; one naming this process only if this process took it,
// since a container restarted on its volume runs as the same pid as the one killed before.
// A stale one is read again before it is removed, so a lock another process has just put
// in its place is not the one removed.
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { isAlive, removeStaleTemps, tempPath } from './stale.js';

export type PidLock = {
  path: string;
  /** The lock was left by this process id, no longer running, and taken over. */
  tookOverFrom?: number;
  /** Removes the lock (once; later calls do nothing). */
  release(): Promise<void>;
};

/** The lock is held by a running process. */
export class LockHeldError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`${path} is held by process ${pid}`);
  }
}

/** The lock kept reappearing while a stale one was being replaced. */
export class LockContendedError extends Error {
  constructor(readonly path: string) {
    super(`${path} keeps coming back`);
  }
}

/** The locks this process holds. */
const held = new Set<string>();

/** Takes the lock at `path` for this process. Other failures (permissions, a missing directory) are thrown as they come. */
export async function takePidLock(path: string): Promise<PidLock> {
  await removeStaleTemps(path);
  let tookOverFrom: number | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createWithPid(path)) {
      held.add(path);
      let released = false;
      return {
        path,
        ...(tookOverFrom !== undefined ? { tookOverFrom } : {}),
        release: async () => {
          if (released) return;
          released = true;
          held.delete(path);
          await unlink(path).catch(() => undefined);
        },
      };
    }
    const holder = await lockHolder(path);
    if (holder !== undefined && (holder === process.pid ? held.has(path) : isAlive(holder))) throw new LockHeldError(path, holder);
    if (holder !== undefined) tookOverFrom = holder;
    if ((await lockHolder(path)) === holder) {
      await unlink(path).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
  }
  throw new LockContendedError(path);
}

/** Links a file already holding this pid into place; false when the lock exists. */
async function createWithPid(path: string): Promise<boolean> {
  const temporary = tempPath(path);
  await writeFile(temporary, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  try {
    await link(temporary, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** The pid in the lock at `path`; undefined when there is no lock or no pid in it. */
export async function lockHolder(path: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
