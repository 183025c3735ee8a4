// Where a slice's rows wait their turn (export.ts): a file of NDJSON lines, appended to as
// the slice's pages come, read back once from the start.
//
// An export to stdout spools without names: each spool is created (exclusively, 0600,
// under the temp directory) and unlinked in one step, with nothing else running in
// between, so however the export ends, a closed stdout or an uncaught error included, the
// system reclaims it when the descriptor closes. An export to a file names its spools in
// its checkpoint directory instead (resume.ts), so that they outlive a run that stopped.
import { randomBytes } from 'node:crypto';
import { close, fsync, openSync, read, rmSync, unlinkSync, write } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';

const writeAt = promisify(write);
const readAt = promisify(read);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** Spools are read back in pieces of this size, through one buffer each. */
const READ_BYTES = 64 * 1024;

export class Spool {
  private closed = false;

  /** `fd`: open for reading and writing; `bytes`: what it already holds (a spool taken up again). */
  constructor(
    readonly fd: number,
    private bytes = 0,
  ) {}

  /** A spool with no name in the temp directory. */
  static anonymous(): Spool {
    const path = join(tmpdir(), `offramp-spool-${randomBytes(8).toString('hex')}`);
    const fd = openSync(path, 'wx+', 0o600);
    unlinkSync(path);
    return new Spool(fd);
  }

  /** A new named spool at `path` (an older file of that name is replaced). */
  static named(path: string): Spool {
    rmSync(path, { force: true });
    return new Spool(openSync(path, 'wx+', 0o600));
  }

  get length(): number {
    return this.bytes;
  }

  /** Appends `text` whole. */
  async append(text: string): Promise<void> {
    const data = Buffer.from(text);
    for (let done = 0; done < data.length; ) done += (await writeAt(this.fd, data, done, data.length - done, this.bytes + done)).bytesWritten;
    this.bytes += data.length;
  }

  sync(): Promise<void> {
    return fsyncFd(this.fd);
  }

  /** Its lines, from the start. */
  async *lines(): AsyncGenerator<string> {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (let at = 0; at < this.bytes; ) {
      const { bytesRead } = await readAt(this.fd, buffer, 0, Math.min(READ_BYTES, this.bytes - at), at);
      if (bytesRead === 0) throw new Error('a spool ended before its length');
      at += bytesRead;
      const lines = (rest + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
      rest = lines.pop()!;
      yield* lines;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await closeFd(this.fd);
  }
}
