// `--state FILE` (docs/emulator.md, "State file" says what it promises): a snapshot (FILE)
// and a journal after it (FILE.journal.N), as Redis's append-only file or SQLite's WAL.
// The changes of one turn of the event loop go in one write (group commit) that their
// answers wait for; the disk is synced every FSYNC_INTERVAL_MS. Each write ends with a
// commit line counting its lines and holding their CRC-32: a crash cuts a write, so a
// change's records come back together or not at all, and a torn last write is told from
// damage. A fold writes the state a slice at a time beside FILE while changes go into a
// fresh segment; records are whole and a later one wins (state-codec.ts), so snapshot plus
// segments replay to the current state. A write that fails is undone by reading the disk back.
import { once } from 'node:events';
import { ftruncateSync, writeSync } from 'node:fs';
import { open, readdir, readFile, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { AtomicFile } from '../lib/fs/atomic.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../lib/fs/pid-lock.js';
import { distrust, trustHint } from '../lib/fs/private.js';
import { iso } from './clock.js';
import { ApiProblem } from './envelope.js';
import { StateFileError } from './errors.js';
import type { Change, Journaling, Runtime } from './runtime.js';
import type { DecodedState, PartnerState } from './partners.js';
import { clockLine, documentChunks, eventLine, freshPartnerLines, headerLine, idemLine, jsonOr, quoteLine, readDocument } from './state-codec.js';
import { readHeader, rowLine, StateDecoder, StateFormatError, stateLines, txLine } from './state-codec.js';

/** How often written data is synced to the disk: what a power cut may lose. */
export const FSYNC_INTERVAL_MS = 100;
/** While the journal cannot be written, how often a write is tried again. */
const RETRY_MS = 1000;
/** The journal is folded into a snapshot once it outgrows the snapshot, and this. */
const FOLD_MIN_BYTES = 16 * 1024 * 1024;

type Segment = { n: number; path: string; handle: FileHandle | undefined; size: number; synced: number };
type Deferred = { promise: Promise<void>; resolve(): void; reject(err: unknown): void };
/** What changed since the last write, per partner; `fresh` when it was replaced whole. */
type Dirty = { fresh: boolean; records: Map<string, Change> };

type Loaded = { decoded: DecodedState | undefined; next: number; snapshotBytes: number; journalBytes: number };

export class StateJournal implements Journaling {
  private rt: Runtime | undefined;
  private segment: Segment;
  private retired: Segment[] = [];
  private dirty = new Map<PartnerState, Dirty>();
  private wipe = false;
  private clockMoved = false;
  /** The answers waiting for the next write, and for the one under way. */
  private pending: Deferred | undefined;
  private inflight: Deferred | undefined;
  private scheduled = false;
  private writing = false;
  /** Set while the state is put back from the disk: those changes are not journaled again. */
  private replaying = false;
  /** Moves on at every roll-back: a snapshot begun before it would hold what was undone. */
  private generation = 0;
  /** Set while changes are refused (503), until a write succeeds again. */
  private failingSince: string | null = null;
  private lastError: string | null = null;
  private lastFsyncAt: string | null = null;
  private lastSnapshotAt: string | null = null;
  private folding: Promise<void> | undefined;
  private foldAfter = 0;
  private syncing: Promise<void> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly lock: PidLock,
    private readonly log: ((line: string) => void) | undefined,
    loaded: Loaded,
    private snapshotBytes = loaded.snapshotBytes,
    private journalBytes = loaded.journalBytes,
  ) {
    this.segment = segmentAt(path, loaded.next);
  }

  /** Takes the lock and reads the snapshot and its journal; `decoded` is undefined for a fresh start. */
  static async open(path: string, log?: (line: string) => void): Promise<{ journal: StateJournal; decoded: DecodedState | undefined }> {
    const full = resolve(path);
    const lock = await lockFile(full);
    try {
      const loaded = await load(full, log);
      return { journal: new StateJournal(full, lock, log, loaded), decoded: loaded.decoded };
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** Starts journaling `rt`'s changes; a fresh start writes its first snapshot now. */
  async attach(rt: Runtime): Promise<void> {
    this.rt = rt;
    this.syncTimer = setInterval(() => void this.sync(), FSYNC_INTERVAL_MS).unref();
    if (this.pending) {
      this.schedule();
      await this.committed().catch(() => undefined);
    }
    if (this.snapshotBytes > 0) return this.maybeFold();
    await this.fold();
    if (this.lastSnapshotAt === null) throw new StateFileError(`cannot write state file ${this.path}: ${this.lastError}`);
  }

  changed(...change: Change): void {
    // Before attach, the state installed is the one on disk; what changes after it (expiries
    // due while the emulator was stopped) is journaled once attached.
    if (this.replaying || this.closed || (!this.rt && change[0] === 'all')) return;
    const [kind, partner] = change;
    if (kind === 'all') {
      this.wipe = true;
      this.dirty.clear();
    } else if (kind === 'clock') {
      this.clockMoved = true;
    } else if (kind === 'partner') {
      this.dirty.set(change[1], { fresh: true, records: new Map() });
    } else if (!this.wipe) {
      let entry = this.dirty.get(partner!);
      if (!entry) this.dirty.set(partner!, (entry = { fresh: false, records: new Map() }));
      // A replaced partner is written whole; a row is never written twice.
      if (!entry.fresh) entry.records.set(kind === 'row' ? `row\u0000${change[2].transaction_id}` : `${kind}\u0000${change[2]}`, change);
    }
    this.pending ??= deferred();
    this.schedule();
  }

  admit(): void {
    if (!this.accepting()) throw unavailable(this.lastError);
  }

  accepting(): boolean {
    return this.failingSince === null;
  }

  committed(): Promise<void> {
    return (this.pending ?? this.inflight)?.promise ?? Promise.resolve();
  }

  status() {
    return {
      path: this.path,
      journal: this.failingSince === null ? 'ok' : 'failing',
      failing_since: this.failingSince,
      last_error: this.lastError,
      snapshot_bytes: this.snapshotBytes,
      journal_bytes: this.journalBytes,
      last_fsync_at: this.lastFsyncAt,
      last_snapshot_at: this.lastSnapshotAt,
      folding: this.folding !== undefined,
    };
  }

  /** Folds the journal into a snapshot now (FILE alone is then the whole state). */
  fold(): Promise<void> {
    this.folding ??= this.writeSnapshot().finally(() => (this.folding = undefined));
    return this.folding;
  }

  /** Journals what is left, folds it all into FILE, and lets go of the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.syncTimer);
    clearTimeout(this.retryTimer);
    await this.folding;
    await this.committed().catch(() => undefined);
    if (this.rt && this.failingSince === null) await this.fold();
    this.closed = true;
    await this.retire([...this.retired, this.segment]);
    await this.lock.release();
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.failingSince !== null || !this.rt) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.writing || this.failingSince !== null) return;
    const waiting = (this.inflight = this.pending);
    this.pending = undefined;
    const lines = this.takeDirty();
    this.writing = true;
    try {
      if (lines.length > 0) await this.append(lines);
      waiting?.resolve();
    } catch (err) {
      await this.failed(err, waiting);
    } finally {
      this.writing = false;
      this.inflight = undefined;
    }
    if (this.pending) this.schedule();
    else this.maybeFold();
  }

  /** The lines of what changed since the last write, each record as it stands now. */
  private takeDirty(): string[] {
    const rt = this.rt!;
    const partners = rt.allPartners;
    const lines: string[] = [];
    if (this.wipe) {
      lines.push('{"k":"wipe"}');
      for (const group of stateLines(partners, () => rt.clockOffsetMs)) lines.push(...group);
    }
    for (const [partner, { fresh, records }] of this.wipe ? [] : this.dirty) {
      const p = partners.indexOf(partner);
      if (p < 0) continue;
      if (fresh) {
        lines.push(...freshPartnerLines(p, partner));
        continue;
      }
      // Transactions first, so that their events can be written short.
      const written = new Set<string>();
      for (const change of records.values()) {
        const tx = change[0] === 'tx' ? partner.transactions.get(change[2]) : undefined;
        if (!tx) continue;
        lines.push(txLine(p, tx));
        written.add(tx.id);
      }
      for (const change of records.values()) {
        if (change[0] === 'event') {
          const evt = partner.events.get(change[2]);
          if (evt) lines.push(eventLine(p, evt, written.has(evt.aggregate_id) ? partner.transactions.get(evt.aggregate_id) : undefined));
        } else if (change[0] === 'quote') {
          const quote = partner.quotes.get(change[2]);
          if (quote) lines.push(quoteLine(p, quote));
        } else if (change[0] === 'idem') {
          const entry = partner.idempotency.get(change[2]);
          if (entry) lines.push(idemLine(p, change[2], entry));
        } else if (change[0] === 'row') {
          lines.push(rowLine(p, change[2]));
        }
      }
    }
    if (this.clockMoved && !this.wipe) lines.push(clockLine(rt.clockOffsetMs));
    this.dirty.clear();
    this.wipe = false;
    this.clockMoved = false;
    return lines;
  }

  /** One write: the lines and their commit line (a segment's first write starts with its header). */
  private async append(lines: string[]): Promise<void> {
    const segment = this.segment;
    const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    const body = Buffer.from(text);
    const commit = `{"k":"commit","lines":${lines.length},"crc32":${crc32(body)}}\n`;
    const head = segment.size === 0 ? `${headerLine(new Date().toISOString(), { segment: segment.n })}\n` : '';
    const bytes = Buffer.concat([Buffer.from(head), body, Buffer.from(commit)]);
    segment.handle ??= await open(segment.path, 'a', 0o600);
    const { fd } = segment.handle;
    try {
      // Into the page cache, in this turn: a few µs, where a write on libuv's pool costs
      // several times that in CPU (BENCHMARKS.md). A full disk may take part of a write.
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (err) {
      // What went in is cut off again, so the next write follows a whole one.
      try {
        ftruncateSync(fd, segment.size);
      } catch {
        // The next write goes after what is left; the load refuses it then, saying so.
      }
      throw err;
    }
    segment.size += bytes.length;
    this.journalBytes += bytes.length;
  }

  /** A write failed: its changes are undone (the state becomes what is on disk) and answered 503; changes are refused until a write succeeds. */
  private async failed(err: unknown, waiting: Deferred | undefined): Promise<void> {
    const message = (err as Error).message;
    this.lastError = message;
    this.failingSince ??= new Date().toISOString();
    this.log?.(`state file: could not write the journal ${this.segment.path}: ${message}; changes are refused (503) until it can`);
    this.takeDirty();
    this.generation++;
    try {
      const loaded = await load(this.path, this.log);
      this.replaying = true;
      if (loaded.decoded) this.rt!.install(loaded.decoded);
    } catch (reloadErr) {
      // Memory then holds what was not journaled: the next write that goes through writes it all.
      this.wipe = true;
      this.log?.(`state file: could not read ${this.path} back: ${(reloadErr as Error).message}`);
    } finally {
      this.replaying = false;
    }
    // Answered once undone: a read after the 503 finds nothing of it.
    const problem = unavailable(message);
    waiting?.reject(problem);
    this.pending?.reject(problem);
    this.pending = undefined;
    this.retryTimer = setTimeout(() => void this.retry(), RETRY_MS);
  }

  /** An empty write: once one goes through, changes are taken again. */
  private async retry(): Promise<void> {
    if (this.closed) return;
    this.writing = true;
    try {
      await this.append([]);
      this.failingSince = null;
      this.log?.(`state file: the journal ${this.segment.path} is written again; changes are taken again`);
    } catch (err) {
      this.lastError = (err as Error).message;
      this.retryTimer = setTimeout(() => void this.retry(), RETRY_MS);
    } finally {
      this.writing = false;
    }
    if (this.pending) this.schedule();
  }

  private sync(): Promise<void> | undefined {
    // A segment a fold switched away from too: until the snapshot replaces it, it is the journal.
    const due = [...this.retired, this.segment].filter((segment) => segment.handle && segment.synced !== segment.size);
    if (this.syncing || due.length === 0) return this.syncing;
    this.syncing = Promise.all(
      due.map((segment) => {
        const size = segment.size;
        return segment.handle!.datasync().then(() => void (segment.synced = size));
      }),
    )
      .then(() => void (this.lastFsyncAt = new Date().toISOString()))
      .catch((err: Error) => {
        this.lastError = err.message;
        this.log?.(`state file: could not sync the journal to disk: ${err.message}`);
      })
      .finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private maybeFold(): void {
    if (this.folding || this.closed || Date.now() < this.foldAfter) return;
    if (this.journalBytes > Math.max(FOLD_MIN_BYTES, this.snapshotBytes)) void this.fold();
  }

  /** A new segment takes the changes from here; the state is written beside FILE a slice at a time and renamed over it. */
  private async writeSnapshot(): Promise<void> {
    const rt = this.rt!;
    const generation = this.generation;
    const cut = this.segment;
    this.retired.push(cut);
    this.segment = segmentAt(this.path, cut.n + 1);
    let file: AtomicFile | undefined;
    let bytes = 0;
    try {
      file = await AtomicFile.create(this.path, { mode: 0o600 });
      let slice = performance.now();
      for (const chunk of documentChunks(rt.allPartners, () => rt.clockOffsetMs, iso(rt.clock.now()), this.segment.n)) {
        bytes += Buffer.byteLength(chunk);
        if (!file.stream.write(chunk)) await once(file.stream, 'drain');
        // As long a pause as the slice took: requests get at least half the event loop.
        await new Promise((go) => setTimeout(go, performance.now() - slice));
        slice = performance.now();
        if (generation !== this.generation) throw new Error('changes were undone meanwhile');
      }
      // What the snapshot holds is journaled too before it replaces anything.
      await this.committed();
      if (generation !== this.generation) throw new Error('changes were undone meanwhile');
      await file.commit();
      // The rename on the disk before the segments it replaces go.
      const dir = await open(dirname(this.path), 'r');
      await dir.sync().finally(() => dir.close());
    } catch (err) {
      await file?.abort();
      this.lastError = (err as Error).message;
      this.foldAfter = Date.now() + 10 * RETRY_MS;
      this.log?.(`state file: could not write the snapshot ${this.path}: ${(err as Error).message}; the journal keeps every change`);
      return;
    }
    await this.retire(this.retired.splice(0));
    await removeSegmentsBefore(this.path, this.segment.n);
    this.snapshotBytes = bytes;
    this.journalBytes = this.segment.size;
    this.lastSnapshotAt = new Date().toISOString();
  }

  private async retire(segments: Segment[]): Promise<void> {
    await this.syncing;
    for (const segment of segments) {
      await segment.handle?.datasync().catch(() => undefined);
      await segment.handle?.close();
      segment.handle = undefined;
    }
  }
}

/** The whole state as one document (`GET /__emulator/state`, `exportState`). */
export function exportDocument(rt: Runtime): string {
  const offset = rt.clockOffsetMs;
  return [...documentChunks(rt.allPartners, () => offset, iso(rt.clock.now()))].join('');
}

function unavailable(reason: string | null): ApiProblem {
  return new ApiProblem('SERVICE_UNAVAILABLE', `the emulator cannot write its state file (${reason ?? 'unknown error'}); nothing was changed, retry later`, { 'Retry-After': String(RETRY_MS / 1000) });
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
  // A change nobody waits for (a delivery's) must not make its failure an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

function segmentAt(path: string, n: number): Segment {
  return { n, path: `${path}.journal.${n}`, handle: undefined, size: 0, synced: 0 };
}

async function lockFile(path: string): Promise<PidLock> {
  try {
    return await takePidLock(`${path}.lock`);
  } catch (err) {
    if (err instanceof LockHeldError) throw new StateFileError(`state file ${path} is in use by another emulator (process ${err.pid}); stop it first`);
    if (err instanceof LockContendedError) throw new StateFileError(`cannot lock state file ${path}: ${err.path} keeps coming back`);
    throw new StateFileError(`cannot lock state file ${path}: ${(err as Error).message}`);
  }
}

/** The snapshot and every journal segment after it, read into one state; a torn last write is cut off the file. */
async function load(path: string, log: ((line: string) => void) | undefined): Promise<Loaded> {
  const decoder = new StateDecoder();
  try {
    decoder.what = `state file ${path}`;
    const snapshot = await readPrivate(path, decoder.what);
    const first = snapshot ? (readDocument(snapshot, decoder).journal ?? 1) : 1;
    // Segments before the snapshot's cut are folded into it already (a stop between the rename and their removal).
    const live = await removeSegmentsBefore(path, first);
    let journalBytes = 0;
    for (const [i, n] of live.entries()) {
      const segment = segmentAt(path, n).path;
      decoder.what = `journal ${segment}`;
      if (n !== first + i) decoder.fail(`follows a missing segment (${segmentAt(path, first + i).path})`);
      const bytes = (await readPrivate(segment, decoder.what)) ?? Buffer.alloc(0);
      const good = replay(bytes, decoder, i === live.length - 1);
      if (good < bytes.length) {
        log?.(`warning: journal ${segment} ends in a write cut short (${bytes.length - good} bytes, from a crash): dropped it, loaded everything before it`);
        await truncate(segment, good);
      }
      journalBytes += good;
    }
    const any = snapshot !== undefined || live.length > 0;
    return { decoded: any ? decoder.finish() : undefined, next: (live.at(-1) ?? first - 1) + 1, snapshotBytes: snapshot?.length ?? 0, journalBytes };
  } catch (err) {
    if (err instanceof StateFormatError) throw new StateFileError(err.message);
    throw err;
  }
}

/** Removes the segments numbered below `n`; answers the numbers of the others, in order. */
async function removeSegmentsBefore(path: string, n: number): Promise<number[]> {
  const prefix = `${basename(path)}.journal.`;
  const names = await readdir(dirname(path)).catch((err: Error) => {
    throw new StateFileError(`cannot use state file ${path}: ${err.message}`);
  });
  const numbers = names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
  for (const k of numbers.filter((k) => k < n)) await rm(segmentAt(path, k).path, { force: true });
  return numbers.filter((k) => k >= n);
}

const COMMIT = Buffer.from('{"k":"commit"');

/** Applies a segment's whole writes; answers how many bytes they take. Only the last segment may end in a write cut short. */
function replay(bytes: Buffer, decoder: StateDecoder, last: boolean): number {
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd < 0) return last ? 0 : decoder.fail('is incomplete: its header is cut short');
  readHeader(bytes, decoder);
  let good = headerEnd + 1;
  let line = 2;
  const batch: string[] = [];
  for (let at = good; at < bytes.length; line++) {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) break;
    if (!bytes.subarray(at, at + COMMIT.length).equals(COMMIT)) {
      batch.push(bytes.toString('utf8', at, end));
      at = end + 1;
      continue;
    }
    const commit = (jsonOr(bytes.toString('utf8', at, end)) ?? {}) as { lines?: unknown; crc32?: unknown };
    if (commit.lines !== batch.length || commit.crc32 !== crc32(bytes.subarray(good, at))) {
      decoder.fail(`is damaged: the write ending at line ${line} does not match its checksum`);
    }
    batch.forEach((text, i) => decoder.apply(text, line - batch.length + i));
    batch.length = 0;
    good = at = end + 1;
  }
  if (good < bytes.length && !last) decoder.fail('is incomplete: a write in it is cut short, and more of the journal follows');
  return good;
}

/** A file's bytes, or undefined when it is missing or empty; refused when another user could have written it. */
async function readPrivate(path: string, what: string): Promise<Buffer | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read ${what}: ${(err as Error).message}`);
  }
  const distrusted = distrust(path, info, 'file', what);
  if (distrusted) throw new StateFileError(`${distrusted}; refusing it (${trustHint(path, info, 'file')})`);
  return info.size === 0 ? undefined : readFile(path);
}
