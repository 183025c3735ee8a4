// The listener's event store (docs/webhooks.md, "The store"): an NDJSON file, each line on
// disk before its delivery is answered 2xx, since the service does not redeliver what was
// acknowledged.
//
// A write that fails is cut back to the last whole line before its batch is refused, and
// nothing more is written until a cut succeeds: so a torn last line can only be a crash's,
// never answered 2xx, and opening the store sets it aside. The file must be the user's own
// and writable by no one else (src/lib/fs/private.ts): a planted store could inject events.
import { constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { isUtf8 } from 'node:buffer';
import { openPrivateFile } from '../fs/private.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../fs/pid-lock.js';
import { shellQuote } from '../input/values.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { isObject } from '../client/paginate.js';
import { findByPrefix, idOrPrefixProblem, parseIdOrPrefix } from '../tx/short-id.js';

/** The store's name at its default place, and where earlier versions kept it: the working directory. */
export const STORE_NAME = 'webhooks.ndjson';

/** How help names the default store, whose place depends on the environment. */
export const DEFAULT_STORE = `$XDG_STATE_HOME/offramp/${STORE_NAME}`;

/**
 * The store a reader reads: the file `flag` names (`true`: the flag given bare), else listen's
 * default. `label` names it in messages; `hint` says what to do when it is missing.
 */
export function storeToRead(file: string | true | undefined, flag: string, env: NodeJS.ProcessEnv): { path: string; label: string; hint?: string } {
  if (typeof file === 'string') {
    if (file.trim() === '') throw new UsageError(`${flag}: give a file name`, 'a store `webhooks listen --store FILE` wrote');
    return { path: file, label: `${flag} ${file}` };
  }
  const path = defaultStorePath(env);
  return { path, label: `${path} (the store \`webhooks listen\` writes by default)`, hint: oldStoreNote(env) ?? `run \`offramp webhooks listen\` first, or name a store with ${flag} FILE` };
}

/** The default store, for listen and its readers alike (docs/webhooks.md, "The store", says why there). */
export function defaultStorePath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'offramp', STORE_NAME);
}

/** A store at the old default place, named with the command that moves it while the new default has none (docs/webhooks.md, "The store"). */
export function oldStoreNote(env: NodeJS.ProcessEnv): string | undefined {
  const old = resolve(STORE_NAME);
  const now = defaultStorePath(env);
  if (!existsSync(old) || existsSync(now)) return undefined;
  return `${old} is a store at the old default place (the working directory); the default is now ${now}. To keep using its events there: mkdir -p -m 700 ${shellQuote(dirname(now))} && mv -n ${shellQuote(old)} ${shellQuote(now)}`;
}

/** Counts kept while the store is opened and read. */
export type StoreLoadTally = {
  events: number;
  /** Whole lines that are not events (kept in the file, ignored). */
  unreadable: number;
  /** Bytes of a torn last line that were set aside and cut off (0 when none). */
  tornBytes: number;
  tornPath?: string;
  created: boolean;
  /** The store's lock was left by this process id, no longer running (a listener killed, say), and taken over. */
  staleLockFrom?: number;
};

