// `--state FILE` (docs/emulator.md, "State file"): the emulator's state on disk, loaded at
// start and kept current while it runs.
//
// - Loading: the file must be a regular file owned by this user and not writable by group
//   or others (refused otherwise, as ssh refuses such keys: another user could plant
//   state); a damaged file or one from another version is refused whole (state-codec.ts).
//   A missing or empty file is a fresh start.
// - Writing: each change is reported to a PendingChanges; at most FLUSH_DELAY_MS after the
//   first one, the records that changed are appended as one batch with its checksum, so
//   keeping the file current costs what the traffic costs, not what the state weighs. A
//   process killed meanwhile loses at most that batch: a batch cut short is dropped on the
//   next load, everything before it stands.
// - Rewriting: at start, at a clean stop, after a reset or an import, and when superseded
//   records outweigh the live ones, the whole state is written to a temporary file in the
//   same directory (created exclusively, mode 0600, synced) and renamed over FILE: the file
//   is always either the old whole or the new whole.
// - A lock file (FILE.lock, holding the pid) keeps a second emulator off the same file.
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { isAlive } from '../lib/atomic-file.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../lib/pid-lock.js';
import type { PendingChanges } from './changes.js';
import { iso } from './clock.js';
import { StateFileError } from './errors.js';
import type { Runtime } from './runtime.js';
import type { DecodedState } from './state-codec.js';
import {
  clockLine,
  commitLine,
  decodeDocument,
  eventLine,
  headerLine,
  idempotencyLine,
  partnerRecordLines,
  quoteLine,
  rowLine,
  StateFormatError,
  txLine,
} from './state-codec.js';
import type { PartnerState } from './store.js';

/** How long a change may wait before it is on disk: well inside the second the CLI contract allows. */
export const FLUSH_DELAY_MS = 200;
/** After a failed write, the next try (a full disk is not fixed in milliseconds). */
const RETRY_AFTER_FAILURE_MS = 2000;
/** Superseded lines tolerated before a rewrite, at the least. */
const MIN_GARBAGE_LINES = 10_000;
/** Lines per write when rewriting: big enough to be cheap, small enough not to hold a huge string. */
const CHUNK_CHARS = 1 << 20;

export type StateFileStatus = {
  path: string;
  /** Whether every change so far is in the file. */
  up_to_date: boolean;
  /** When the file was last written, in real time (not the emulator's business time). */
  last_written_at: string | null;
};

export class StateFile {
  private rt: Runtime | undefined;
  private pending: PendingChanges | undefined;
  private handle: FileHandle | undefined;
  /** FILE.lock while this emulator uses the file (src/lib/pid-lock.ts). */
  private lockHeld: PidLock | undefined;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private writing = false;
  private closing = false;
  private closed = false;
  /** Where each partner's records are in the file (its `p`), fixed at each rewrite. */
  private index = new Map<PartnerState, number>();
  /**
   * For the rewrite decision: transaction and event lines appended since the last rewrite,
   * and how many of those records there were then. Every appended line beyond one per new
   * record supersedes an earlier line: garbage.
   */
  private appendedLines = 0;
  private recordsAtRewrite = 0;
  private forceRewrite = false;
  private lastWrittenAt: string | null = null;

