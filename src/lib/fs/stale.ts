// What processes that are gone left behind, and whether a process is gone.
//
// Whatever the CLI or the emulator writes aside carries its writer's process id: a
// temporary file in its name (`FILE.tmp-<pid>-<random>`, tempPath), a directory in a lock
// file inside it (pid-lock.ts). Once that process no longer runs (killed with SIGKILL, a
// restarted machine), the next one to work in the same place removes it, and only when it
// is the user's own: a regular file, or a directory only the user can enter; never through
// a symbolic link, never another user's.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Whether a process with this pid runs (the user's or another user's). A zombie (killed,
 * not yet reaped: a container without an init leaves them) runs nothing and counts as gone.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; Linux only, elsewhere the process counts as alive.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * `FILE.tmp-<pid>-<random>`: the one name of a temporary file beside FILE. Nobody can
 * guess it (the random part), and its pid says when it is a leftover.
 */
export function tempPath(path: string, random: () => string = () => randomBytes(8).toString('hex')): string {
  return `${path}.tmp-${process.pid}-${random()}`;
}

/** `.tmp-<pid>` (earlier versions) and `.tmp-<pid>-<random>` after FILE's name. */
const TEMP_SUFFIX = /^\.tmp-(\d+)(?:-[0-9a-f]+)?$/;

/** Removes the temporary files of `path` (tempPath) that processes no longer running left beside it. */
export async function removeStaleTemps(path: string): Promise<void> {
  const base = basename(path);
  const pidOf = (name: string) => (name.startsWith(base) ? TEMP_SUFFIX.exec(name.slice(base.length))?.[1] : undefined);
  await sweep(dirname(path), { kind: 'file', ours: (name) => pidOf(name) !== undefined, owner: (name) => Number(pidOf(name)) });
}

export type SweepOptions = {
  /** Files, or directories (removed with what they hold). */
  kind: 'file' | 'directory';
  /** Whether an entry is one of ours, by its name. */
  ours(name: string): boolean;
  /** The process an entry of ours belongs to; undefined when none is known. */
  owner(name: string, path: string): number | undefined | Promise<number | undefined>;
  /** Only entries untouched for this long (another process of the user's may be about to use a young one). */
  olderThanMs?: number;
  now?: number;
};

/**
 * Removes the entries of `dir` that are ours and whose process no longer runs, when they
 * are the user's own (a directory: one nobody else may enter). Answers how many went.
 * Errors are ignored: another process may be sweeping the same place.
 */
export async function sweep(dir: string, opts: SweepOptions): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const me = process.getuid?.();
  const now = opts.now ?? Date.now();
  let removed = 0;
  for (const name of names) {
    if (!opts.ours(name)) continue;
    const path = join(dir, name);
    // lstat: a link is neither a file nor a directory here, so nothing is read or removed through one.
    const st = await lstat(path).catch(() => undefined);
    if (!st || (me !== undefined && st.uid !== me)) continue;
    if (opts.kind === 'file' ? !st.isFile() : !st.isDirectory() || (me !== undefined && (st.mode & 0o077) !== 0)) continue;
    if (opts.olderThanMs !== undefined && now - st.mtimeMs < opts.olderThanMs) continue;
    const pid = await Promise.resolve(opts.owner(name, path)).catch(() => undefined);
    if (pid !== undefined && (pid === process.pid || isAlive(pid))) continue;
    await rm(path, { recursive: opts.kind === 'directory', force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}
