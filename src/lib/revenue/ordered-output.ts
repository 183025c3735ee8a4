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
// Spools live in a private directory under the OS temp dir (mode 0700), created only when
// a slice has to wait, and removed when the export ends, however it ends.
import { once } from 'node:events';
import { createReadStream, createWriteStream, WriteStream } from 'node:fs';
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

/** Writes a chunk and waits until the stream is done with it (its write callback), so its memory may be reused. */
function writeThrough(stream: Writable, chunk: Buffer): Promise<void> {
  if (stream.destroyed || stream.errored) return Promise.reject(stream.errored ?? new Error('output closed'));
  return new Promise((resolve, reject) => {
    stream.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/** Writes a chunk and waits for `drain` when the stream asks to (backpressure). */
export async function writeChunk(stream: Writable, chunk: string | Buffer): Promise<void> {
  if (chunk.length === 0) return;
  if (stream.destroyed || stream.errored) throw stream.errored ?? new Error('output closed');
  if (stream.write(chunk)) return;
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

export class OrderedOutput {
  /** Rows already written to the output (not counting spooled ones). */
  private written = 0;
  private spoolDir: Promise<string> | undefined;
  /** The one buffer spools are copied through (copies run one after another). */
  private copyBuffer: Buffer | undefined;
  readonly slices: SliceSink[];

  constructor(
    private readonly out: Writable,
    private readonly formatter: RowFormatter,
    count: number,
    private readonly tempRoot: string = tmpdir(),
  ) {
    this.slices = Array.from({ length: count }, (_, i) => new SliceSink(this, i));
  }

  get rowsWritten(): number {
    return this.written;
  }

  start(): Promise<void> {
    return writeChunk(this.out, this.formatter.header);
  }

  finish(): Promise<void> {
    return writeChunk(this.out, this.formatter.footer(this.written));
  }

  /** Removes every spool (after success or failure). */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.slices.map((s) => s.discard()));
    if (this.spoolDir) await rm(await this.spoolDir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** @internal */
  spoolPath(index: number): Promise<string> {
    this.spoolDir ??= mkdtemp(join(this.tempRoot, 'offramp-export-'));
    return this.spoolDir.then((dir) => join(dir, `slice-${index}`));
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
   * lets 32 MB of dead buffers pile up before it collects them. At the end of a large
   * export, where the later slices' spools are copied, that was 9-13 MB more peak RSS at
   * 100,000 rows, and more for larger exports. When the output hands its bytes straight
   * to the system (a file or a socket: done with a chunk once its write callback runs),
   * one buffer is read into and written again and again. Any other Writable (a Transform
   * may pass the very same buffer on) gets a fresh buffer per chunk, as before.
   */
  async copySpool(path: string, rows: number): Promise<void> {
    if (rows > 0 && this.written > 0) await writeChunk(this.out, this.formatter.separator);
    if (!(this.out instanceof WriteStream || this.out instanceof Socket)) {
      for await (const chunk of createReadStream(path, { highWaterMark: COPY_BUFFER_BYTES })) await writeChunk(this.out, chunk as Buffer);
    } else {
      const file = await open(path, 'r');
      try {
        this.copyBuffer ??= Buffer.allocUnsafeSlow(COPY_BUFFER_BYTES);
        for (;;) {
          const { bytesRead } = await file.read(this.copyBuffer, 0, COPY_BUFFER_BYTES, null);
          if (bytesRead === 0) break;
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
  private spool: { path: string; stream: WriteStream } | undefined;
  /** Writes and the promotion run one after another, in call order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly owner: OrderedOutput,
    readonly index: number,
  ) {}

  /**
   * Writes a page of rows (resolves when the output or the spool has taken them). The
   * text is made at once, so the row objects are garbage before any wait: kept alive
   * across I/O they would survive young-generation GCs and swell the heap.
   */
  write(rows: readonly object[]): Promise<void> {
    return rows.length === 0 ? this.settled() : this.writeText(this.owner.format(rows), rows.length);
  }

  /** Writes text made by the output's formatter for `rows` rows. */
  writeText(text: string, rows: number): Promise<void> {
    return this.enqueue(async () => {
      if (rows === 0) return;
      if (this.live) {
        await this.owner.writeLive(text, rows);
      } else {
        if (!this.spool) {
          const path = await this.owner.spoolPath(this.index);
          const stream = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: SPOOL_BUFFER_BYTES });
          // Kept on the stream (writeChunk reads it); a destroyed spool must not crash the process.
          stream.on('error', () => undefined);
          this.spool = { path, stream };
        }
        await writeChunk(this.spool.stream, this.rows > 0 ? this.owner.separator + text : text);
      }
      this.rows += rows;
    });
  }

  /** Makes this slice the head: flushes its spool to the output, then writes directly. */
  promote(): Promise<void> {
    return this.enqueue(async () => {
      if (this.spool) {
        const { path, stream } = this.spool;
        stream.end();
        await once(stream, 'close');
        await this.owner.copySpool(path, this.rows);
        this.spool = undefined;
        await rm(path, { force: true });
      }
      this.live = true;
    });
  }

  /** Waits for everything queued so far. */
  settled(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  async discard(): Promise<void> {
    const spool = this.spool;
    this.spool = undefined;
    if (!spool) return;
    spool.stream.destroy();
    await rm(spool.path, { force: true }).catch(() => undefined);
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.chain.then(step);
    // A failed step fails its caller; the chain itself keeps going for cleanup.
    this.chain = next.catch(() => undefined);
    return next;
  }
}
