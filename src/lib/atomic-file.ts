// A file that appears complete or not at all: written as `FILE.tmp-<pid>` beside the
// target, synced, then renamed over it (rename is atomic within a directory). A failed or
// interrupted write removes the temporary file; a process killed outright (SIGKILL) leaves
// only `FILE.tmp-<pid>`, never a partial FILE, and the next write to FILE removes such
// leftovers whose process is gone.
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';

export class AtomicFile {
  private finished = false;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    readonly stream: WriteStream,
  ) {}

  static async create(path: string): Promise<AtomicFile> {
    await removeStaleTemps(path);
    const tempPath = `${path}.tmp-${process.pid}`;
    // flush: the data is fsynced before the descriptor closes, so the rename publishes
    // a file whose bytes are on disk.
    const stream = createWriteStream(tempPath, { flags: 'w', mode: 0o644, flush: true, highWaterMark: 256 * 1024 });
    await once(stream, 'open');
    // Errors stay on the stream (`errored`); writers and commit() check it. Without a
    // listener, a write failing after abort() would crash the process.
    stream.on('error', () => undefined);
    return new AtomicFile(path, tempPath, stream);
  }

  /** Flushes, syncs and renames the file into place. */
  async commit(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    try {
      const closed = once(this.stream, 'close');
      this.stream.end();
      await closed;
      if (this.stream.errored) throw this.stream.errored;
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

async function removeStaleTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