  private constructor(
    readonly path: string,
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  /** Takes the lock and reads the file; `decoded` is undefined for a fresh start. */
  static async open(path: string, log?: (line: string) => void): Promise<{ file: StateFile; decoded: DecodedState | undefined }> {
    const file = new StateFile(resolve(path), log);
    await file.lock();
    try {
      await file.removeStaleTemps();
      return { file, decoded: await file.read() };
    } catch (err) {
      await file.unlock();
      throw err;
    }
  }

  /** Starts keeping the file current for this runtime; writes it whole first. */
  async attach(rt: Runtime, pending: PendingChanges): Promise<void> {
    this.rt = rt;
    this.pending = pending;
    await this.enqueue(() => this.rewrite());
  }

  /** Called on every change: the next write happens within FLUSH_DELAY_MS. */
  wake(): void {
    if (this.timer || this.closing || !this.rt) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.enqueue(() => this.writeChanges());
    }, FLUSH_DELAY_MS);
  }

  /** Writes what is pending now. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    return this.enqueue(() => this.writeChanges());
  }

  status(): StateFileStatus {
    return {
      path: this.path,
      up_to_date: !this.writing && this.timer === undefined && (this.pending?.empty ?? true),
      last_written_at: this.lastWrittenAt,
    };
  }

  /** Writes the whole state (synced) and lets go of the file. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.rt) await this.enqueue(() => this.rewrite());
    this.closed = true;
    await this.chain;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await this.unlock();
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.closed) return;
      this.writing = true;
      try {
        await step();
      } catch (err) {
        // The emulator keeps serving; the next write, tried again shortly, rewrites the file whole.
        this.forceRewrite = true;
        this.log?.(`state file: could not write ${this.path}: ${(err as Error).message}`);
        if (!this.closing) setTimeout(() => this.wake(), RETRY_AFTER_FAILURE_MS).unref();
      } finally {
        this.writing = false;
      }
    });
    return this.chain;
  }

  private async read(): Promise<DecodedState | undefined> {
    let info;
    try {
      info = await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StateFileError(`cannot read state file ${this.path}: ${(err as Error).message}`);
    }
    if (!info.isFile()) throw new StateFileError(`state file ${this.path} is not a regular file`);
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
      throw new StateFileError(`state file ${this.path} is owned by another user (uid ${info.uid}); refusing it`);
    }
    if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
      throw new StateFileError(
        `state file ${this.path} is writable by group or others (mode ${(info.mode & 0o777).toString(8)}); refusing it (chmod 600 it if it is yours)`,
      );
    }
    if (info.size === 0) return undefined;
    const bytes = await readFile(this.path);
    let decoded: DecodedState;
    try {
      decoded = decodeDocument(bytes, { allowCutShort: true, what: `state file ${this.path}` });
    } catch (err) {
      if (err instanceof StateFormatError) throw new StateFileError(err.message);
      throw err;
    }
    if (decoded.droppedBytes > 0) {
      this.log?.(`state file: dropped an unfinished last write (${decoded.droppedBytes} bytes; the emulator was stopped mid-write)`);
    }
    return decoded;
  }

  /** Appends the records that changed since the last write, as one batch. */
  private async writeChanges(): Promise<void> {
    const rt = this.rt!;
    const pending = this.pending!;
    if (pending.empty && !this.forceRewrite) return;
    if (this.forceRewrite || this.garbage() > Math.max(MIN_GARBAGE_LINES, this.records())) return this.rewrite();
    const batch = pending.take();
    if (batch.everything) return this.rewrite();
    const lines: string[] = [];
    for (const [partner, changes] of batch.partners) {
      const p = this.index.get(partner);
      if (p === undefined) return this.rewrite();
      for (const quote of changes.quotes) lines.push(quoteLine(p, quote));
      for (const tx of changes.txs) lines.push(txLine(p, tx));
      for (const evt of changes.events) {
        // The event's transaction, if its line is in this batch (written just above).
        const tx = partner.transactions.get(evt.aggregate_id);
        lines.push(eventLine(p, evt, tx && changes.txs.has(tx) ? tx : undefined));
      }
      this.appendedLines += changes.txs.size + changes.events.size;
      for (const id of changes.idempotency) {
        const entry = partner.idempotency.entry(id);
        if (entry) lines.push(idempotencyLine(p, id, entry));
      }
      for (const row of changes.rows) lines.push(rowLine(p, row));
    }
    if (batch.clock) lines.push(clockLine(rt.clockOffsetMs));
    if (lines.length === 0) return;
    const body = Buffer.from(`${lines.join('\n')}\n`);
    const commit = Buffer.from(`${commitLine(lines.length, crc32(body))}\n`);
    // One write of the batch and its commit: what a kill cuts short is only ever the tail.
    const { bytesWritten } = await this.handle!.writev([body, commit]);
    // A short write (a full disk) leaves part of a batch that later batches must not
    // follow: the file is rewritten whole instead (enqueue sees to it).
    if (bytesWritten !== body.length + commit.length) throw new Error(`only ${bytesWritten} of ${body.length + commit.length} bytes were written`);
    this.lastWrittenAt = new Date().toISOString();
  }

  /** Transactions and events, across every partner: the records a later line can supersede. */
  private records(): number {
    let n = 0;
    for (const p of [...this.rt!.store.partners, ...this.rt!.store.dormant]) n += p.txList.length + p.eventList.length;
    return n;
  }

  /** Appended lines that superseded an earlier line of the same record (an estimate, see appendedLines). */
  private garbage(): number {
    return this.appendedLines - (this.records() - this.recordsAtRewrite);
  }

  /** Writes the whole state to a temporary file and renames it over the state file. */
  private async rewrite(): Promise<void> {
    const rt = this.rt!;
    // Everything pending is in what follows: taken and serialised in the same turn.
    this.pending!.take();
    this.forceRewrite = false;
    const partners = [...rt.store.partners, ...rt.store.dormant];
    const lines = [headerLine(iso(rt.clock.now()))];
    this.index = new Map(partners.map((p, i) => [p, i]));
    partners.forEach((partner, p) => partnerRecordLines(p, partner, lines));
    lines.push(clockLine(rt.clockOffsetMs));
    this.appendedLines = 0;
    this.recordsAtRewrite = this.records();

    const temp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    // Exclusive create: never follow or reuse a file someone else put there.
    const out = await open(temp, 'wx', 0o600);
    try {
      let crc = 0;
      let chunk: string[] = [];
      let size = 0;
      const put = async () => {
        const bytes = Buffer.from(`${chunk.join('\n')}\n`);
        crc = crc32(bytes, crc);
        await out.write(bytes);
        chunk = [];
        size = 0;
      };
      for (const line of lines) {
        chunk.push(line);
        size += line.length;
        if (size >= CHUNK_CHARS) await put();
      }
      if (chunk.length > 0) await put();
      await out.write(`${commitLine(lines.length, crc)}\n`);
      await out.sync();
      await out.close();
      await rename(temp, this.path);
    } catch (err) {
      await out.close().catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
    await this.handle?.close().catch(() => undefined);
    this.handle = await open(this.path, 'a');
    this.lastWrittenAt = new Date().toISOString();
  }

  private async lock(): Promise<void> {
    try {
      this.lockHeld = await takePidLock(`${this.path}.lock`);
    } catch (err) {
      if (err instanceof LockHeldError) throw new StateFileError(`state file ${this.path} is in use by another emulator (process ${err.pid}); stop it first`);
      if (err instanceof LockContendedError) throw new StateFileError(`cannot lock state file ${this.path}: ${err.path} keeps coming back`);
      throw new StateFileError(`cannot lock state file ${this.path}: ${(err as Error).message}`);
    }
  }

  private async unlock(): Promise<void> {
    await this.lockHeld?.release();
    this.lockHeld = undefined;
  }

  /** Temporary files of rewrites that a killed emulator left behind. */
  private async removeStaleTemps(): Promise<void> {
    const prefix = `.${basename(this.path)}.`;
    const names = await readdir(dirname(this.path)).catch(() => [] as string[]);
    for (const name of names) {
      const m = name.startsWith(prefix) ? /\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name) : null;
      if (m && !isAlive(Number(m[1]))) await rm(join(dirname(this.path), name), { force: true }).catch(() => undefined);
    }
  }
}

