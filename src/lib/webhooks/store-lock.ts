// One listener per store (docs/webhooks.md, "What a 2xx means"): a second process
// appending to the same file would cut the first one's acknowledged lines back after a
// failed write, and its start-up check would take the first one's batch in flight for a
// torn line. So the listener holds `FILE.lock` while the store is open: created with
// O_EXCL (0600, beside the store, in the directory the store's checks already hold to
// the user alone), holding the owner's process id from the moment it exists. A lock whose process is gone (a
// listener killed with SIGKILL, a machine that restarted) is taken over; one whose
// process still runs is refused with its id. Node has no flock(); a pid file is what
// ssh-agent, postgres and npm's own locks rely on in the same place.
import { constants } from 'node:fs';
import { link, readFile, unlink } from 'node:fs/promises';
import { isAlive } from '../atomic-file.js';
import { CliError, EXIT } from '../errors.js';
import { openPrivateFile } from '../secure-path.js';

/** Another live process holds the store. */
export class StoreInUseError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, 'STORE_IN_USE', EXIT.conflict, hint);
  }
}

export type StoreLock = {
  path: string;
  /** A lock taken over from a process that is gone: its id. */
  tookOverFrom?: number;
  release(): Promise<void>;
};

/** Takes `storePath`.lock for this process, or throws StoreInUseError naming the holder. */
export async function lockStore(storePath: string): Promise<StoreLock> {
  const path = `${storePath}.lock`;
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
    const holder = await readHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new StoreInUseError(
        `the store ${storePath} is in use by another listener (process ${holder})`,
        `stop that one first, or give this one its own --store; if no listener runs, remove ${path}`,
      );
    }
    // Its process is gone: the lock is stale. Looked at again just before it goes, so a
    // lock another listener has just put in its place is not the one removed.
    if (holder !== undefined) tookOverFrom = holder;
    if ((await readHolder(path)) === holder) {
      await unlink(path).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
  }
  throw new StoreInUseError(`the store ${storePath}: its lock ${path} keeps reappearing`, 'is another listener starting on it at the same time?');
}

/**
 * Creates the lock with this process's id already in it: written to a private temporary
 * file first, then linked into place (link fails when the lock exists), so no one ever
 * reads a lock without its id. False when the lock exists.
 */
async function createWithPid(path: string): Promise<boolean> {
  const temporary = `${path}.${process.pid}.tmp`;
  await unlink(temporary).catch(() => undefined);
  const { handle } = await openPrivateFile(temporary, { flags: constants.O_WRONLY, exclusive: true, what: `the store's lock ${path}` });
  try {
    try {
      await handle.write(`${process.pid}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await link(temporary, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function readHolder(path: string): Promise<number | undefined> {
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

