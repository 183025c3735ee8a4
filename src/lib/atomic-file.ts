// A file that appears complete or not at all: written under a temporary name beside the
// target, synced, then renamed over it (rename is atomic within a directory).
//
// The temporary name, `FILE.tmp-<pid>-<random>`, cannot be guessed, and it is opened with
// exclusive create (O_EXCL: a name that exists, a symbolic link included, is never opened
// or followed): another local user can neither plant a link there to have us overwrite a
// file of their choosing nor create the file first to read what we write. It is created
// mode 0600, so nobody else reads it while it is written; a new FILE keeps that mode, and an
// existing FILE's mode is carried over to its replacement.
//
// A failed or interrupted write removes the temporary file; a process killed outright
// (SIGKILL) leaves only the temporary file, never a partial FILE, and the next write to FILE
// removes such leftovers when they are the user's own and their process is gone.
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { chmod, lstat, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';

export type AtomicFileOptions = {
  /** The unpredictable part of the temporary name (tests fix it to plant a link there). */
  random?: () => string;
};

export class AtomicFile {
  private finished = false;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    readonly stream: WriteStream,
  ) {}

  static async create(path: string, opts: AtomicFileOptions = {}): Promise<AtomicFile> {
    await removeStaleTemps(path);
    const random = opts.random ?? (() => randomBytes(8).toString('hex'));
    for (let attempt = 0; ; attempt++) {
      const tempPath = `${path}.tmp-${process.pid}-${random()}`;
      // wx: O_CREAT | O_EXCL. flush: the data is fsynced before the descriptor closes, so
      // the rename publishes a file whose bytes are on disk.
      const stream = createWriteStream(tempPath, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 256 * 1024 });
      try {
        await once(stream, 'open');
      } catch (err) {
        // Taken (a planted link or file, or a very unlucky draw): never written through; a new name.
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue;
        throw err;
      }
      // Errors stay on the stream (`errored`); writers and commit() check it. Without a
      // listener, a write failing after abort() would crash the process.
      stream.on('error', () => undefined);
      return new AtomicFile(path, tempPath, stream);
    }
  }

  /** Flushes, syncs and renames the file into place. */
  async commit(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    try {
      if (!this.stream.closed) {
        const closed = once(this.stream, 'close');
        this.stream.end();
        await closed;
      }
      if (this.stream.errored) throw this.stream.errored;
      const existing = await stat(this.path).catch(() => undefined);
      if (existing?.isFile()) await chmod(this.tempPath, existing.mode & 0o7777);
      await rename(this.tempPath, this.path);
    } catch (err) {
      this.stream.destroy();
      await rm(this.tempPath, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Drops the temporary file; the target is left as it was. */
  async abort(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (!this.stream.closed) {
      const closed = once(this.stream, 'close').catch(() => undefined);
      this.stream.destroy();
      await closed;
    }
    await rm(this.tempPath, { force: true }).catch(() => undefined);
  }
}

/** `FILE.tmp-<pid>` (earlier versions) and `FILE.tmp-<pid>-<random>`. */
const TEMP_SUFFIX = /^\.tmp-(\d+)(?:-[0-9a-f]+)?$/;

async function removeStaleTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const me = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(base)) continue;
    const m = TEMP_SUFFIX.exec(name.slice(base.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    const st = await lstat(join(dir, name)).catch(() => undefined);
    // Only the user's own regular files: never another user's file, never through a link.
    if (!st?.isFile() || (me !== undefined && st.uid !== me)) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

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
 * Writes a small file whole: to a fresh name beside it (created exclusively, `mode`), then
 * renamed over `path`, so a reader sees the old file or the new one, never half of one.
 * For one-shot files (the emulator's ready file, a state export); AtomicFile streams.
 */
export async function writeAside(path: string, content: string, mode: number): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { flag: 'wx', mode });
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}
