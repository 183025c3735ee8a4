// `--state FILE` (docs/emulator.md, "State file"): the emulator's state on disk, loaded at
// start and kept current while it runs. A file another user could write is refused, as ssh
// refuses such keys: they could plant state. The state is serialised in one turn (one
// moment's state) and written aside and renamed (src/lib/fs/atomic.ts), one write at a time;
// a request never waits for a write.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeAside } from '../lib/fs/atomic.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../lib/fs/pid-lock.js';
import { distrust, trustHint } from '../lib/fs/private.js';
import { StateFileError } from './errors.js';
import type { DecodedState } from './state-codec.js';
import { decodeDocument, StateFormatError } from './state-codec.js';

/** How long after a change its snapshot starts: changes made meanwhile share the write. */
export const SNAPSHOT_DELAY_MS = 200;
/** After a failed write, the next try (a full disk is not fixed in milliseconds). */
const RETRY_AFTER_FAILURE_MS = 2000;

export type StateFileStatus = {
  path: string;
  /** Whether every change so far is in the file. */
  up_to_date: boolean;
  /** When the file was last written, in real time (not the emulator's business time). */
  last_written_at: string | null;
};

export class StateFile {
  /** The whole state as a document (Runtime.encodeState); set once the emulator is built. */
  private encode: (() => Buffer[]) | undefined;
  /** Something changed since the last snapshot was taken. */
  private dirty = false;
  private failed = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;
  private lastWrittenAt: string | null = null;

  private constructor(
    readonly path: string,
    private readonly lock: PidLock,
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  /** Takes the lock and reads the file; `decoded` is undefined for a fresh start. */
  static async open(path: string, log?: (line: string) => void): Promise<{ file: StateFile; decoded: DecodedState | undefined }> {
    const full = resolve(path);
    const lock = await lockFile(full);
    try {
      return { file: new StateFile(full, lock, log), decoded: await readState(full) };
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** Starts keeping the file current with the document `encode` makes; writes it now. */
  attach(encode: () => Buffer[]): Promise<void> {
    this.encode = encode;
    this.dirty = true;
    return this.write();
  }

  /** Called on every change: the next snapshot starts within SNAPSHOT_DELAY_MS (or after the write under way). */
  changed(): void {
    this.dirty = true;
    this.schedule(SNAPSHOT_DELAY_MS);
  }

  async flush(): Promise<void> {
    await this.writing;
    if (this.dirty) await this.write();
  }

  status(): StateFileStatus {
    return { path: this.path, up_to_date: !this.dirty && !this.writing, last_written_at: this.lastWrittenAt };
  }

  /** Writes what has changed and lets go of the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    await this.flush();
    await this.lock.release();
  }

  private schedule(ms: number): void {
    if (this.timer || this.writing || this.closed || !this.encode) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, ms);
  }

  /** Starts a snapshot unless one is under way; either way, answers the one under way. */
  private write(): Promise<void> {
    this.writing ??= this.snapshot().finally(() => {
      this.writing = undefined;
      if (this.dirty) this.schedule(this.failed ? RETRY_AFTER_FAILURE_MS : SNAPSHOT_DELAY_MS);
    });
    return this.writing;
  }

  private async snapshot(): Promise<void> {
    if (!this.dirty || !this.encode) return;
    this.dirty = false;
    try {
      await writeAside(this.path, this.encode());
      this.failed = false;
      this.lastWrittenAt = new Date().toISOString();
    } catch (err) {
      // The emulator keeps serving; the next try writes everything again.
      this.dirty = true;
      this.failed = true;
      this.log?.(`state file: could not write ${this.path}: ${(err as Error).message}`);
    }
  }
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

async function readState(path: string): Promise<DecodedState | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read state file ${path}: ${(err as Error).message}`);
  }
  const distrusted = distrust(path, info, 'file', `state file ${path}`);
  if (distrusted) throw new StateFileError(`${distrusted}; refusing it (${trustHint(path, info, 'file')})`);
  if (info.size === 0) return undefined;
  try {
    return decodeDocument(await readFile(path), `state file ${path}`);
  } catch (err) {
    if (err instanceof StateFormatError) throw new StateFileError(err.message);
    throw err;
  }
}
