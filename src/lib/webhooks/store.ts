// The listener's event store: an NDJSON file, one raw event per line, appended and
// flushed to disk before the delivery is answered 2xx, so an accepted event
// survives a crash (partner-api.md, Events: "store the raw event" before answering).
//
// Appends that arrive while a write is running are written together as the next batch
// (group commit): each delivery still waits for its own line to be on disk, but a burst
// costs one synchronous write per batch instead of one per event. The file is opened
// with O_DSYNC, so a write returns once its data is on disk: one system call per batch
// rather than a write and an fdatasync (where O_DSYNC is missing, an fdatasync follows).
//
// Opening the store reads the ids already in it, so a restarted listener does not accept
// an old event again. A last line without its newline is what a crash during a write
// leaves; that event was never answered 2xx (the sync comes first), so the torn tail is cut
// off and the service's redelivery will bring the event again.
import { constants, createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export type StoreLoadReport = {
  /** Events read from the file. */
  events: number;
  /** Lines that were not a JSON object with a string `id` (skipped). */
  unreadable: number;
  /** Bytes of a torn last line that were cut off. */
  tornBytes: number;
};

type Pending = { data: string; resolve: () => void; reject: (err: Error) => void };

export class EventStore {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    private readonly syncAfterWrite: boolean,
  ) {}

  /**
   * Opens (creating, mode 0600) the store at `path`; `onEvent` sees each stored event in
   * file order, so the caller can rebuild its dedupe set and per-transaction statuses.
   */
  static async open(path: string, onEvent: (event: StoredEvent) => void): Promise<{ store: EventStore; report: StoreLoadReport }> {
    const report: StoreLoadReport = { events: 0, unreadable: 0, tornBytes: 0 };
    const size = await stat(path).then((s) => s.size, (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return -1;
      throw err;
    });
    if (size > 0) {
      report.tornBytes = await cutTornTail(path, size);
      const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        const event = parseStoredLine(line);
        if (event) {
          report.events++;
          onEvent(event);
        } else {
          report.unreadable++;
        }
      }
    }
    const dsync = constants.O_DSYNC;
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (dsync ?? 0);
    const fh = await open(path, flags, 0o600);
    return { store: new EventStore(path, fh, dsync === undefined), report };
  }

  /** Appends one line (a newline is added) and resolves once it is on disk. */
  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the event store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data: `${line}\n`, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /**
   * One batch at a time: everything queued goes out in one write. (Several synchronous
   * writes in flight measured slower: the filesystem serialises them anyway and batches
   * get smaller.)
   */
  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const buffer = Buffer.from(batch.length === 1 ? batch[0]!.data : batch.map((p) => p.data).join(''));
        let offset = 0;
        while (offset < buffer.length) offset += (await this.fh.write(buffer, offset)).bytesWritten;
        if (this.syncAfterWrite) await this.fh.datasync();
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err as Error);
      }
    }
    this.flushing = null;
  }

  /** Waits for pending appends, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}

/** What the store hands back for each line: the parsed event and its line. */
export type StoredEvent = { id: string; type: string | undefined; data: Record<string, unknown> | undefined; line: string };

export function parseStoredLine(line: string): StoredEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || v.id === '') return undefined;
  const data = v.data && typeof v.data === 'object' && !Array.isArray(v.data) ? (v.data as Record<string, unknown>) : undefined;
  return { id: v.id, type: typeof v.type === 'string' ? v.type : undefined, data, line };
}

/** Truncates the file after its last newline when it does not end with one; returns the bytes cut. */
async function cutTornTail(path: string, size: number): Promise<number> {
  const fh = await open(path, 'r+');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    const last = Buffer.alloc(1);
    await fh.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return 0;
    // Scan backwards for the last newline.
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await fh.read(chunk, 0, end - start, start);
      const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (at >= 0) {
        const keep = start + at + 1;
        await fh.truncate(keep);
        return size - keep;
      }
      end = start;
    }
    await fh.truncate(0);
    return size;
  } finally {
    await fh.close();
  }
}
