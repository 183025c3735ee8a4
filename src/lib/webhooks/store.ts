// The listener's event store: an NDJSON file, one received event per line, appended and
// flushed to disk before the delivery is answered 2xx, so an accepted event
// survives a crash (the spec, Events: "store the raw event" before answering).
//
// Line format (one JSON object per line; what `webhooks listen` writes):
//
//   {"v":2,"id":"<event id>","type":"<event type>","received_at":"<RFC 3339>",
//    "scheme":"<signature scheme that matched>","signature":"<X-SVC-Webhook-Signature as received>",
//    "body":"<the delivered body, as a JSON string>"}
//
// - `body` holds the delivery's bytes exactly (a JSON string escapes newlines, so even a
//   pretty-printed body stays on one line); a body that is not valid UTF-8 goes in
//   `body_base64` instead. The signature was computed over those bytes, so a reader can
//   re-verify them (`webhooks verify --from-store`, `conform`), with `received_at` as the
//   clock for a timestamped signature.
// - `id` and `type` repeat the body's, for grep and `jq .id`; the body is what counts.
// - Older stores hold lines that are just the event (`{"id","type","data"}`, the body byte
//   for byte when it was one line); they are still read, but carry no signature, scheme
//   or time. A line is the v2 form only when it has `"v":2` and a string `body` or
//   `body_base64`; anything else is read as an event.
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

/** What the store hands back for each line: the parsed event, its bytes as received, and its line. */
export type StoredEvent = {
  id: string;
  type: string | undefined;
  data: Record<string, unknown> | undefined;
  line: string;
  /** The event's bytes: exactly as delivered for a v2 line; for an older line, the line itself. */
  body: Buffer;
  /** v2 lines only: when it was received (RFC 3339), the scheme that matched, the header as received. */
  receivedAt?: string;
  scheme?: string;
  signature?: string;
};

/** What the receiver knows of a delivery when it stores it. */
export type Delivery = { body: Buffer; receivedAt: Date; scheme: string; signature: string; id: string; type: string };

/** The store line for a delivery (without its newline). */
export function formatStoredLine(d: Delivery): string {
  const text = d.body.toString('utf8');
  // Only when the text encodes back to the same bytes is a JSON string an exact copy.
  const exact = Buffer.byteLength(text) === d.body.length && Buffer.from(text, 'utf8').equals(d.body);
  return JSON.stringify({
    v: 2,
    id: d.id,
    type: d.type,
    received_at: d.receivedAt.toISOString(),
    scheme: d.scheme,
    signature: d.signature,
    ...(exact ? { body: text } : { body_base64: d.body.toString('base64') }),
  });
}

/** A store line (either form) as an event; undefined when it is not one. */
export function parseStoredLine(line: string): StoredEvent | undefined {
  const value = parseObject(line);
  if (!value) return undefined;
  if (value.v === 2 && (typeof value.body === 'string' || typeof value.body_base64 === 'string')) {
    const body = typeof value.body === 'string' ? Buffer.from(value.body, 'utf8') : Buffer.from(value.body_base64 as string, 'base64');
    const event = parseEventText(body.toString('utf8'));
    if (!event) return undefined;
    return {
      ...event,
      line,
      body,
      ...(typeof value.received_at === 'string' ? { receivedAt: value.received_at } : {}),
      ...(typeof value.scheme === 'string' ? { scheme: value.scheme } : {}),
      ...(typeof value.signature === 'string' ? { signature: value.signature } : {}),
    };
  }
  const event = eventOf(value);
  return event ? { ...event, line, body: Buffer.from(line, 'utf8') } : undefined;
}

/**
 * An event's JSON text (a delivery's body, an older store line) as `{ id, type, data }`:
 * a JSON object with a non-empty string id; type and data when present and well typed.
 */
export function parseEventText(text: string): Pick<StoredEvent, 'id' | 'type' | 'data'> | undefined {
  const value = parseObject(text);
  return value ? eventOf(value) : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function eventOf(v: Record<string, unknown>): Pick<StoredEvent, 'id' | 'type' | 'data'> | undefined {
  if (typeof v.id !== 'string' || v.id === '') return undefined;
  const data = v.data && typeof v.data === 'object' && !Array.isArray(v.data) ? (v.data as Record<string, unknown>) : undefined;
  return { id: v.id, type: typeof v.type === 'string' ? v.type : undefined, data };
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
