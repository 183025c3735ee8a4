// A file that appears complete or not at all: written under a temporary name beside the
// target, synced, then renamed over it.
//
// The temporary name cannot be guessed and is opened with O_EXCL, mode 0600: another local
// user can neither plant a link there to have us overwrite a file of their choosing nor read
// what we write. An existing FILE's mode carries over unless one is asked for. A process
// killed outright leaves only its temporary file, never a partial FILE, and the next write
// removes it (stale.ts). Not `atomically` (the writer conf uses): it opens without O_EXCL,
// follows a planted link, and creates files 0666 less the umask.
import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { removeStaleTemps, tempPath } from './stale.js';

export type AtomicFileOptions = {
  /** The unpredictable part of the temporary name (tests fix it to plant a link there). */
  random?: () => string;
  /** The file's mode, whether new or replaced; default 0600 for a new file, the old one's otherwise. */
  mode?: number;
};

export class AtomicFile {
  private finished = false;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    readonly stream: WriteStream,
    private readonly mode: number | undefined,
  ) {}

  static async create(path: string, opts: AtomicFileOptions = {}): Promise<AtomicFile> {
    await removeStaleTemps(path);
    for (let attempt = 0; ; attempt++) {
      const temp = tempPath(path, opts.random);
      // wx: O_CREAT | O_EXCL. flush: the data is fsynced before the descriptor closes, so
      // the rename publishes a file whose bytes are on disk.
      const stream = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 256 * 1024 });
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
      return new AtomicFile(path, temp, stream, opts.mode);
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
      const existing = this.mode === undefined ? await stat(this.path).catch(() => undefined) : undefined;
      const mode = this.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : undefined);
      if (mode !== undefined) await chmod(this.tempPath, mode);
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

/** Writes a file whole from what is in memory, aside and renamed; AtomicFile is for what streams. */
export async function writeAside(path: string, content: string | Buffer | readonly Buffer[], mode?: number): Promise<void> {
  const file = await AtomicFile.create(path, mode !== undefined ? { mode } : {});
  try {
    for (const chunk of Array.isArray(content) ? content : [content]) {
      if (file.stream.write(chunk)) continue;
      if (file.stream.errored) throw file.stream.errored;
      await once(file.stream, 'drain');
    }
  } catch (err) {
    await file.abort();
    throw err;
  }
  await file.commit();
}
