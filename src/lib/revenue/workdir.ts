// Where an export keeps what is not the output: the spools of slices fetched ahead of their
// turn and, with --resume, the checkpoint. One directory per run under the OS temp dir,
// made by mkdtemp (a name nobody can guess or plant beforehand, mode 0700: only the user can
// enter it), holding a `lock` file with the run's pid. Every file in it is created
// exclusively (O_EXCL: a name that exists, a symbolic link included, is never opened), mode
// 0600.
//
// A run removes its directory however it ends; only SIGKILL (or a crash of the machine)
// can leave one, and a run with --resume keeps its own on purpose when it stops early. The
// next export removes such directories when they are the user's own, older than a day,
// and no live process holds their lock.
import { randomBytes } from 'node:crypto';
import { constants, rmSync } from 'node:fs';
import { lstat, mkdtemp, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../atomic-file.js';
import { LockContendedError, LockHeldError, lockHolder, takePidLock } from '../pid-lock.js';

export const WORKDIR_PREFIX = 'offramp-export-';
const LOCK = 'lock';
export const STALE_AFTER_MS = 24 * 3600 * 1000;

/** A name in a private directory that nobody can predict. */
export function unpredictable(prefix: string): string {
  return `${prefix}.${randomBytes(8).toString('hex')}`;
}

const uid = () => process.getuid?.();

/** lstat says: a real directory (not a link), the user's own, nobody else may enter or write. */
function privateDir(st: { isDirectory(): boolean; uid: number; mode: number }): boolean {
  const me = uid();
  return st.isDirectory() && (me === undefined || (st.uid === me && (st.mode & 0o077) === 0));
}

export class WorkDir {
  private removed = false;
  /** Kept when the run ends (a resumable export that did not finish). */
  keep = false;

  private constructor(readonly path: string) {}

  /** A new private directory, locked by this process. */
  static async create(root: string = tmpdir()): Promise<WorkDir> {
    const path = await mkdtemp(join(root, WORKDIR_PREFIX));
    const dir = new WorkDir(path);
    try {
      await takePidLock(dir.file(LOCK));
    } catch (err) {
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    return dir;
  }

  /**
   * Takes over the directory of an earlier run (--resume). Refused when it is not a private
   * directory of the user's, or a live process holds it.
   */
  static async adopt(path: string): Promise<WorkDir> {
    if (!privateDir(await lstat(path))) throw new Error(`${path} is not a private directory of yours`);
    try {
      await takePidLock(join(path, LOCK));
    } catch (err) {
      if (err instanceof LockHeldError) throw new Error(`another export (pid ${err.pid}) is using it`);
      if (err instanceof LockContendedError) throw new Error('another export took it meanwhile');
      throw err;
    }
    return new WorkDir(path);
  }

  file(name: string): string {
    return join(this.path, name);
  }

  /** Creates a file that did not exist (never through a link), 0600, with `data`. */
  async writeNew(name: string, data: string): Promise<void> {
    await writeFile(this.file(name), data, { flag: 'wx', mode: 0o600 });
  }

  /** Replaces `name` whole: written under a fresh name, then renamed over it. */
  async replace(name: string, data: string): Promise<void> {
    const temp = unpredictable(`${name}.new`);
    await this.writeNew(temp, data);
    await rename(this.file(temp), this.file(name));
  }

  /** Reads a regular file of the directory (never through a link). */
  read(name: string): Promise<string> {
    return readPrivateFile(this.file(name));
  }

  async remove(): Promise<void> {
    if (this.removed || this.keep) return this.unlock();
    this.removed = true;
    await rm(this.path, { recursive: true, force: true }).catch(() => undefined);
  }

  /** For `process.on('exit')`, where nothing asynchronous runs any more. */
  removeSync(): void {
    if (this.removed) return;
    if (this.keep) {
      rmSync(this.file(LOCK), { force: true });
      return;
    }
    this.removed = true;
    rmSync(this.path, { recursive: true, force: true });
  }

  private async unlock(): Promise<void> {
    if (this.removed) return;
    await rm(this.file(LOCK), { force: true }).catch(() => undefined);
  }
}

/** Reads a regular file, never through a link. */
export async function readPrivateFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The run directories under `root` that are the user's own (private, not links). */
export async function ownWorkDirs(root: string = tmpdir()): Promise<{ path: string; mtimeMs: number }[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const dirs: { path: string; mtimeMs: number }[] = [];
  for (const name of names) {
    if (!name.startsWith(WORKDIR_PREFIX)) continue;
    const path = join(root, name);
    const st = await lstat(path).catch(() => undefined);
    if (st && privateDir(st)) dirs.push({ path, mtimeMs: st.mtimeMs });
  }
  return dirs;
}

/**
 * Removes run directories left by exports that were killed: the user's own, untouched for
 * `maxAgeMs`, and not locked by a live process. Errors are ignored (another run may be
 * sweeping the same directory).
 */
export async function sweepStaleWorkDirs(root: string = tmpdir(), now = Date.now(), maxAgeMs = STALE_AFTER_MS): Promise<number> {
  let removed = 0;
  for (const dir of await ownWorkDirs(root)) {
    if (now - dir.mtimeMs < maxAgeMs) continue;
    const holder = await lockHolder(join(dir.path, LOCK)).catch(() => undefined);
    if (holder !== undefined && isAlive(holder)) continue;
    await rm(dir.path, { recursive: true, force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}
