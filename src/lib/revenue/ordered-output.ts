// Writes slices fetched concurrently in ledger order with flat memory.
//
// The slice at the head (the earliest one not yet fully written) writes straight to the
// output, with backpressure. A later slice that is fetched meanwhile cannot be written yet;
// holding its pages in memory would grow with the export, and making it wait would leave
// only the head fetching (no speed-up from concurrency). So it spools its text to a
// temporary file, with backpressure on that file. When the head finishes, the next slice
// is promoted: its spool is copied to the output and it goes on writing directly.
// Memory is then one page per running slice plus stream buffers, whatever the size.
//
// A resumable export (`spoolAll`) spools every slice, the head too, and reports each
// page once its bytes are in the spool file (the checkpoint records them): the output is
// assembled from the spools, in order, when the last slice is done. A spool of an earlier
// run is taken up where its checkpoint says it ended (`adopt`).
//
// Spools are created exclusively (never through an existing name or link), mode 0600, in a
// private directory: the caller's (workdir.ts), or one made under a temp root given here
// (mode 0700, created only when a slice has to wait, removed at cleanup).
import { once } from 'node:events';
import { createReadStream, createWriteStream, WriteStream, constants } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { RowFormatter } from './row-format.js';

/**
 * A spool buffers this much before it asks its slice to wait: pages then reach the disk
 * in a few large writes instead of one small write each.
 */
const SPOOL_BUFFER_BYTES = 1024 * 1024;

/** A finished spool is copied to the output in chunks of this size. */
const COPY_BUFFER_BYTES = 256 * 1024;

/**
 * Marks a Writable that is done with a chunk once that chunk's write callback has run (it
 * copies or hands the bytes on before calling back), so one buffer may be reused.
 */
export const RELEASES_CHUNKS = Symbol('releases chunks after their write callback');

function releasesChunks(stream: Writable): boolean {
  return stream instanceof WriteStream || stream instanceof Socket || (stream as { [RELEASES_CHUNKS]?: boolean })[RELEASES_CHUNKS] === true;
}

/** Writes a chunk and waits until the stream is done with it (its write callback), so its memory may be reused. */
function writeThrough(stream: Writable, chunk: Buffer): Promise<void> {
  if (stream.destroyed || stream.errored) return Promise.reject(stream.errored ?? new Error('output closed'));
  return new Promise((resolve, reject) => {
    stream.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * Writes a chunk and waits for `drain` when the stream asks to (backpressure).
 * `onWritten` runs once the stream has handed the chunk on (for a file: written to it).
 */
export async function writeChunk(stream: Writable, chunk: string | Buffer, onWritten?: () => void): Promise<void> {
  if (chunk.length === 0) {
    onWritten?.();
    return;
  }
  if (stream.destroyed || stream.errored) throw stream.errored ?? new Error('output closed');
  if (stream.write(chunk, onWritten ? (err) => err || onWritten() : undefined)) return;
  // Waits for drain; a stream destroyed meanwhile (with or without an error) ends the wait.
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error | null) => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(stream.errored ?? new Error('output closed'));
    stream.on('drain', onDrain);
    stream.on('close', onClose);
    stream.on('error', done);
  });
}

/** Where spools go: a fresh path for slice `index`'s spool, in a private directory. */
export type SpoolPlace = { spoolPath(index: number): Promise<string> };

export type OrderedOutputOptions = {
  /** A temp root to make a private directory in (removed at cleanup), or the caller's place. */
  spools?: string | SpoolPlace;
  /** Every slice spools; the output is assembled at finish (a resumable export). */
  spoolAll?: boolean;
};

export class OrderedOutput {
  /** Rows already written to the output (not counting spooled ones). */
  private written = 0;
  private ownDir: Promise<string> | undefined;
  private readonly place: SpoolPlace;
  private readonly tempRoot: string | undefined;
  /** The one buffer spools are copied through (copies run one after another). */
  private copyBuffer: Buffer | undefined;
  readonly spoolAll: boolean;
  readonly slices: SliceSink[];

