// One listener per store (docs/webhooks.md, "What a 2xx means"): a second process
// appending to the same file would cut the first one's acknowledged lines back after a
// failed write, and its start-up check would take the first one's batch in flight for a
// torn line. So the listener holds `FILE.lock` (src/lib/fs/pid-lock.ts) while the store is
// open, beside the store in the directory the store's checks already hold to the user alone.
import { CliError, EXIT } from '../errors.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../fs/pid-lock.js';

/** Takes `storePath`.lock for this process, or throws STORE_IN_USE naming the holder. */
export async function lockStore(storePath: string): Promise<PidLock> {
  try {
    return await takePidLock(`${storePath}.lock`);
  } catch (err) {
    if (err instanceof LockHeldError) {
      throw new CliError(
        `the store ${storePath} is in use by another listener (process ${err.pid})`,
        'STORE_IN_USE',
        EXIT.conflict,
        `stop that one first, or give this one its own --store; if no listener runs, remove ${err.path}`,
      );
    }
    if (err instanceof LockContendedError) {
      throw new CliError(`the store ${storePath}: its lock ${err.path} keeps reappearing`, 'STORE_IN_USE', EXIT.conflict, 'is another listener starting on it at the same time?');
    }
    throw err;
  }
}
