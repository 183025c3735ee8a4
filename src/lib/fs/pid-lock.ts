// A lock file holding its owner's process id, beside what it guards (FILE.lock): what keeps
// a second emulator off a state file (src/emulator/state-file.ts) and a second listener off
// a webhook store (src/lib/webhooks/store-lock.ts). Node has no flock(); a pid file is what
// ssh-agent, postgres and npm's own locks rely on in the same place. A resumable export's
// directory (FILE.offramp-resume, src/lib/revenue/resume.ts) is held the same way.
//
// - The lock is created with the pid already in it: written to a temporary file (0600,
//   O_EXCL, stale.ts's one temporary name), then linked into place, and link fails when the
//   lock exists. So no one ever reads a lock without its id and takes it for a stale one.
// - A lock whose process runs (this one included: two holders in one process are two
//   holders) is held: LockHeldError with its pid. One whose process is gone (killed with
//   SIGKILL, a restarted machine) is stale: removed and taken, and `tookOverFrom` says
//   whose it was. A lock without a readable pid is stale too.
// - Before a stale lock is removed it is read again, so a lock another process has just put
//   in its place is not the one removed.
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

/** Takes the lock at `path` for this process. Other failures (permissions, a missing directory) are thrown as they come. */
export async function takePidLock(path: string): Promise<PidLock> {
  await removeStaleTemps(path);
  let tookOverFrom: number | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createWithPid(path)) {
      let released = false;
      return {
        path,
        ...(tookOverFrom !== undefined ? { tookOverFrom } : {}),
        release: async () => {
          if (released) return;
          released = true;
          await unlink(path).catch(() => undefined);
        },
      };
    }
    const holder = await lockHolder(path);
    if (holder !== undefined && (holder === process.pid || isAlive(holder))) throw new LockHeldError(path, holder);
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