  constructor(
    readonly out: Writable,
    private readonly formatter: RowFormatter,
    count: number,
    opts: string | OrderedOutputOptions = {},
  ) {
    const o = typeof opts === 'string' ? { spools: opts } : opts;
    this.spoolAll = Boolean(o.spoolAll);
    if (o.spools !== undefined && typeof o.spools !== 'string') {
      this.place = o.spools;
    } else {
      this.tempRoot = o.spools ?? tmpdir();
      this.place = {
        spoolPath: async (index) => {
          this.ownDir ??= mkdtemp(join(this.tempRoot!, 'offramp-export-'));
          return join(await this.ownDir, `slice-${index}`);
        },
      };
    }
    this.slices = Array.from({ length: count }, (_, i) => new SliceSink(this, i));
  }

  get rowsWritten(): number {
    return this.written;
  }

  start(): Promise<void> {
    return writeChunk(this.out, this.formatter.header);
  }

  /** Writes the footer; a resumable export first copies every spool to the output, in order. */
  async finish(): Promise<void> {
    if (this.spoolAll) for (const slice of this.slices) await slice.flushSpool();
    await writeChunk(this.out, this.formatter.footer(this.written));
  }

  /** Closes every spool; removes them unless the export is resumable (the caller decides). */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.slices.map((s) => s.discard(!this.spoolAll)));
    if (this.ownDir) await rm(await this.ownDir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** @internal */
  spoolPath(index: number): Promise<string> {
    return this.place.spoolPath(index);
  }

  /** @internal text of rows for the output or a spool */
  format(rows: readonly object[]): string {
    return this.formatter.rows(rows);
  }

  /** @internal */
  get separator(): string {
    return this.formatter.separator;
  }

  /** @internal */
  async writeLive(text: string, rows: number): Promise<void> {
    await writeChunk(this.out, this.written > 0 ? this.separator + text : text);
    this.written += rows;
  }

  /**
   * @internal copies a finished spool to the output.
   *
   * Reading a spool as a stream makes a new buffer for every chunk, outside V8's heap.
   * The copy allocates little on the heap itself, so no GC comes to free them, and V8
   * lets dead buffers pile up before it collects them, which at the end of a large export
   * (where the later slices' spools are copied) showed as peak RSS growing with the
   * export (BENCHMARKS.md). When the output is done with a chunk once its write callback
   * has run (a file, a socket, or a stream marked RELEASES_CHUNKS), one buffer is read
   * into and written again and again. Any other Writable (a Transform may pass the very
   * same buffer on) gets a fresh buffer per chunk.
   */
  async copySpool(path: string, rows: number, bytes?: number): Promise<void> {
    if (rows > 0 && this.written > 0) await writeChunk(this.out, this.formatter.separator);
    if (!releasesChunks(this.out)) {
      const range = bytes === undefined ? {} : { end: bytes - 1 };
      if (bytes !== 0) for await (const chunk of createReadStream(path, { highWaterMark: COPY_BUFFER_BYTES, ...range })) await writeChunk(this.out, chunk as Buffer);
    } else {
      const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        this.copyBuffer ??= Buffer.allocUnsafeSlow(COPY_BUFFER_BYTES);
        let left = bytes ?? Infinity;
        while (left > 0) {
          const { bytesRead } = await file.read(this.copyBuffer, 0, Math.min(COPY_BUFFER_BYTES, left), null);
          if (bytesRead === 0) break;
          left -= bytesRead;
          await writeThrough(this.out, this.copyBuffer.subarray(0, bytesRead));
        }
      } finally {
        await file.close();
      }
    }
    this.written += rows;
  }
}

/** One slice's way out: spooled until promoted, then straight to the output. */
export class SliceSink {
  private live = false;
  private rows = 0;
  /** Bytes written to this slice's spool so far. */
  private bytes = 0;
  private spool: { path: string; stream: WriteStream | undefined } | undefined;
  /** Writes and the promotion run one after another, in call order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly owner: OrderedOutput,
    readonly index: number,
  ) {}

  /** The spool file, once there is one (a resumable export records it). */
  get spoolPath(): string | undefined {
    return this.spool?.path;
  }

  /**
   * Writes a page of rows (resolves when the output or the spool has taken them). The
   * text is made at once, so the row objects are garbage before any wait: kept alive
   * across I/O they would survive young-generation GCs and swell the heap.
   */
  write(rows: readonly object[]): Promise<void> {
    return rows.length === 0 ? this.settled() : this.writeText(this.owner.format(rows), rows.length);
  }