/** What the store writes through: a FileHandle, or (in tests) a shim around one that fails on cue. */
export interface StoreFile {
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export type StoreOptions = {
  /** Fault injection for tests: wraps the opened file, e.g. to fail a write halfway. */
  wrapFile?: (file: StoreFile) => StoreFile;
};

export class EventStore {
  private queue: { data: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  /** A failed write could not be cut back: nothing is written until a cut succeeds. */
  private damaged = false;

  private constructor(
    private readonly file: StoreFile,
    /** Bytes of whole lines in the file: where a failed write is cut back to. */
    private size: number,
    private readonly syncAfterWrite: boolean,
    private readonly lock: PidLock,
  ) {}

  /** Opens (or creates) the store; `onEvent` sees each stored event in file order, to rebuild dedupe, statuses and what is owed. */
  static async open(path: string, onEvent: (event: StoredEvent) => void, options: StoreOptions = {}): Promise<{ store: EventStore; tally: StoreLoadTally }> {
    const dsync = constants.O_DSYNC;
    const { handle, created } = await openPrivateFile(path, {
      flags: constants.O_RDWR | constants.O_APPEND | (dsync ?? 0),
      create: true,
      createDirectory: true,
      what: `the store ${path}`,
    });
    let lock: PidLock | undefined;
    try {
      // Before anything is read or cut: a live listener's batch in flight is not a torn line.
      lock = await lockStore(path);
      const tally: StoreLoadTally = { events: 0, unreadable: 0, tornBytes: 0, created, ...(lock.tookOverFrom !== undefined ? { staleLockFrom: lock.tookOverFrom } : {}) };
      let size = (await handle.stat()).size;
      const whole = await wholeLinesEnd(handle, size);
      if (whole < size) {
        tally.tornPath = await setAside(path, handle, whole, size);
        tally.tornBytes = size - whole;
        await handle.truncate(whole);
        await handle.datasync();
        size = whole;
      }
      for await (const line of wholeLines(handle, size)) {
        const event = parseStoredLine(line);
        if (!event) tally.unreadable++;
        else {
          tally.events++;
          onEvent(event);
        }
      }
      const file = options.wrapFile ? options.wrapFile(handle) : handle;
      return { store: new EventStore(file, size, dsync === undefined, lock), tally };
    } catch (err) {
      await handle.close().catch(() => undefined);
      await lock?.release();
      throw err;
    }
  }

  /** Appends one line (a newline is added) and resolves once it is on disk. */
  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the event store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data: `${line}\n`, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** One batch at a time: several writes in flight were slower, as the filesystem serialises them anyway. */
  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        if (this.damaged) await this.cutBack();
        await this.writeBatch(Buffer.from(batch.length === 1 ? batch[0]!.data : batch.map((p) => p.data).join('')));
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err as Error);
      }
    }
    this.flushing = null;
  }

  private async writeBatch(buffer: Buffer): Promise<void> {
    try {
      let offset = 0;
      while (offset < buffer.length) offset += (await this.file.write(buffer, offset, buffer.length - offset)).bytesWritten;
      if (this.syncAfterWrite) await this.file.datasync();
      this.size += buffer.length;
    } catch (err) {
      // Whatever part of the batch reached the file goes; if it cannot, later batches wait.
      this.damaged = true;
      await this.cutBack().catch(() => undefined);
      throw err;
    }
  }

  private async cutBack(): Promise<void> {
    try {
      await this.file.truncate(this.size);
      await this.file.datasync();
      this.damaged = false;
    } catch (err) {
      throw new Error(`a failed write left a partial line that could not be removed yet (${(err as Error).message})`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    if (this.damaged) await this.cutBack().catch(() => undefined);
    try {
      await this.file.close();
    } finally {
      await this.lock.release();
    }
  }
}

/** What the store hands back for each line: the parsed event and its bytes as received. */
export type StoredEvent = {
  id: string;
  type: string | undefined;
  data: Record<string, unknown> | undefined;
  /** The event's bytes, exactly as delivered. */
  body: Buffer;
  /** When it was received (RFC 3339), the scheme that matched, the header as received. */
  receivedAt: string;
  scheme: string;
  signature: string;
  /** Received while forwarding: the app is owed it until the forward log has its id. */
  forward?: boolean;
};

/** The store line for a delivery the receiver accepted (without its newline). */
export function formatStoredLine(d: Omit<StoredEvent, 'data' | 'receivedAt'> & { type: string; receivedAt: Date }): string {
  // Valid UTF-8 decodes and encodes back to the same bytes, so a JSON string is an exact copy.
  const body = isUtf8(d.body) ? `"body":${JSON.stringify(d.body.toString('utf8'))}` : `"body_base64":"${d.body.toString('base64')}"`;
  return `{"v":2,"id":${JSON.stringify(d.id)},"type":${JSON.stringify(d.type)},"received_at":"${d.receivedAt.toISOString()}","scheme":"${d.scheme}","signature":${JSON.stringify(d.signature)},${body}${d.forward ? ',"forward":true' : ''}}`;
}

/** A store line as an event; undefined when it is not one. */
export function parseStoredLine(line: string): StoredEvent | undefined {
  const value = parseObject(line);
  if (!value || value.v !== 2) return undefined;
  const { received_at: receivedAt, scheme, signature } = value;
  if (typeof receivedAt !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') return undefined;
  let body: Buffer;
  if (typeof value.body === 'string') body = Buffer.from(value.body, 'utf8');
  else if (typeof value.body_base64 === 'string') body = Buffer.from(value.body_base64, 'base64');
  else return undefined;
  const event = parseEventText(body.toString('utf8'));
  if (!event) return undefined;
  return { ...event, body, receivedAt, scheme, signature, ...(value.forward === true ? { forward: true } : {}) };
}

/** Every event of the store a reader names (storeToRead); what keeps it from being read is a usage error naming it. */
export async function eventsToRead(file: string | true | undefined, flag: string, env: NodeJS.ProcessEnv): Promise<{ path: string; label: string; events: StoredEvent[] }> {
  const { path, label, hint } = storeToRead(file, flag, env);
  const events: StoredEvent[] = [];
  try {
    for await (const event of readStoredEvents(path)) events.push(event);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new UsageError(`${label}: no such file`, hint);
    if (e.code && e.syscall) throw new UsageError(`${label}: ${e.message}`);
    throw err;
  }
  return { path, label, events };
}

/** Every event of a store, checked as the listener checks it and read as it stands (a torn last line is left out, not cut). */
export async function* readStoredEvents(path: string): AsyncGenerator<StoredEvent> {
  const { handle } = await openPrivateFile(path, { flags: constants.O_RDONLY, what: `the store ${path}` });
  try {
    for await (const line of wholeLines(handle, await wholeLinesEnd(handle, (await handle.stat()).size))) {
      const event = parseStoredLine(line);
      if (event) yield event;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The stored event `--event` names: its id as stored, or the one whose id starts with an 8+
 * hex prefix (docs/transactions.md, "Short ids"; NOT_FOUND, exit 4, when none or several
 * do). Undefined when a whole id is not in the store.
 */
export async function storedEventId(events: StoredEvent[], given: string, store: string): Promise<string | undefined> {
  const v = given.trim();
  const exact = events.find((e) => e.id === v || e.id.toLowerCase() === v.toLowerCase());
  if (exact || idOrPrefixProblem(v) !== null) return exact?.id;
  const named = parseIdOrPrefix(v, '--event');
  if ('id' in named) return undefined;
  return findByPrefix(named.prefix, {
    what: 'stored event',
    records: events,
    heldIn: `in ${store}`,
    idOf: (e) => e.id,
    describe: (e) => `${e.type ?? 'no type'}, received ${e.receivedAt}`,
    listCommand: { hint: 'the store holds one event a line; --event takes its "id" or its first 8+ characters' },
  }).then((lower) => events.find((e) => e.id.toLowerCase() === lower)!.id);
}

/** A delivery's body as `{ id, type, data }`: a JSON object with a non-empty string id; type and data when well typed. */
export function parseEventText(text: string): Pick<StoredEvent, 'id' | 'type' | 'data'> | undefined {
  const v = parseObject(text);
  if (typeof v?.id !== 'string' || v.id === '') return undefined;
  return { id: v.id, type: typeof v.type === 'string' ? v.type : undefined, data: isObject(v.data) ? v.data : undefined };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}

/** The non-blank lines of the file's first `end` bytes (`end` just after a newline: wholeLinesEnd). */
export async function* wholeLines(handle: FileHandle, end: number): AsyncGenerator<string> {
  if (end === 0) return;
  const lines = createInterface({ input: handle.createReadStream({ start: 0, end: end - 1, autoClose: false, encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim() !== '') yield line;
}

/** The offset just after the file's last newline (0 when it has none): the end of its whole lines. */
export async function wholeLinesEnd(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

/** Copies bytes [from, to) of the store into a new private file beside it; returns its path. */
async function setAside(path: string, handle: FileHandle, from: number, to: number): Promise<string> {
  const bytes = Buffer.alloc(to - from);
  await handle.read(bytes, 0, bytes.length, from);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let n = 1; ; n++) {
    const aside = `${path}.torn-${stamp}${n > 1 ? `-${n}` : ''}`;
    let out: FileHandle;
    try {
      ({ handle: out } = await openPrivateFile(aside, { flags: constants.O_WRONLY, exclusive: true, what: `the torn-line file ${aside}` }));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    try {
      await out.write(bytes, 0, bytes.length);
      await out.datasync();
    } finally {
      await out.close();
    }
    return aside;
  }
}

/**
 * Takes `storePath`.lock for this process, or throws STORE_IN_USE naming the holder: one
 * listener per store (docs/webhooks.md, "What a 2xx means", says why).
 */
async function lockStore(storePath: string): Promise<PidLock> {
  try {
    return await takePidLock(`${storePath}.lock`);
  } catch (err) {
    if (err instanceof LockHeldError) {
      throw new CliError(
        `the store ${storePath} is in use by another listener (process ${err.pid})`,
        'STORE_IN_USE',
        EXIT.conflict,
        `stop that one first, or give this one its own --store; if no listener runs, remove ${err.path}`,
      );
    }
    if (err instanceof LockContendedError) {
      throw new CliError(`the store ${storePath}: its lock ${err.path} keeps reappearing`, 'STORE_IN_USE', EXIT.conflict, 'is another listener starting on it at the same time?');
    }
    throw err;
  }
}
