// What processes that are gone left behind, and whether a process is gone.
//
// Whatever the CLI or the emulator writes aside carries its writer's process id in its
// temporary name (`FILE.tmp-<pid>-<random>`, tempPath). Once that process no longer runs
// (killed with SIGKILL, a restarted machine), the next write to FILE removes the leftover,
// and only when it is the user's own regular file: never through a symbolic link, never
// another user's.
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

/** `.tmp-<pid>-<random>` after FILE's name. */
const TEMP_SUFFIX = /^\.tmp-(\d+)-[0-9a-f]+$/;

/**
 * Removes the temporary files of `path` (tempPath) that processes no longer running left
 * beside it. Errors are ignored: another process may be sweeping the same place.
 */
export async function removeStaleTemps(path: string): Promise<void> {
  const base = basename(path);
  const dir = dirname(path);
  const me = process.getuid?.();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = name.startsWith(base) ? Number(TEMP_SUFFIX.exec(name.slice(base.length))?.[1]) : Number.NaN;
    if (Number.isNaN(pid) || pid === process.pid || isAlive(pid)) continue;
    const file = join(dir, name);
    // lstat: a link is not a regular file here, so nothing is removed through one.
    const st = await lstat(file).catch(() => undefined);
    if (!st?.isFile() || (me !== undefined && st.uid !== me)) continue;
    await rm(file, { force: true }).catch(() => undefined);
  }
}