  /**
   * Writes text made by the output's formatter for `rows` rows. `onWritten` is told the
   * spool's length once these bytes are in the spool file (a checkpoint may then count
   * them), or once the output took them when the slice writes live.
   */
  writeText(text: string, rows: number, onWritten?: (spoolBytes: number) => void): Promise<void> {
    return this.enqueue(async () => {
      if (rows === 0) {
        onWritten?.(this.bytes);
        return;
      }
      if (this.live) {
        await this.owner.writeLive(text, rows);
        this.rows += rows;
        onWritten?.(this.bytes);
        return;
      }
      const stream = await this.spoolStream();
      const chunk = this.rows > 0 ? this.owner.separator + text : text;
      this.bytes += Buffer.byteLength(chunk);
      this.rows += rows;
      const bytes = this.bytes;
      await writeChunk(stream, chunk, onWritten ? () => onWritten(bytes) : undefined);
    });
  }

  /**
   * Takes up a spool an earlier run left: its first `bytes` bytes hold `rows` rows (what the
   * checkpoint counted); anything after them is cut. Refused unless it is a regular file
   * at least that long.
   */
  adopt(path: string, bytes: number, rows: number): Promise<void> {
    return this.enqueue(async () => {
      const handle = await open(path, constants.O_WRONLY | constants.O_NOFOLLOW);
      try {
        const st = await handle.stat();
        if (!st.isFile() || st.size < bytes) throw new Error(`spool ${path} is shorter than its checkpoint says`);
        await handle.truncate(bytes);
      } catch (err) {
        await handle.close();
        throw err;
      }
      const stream = createWriteStream(path, { fd: handle, start: bytes, highWaterMark: SPOOL_BUFFER_BYTES });
      stream.on('error', () => undefined);
      this.spool = { path, stream };
      this.bytes = bytes;
      this.rows = rows;
    });
  }

  /** Makes this slice the head: flushes its spool to the output, then writes directly. */
  promote(): Promise<void> {
    return this.enqueue(async () => {
      // A resumable export keeps writing the spool; finish() assembles the output.
      if (this.owner.spoolAll) return;
      if (this.spool) {
        await this.closeSpool();
        await this.owner.copySpool(this.spool.path, this.rows, this.bytes);
        await rm(this.spool.path, { force: true });
        this.spool = undefined;
      }
      this.live = true;
    });
  }

  /** @internal a resumable export's assembly: copies the whole spool to the output. */
  flushSpool(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.spool) return;
      await this.closeSpool();
      await this.owner.copySpool(this.spool.path, this.rows, this.bytes);
    });
  }

  /** Waits for everything queued so far. */
  settled(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  /** Closes the spool (the export ended); `remove`: deletes its file too. */
  async discard(remove = true): Promise<void> {
    const spool = this.spool;
    if (!spool) return;
    if (remove) this.spool = undefined;
    if (spool.stream && !spool.stream.closed) {
      const closed = once(spool.stream, 'close').catch(() => undefined);
      spool.stream.destroy();
      await closed;
    }
    spool.stream = undefined;
    if (remove) await rm(spool.path, { force: true }).catch(() => undefined);
  }

  private async spoolStream(): Promise<WriteStream> {
    if (this.spool?.stream) return this.spool.stream;
    if (this.spool) throw new Error(`slice ${this.index + 1}: its spool is already closed`);
    const path = await this.owner.spoolPath(this.index);
    const stream = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: SPOOL_BUFFER_BYTES });
    // Kept on the stream (writeChunk reads it); a destroyed spool must not crash the process.
    stream.on('error', () => undefined);
    this.spool = { path, stream };
    await once(stream, 'open');
    return stream;
  }

  private async closeSpool(): Promise<void> {
    const stream = this.spool?.stream;
    if (!stream) return;
    if (!stream.closed) {
      const closed = once(stream, 'close');
      stream.end();
      await closed;
    }
    if (stream.errored) throw stream.errored;
    this.spool!.stream = undefined;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.chain.then(step);
    // A failed step fails its caller; the chain itself keeps going for cleanup.
    this.chain = next.catch(() => undefined);
    return next;
  }
}
