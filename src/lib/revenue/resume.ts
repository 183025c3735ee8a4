// What a resumable export (--resume) keeps, and where (docs/finance.md, "revenue export"): beside
// FILE, a directory FILE.offramp-resume (mode 0700, yours alone) holding the spool of every
// slice (its rows as NDJSON, files 0600), `checkpoint.json`, and, while a run holds it, a
// `lock` with that run's pid (src/lib/fs/pid-lock.ts).
//
// The checkpoint lists the finished slices: a slice is listed only once its spool is
// written whole and synced to disk, with its length and its counts and sums. A run started
// again takes up the listed slices' spools (when each still has its recorded length) and
// fetches every other slice from its first page, so every row is written exactly once
// whatever stopped the first run, a SIGKILL included. That is all the state there is.
//
// A checkpoint is bound to its query: the service and key, the window, the filters, the
// format and its options, the summary check and the page size. Resuming under any other
// query is refused: the rows kept would not be the rows asked for.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { openSync } from 'node:fs';
import { lstat, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RevenueFilters } from '../client/api.js';
import { writeAside } from '../fs/atomic.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../fs/pid-lock.js';
import type { SavedSlice } from './export.js';
import { Spool } from './spool.js';

const KIND = 'offramp-revenue-export-checkpoint';
const VERSION = 2;
const CHECKPOINT = 'checkpoint.json';

export type Binding = {
  /** The service's base URL, without credentials. */
  service: string;
  /** A digest of the API key: which partner's ledger. */
  partner: string;
  from: string;
  to: string;
  filters: RevenueFilters;
  format: string;
  excel: boolean;
  raw_cells: boolean;
  summary: boolean;
  page_size: number;
};

export type Checkpoint = { binding: Binding; slices: SavedSlice[] };

/** A digest of an API key that names the partner without revealing the key. */
export function partnerOf(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** The query in flags, to show a user which export a checkpoint belongs to. */
export function describeBinding(b: Binding): string {
  const parts = [`--from ${b.from}`, `--to ${b.to}`];
  if (b.filters.crypto_currency) parts.push(`--token ${b.filters.crypto_currency}`);
  if (b.filters.network) parts.push(`--network ${b.filters.network}`);
  parts.push(`-o ${b.format}`);
  if (b.excel) parts.push('--excel');
  if (b.raw_cells) parts.push('--raw-cells');
  if (b.summary) parts.push('--summary');
  return parts.join(' ');
}

const FIELD_NAMES: Record<keyof Binding, string> = {
  service: 'the service (base URL)',
  partner: 'the API key',
  from: '--from',
  to: '--to',
  filters: '--token/--network',
  format: '-o',
  excel: '--excel',
  raw_cells: '--raw-cells',
  summary: '--summary',
  page_size: 'the page size (another version of offramp)',
};

/** What differs between two queries, named as a user knows it (flags). */
export function bindingDifferences(a: Binding, b: Binding): string[] {
  const keys = Object.keys(FIELD_NAMES) as (keyof Binding)[];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).map((k) => FIELD_NAMES[k]);
}

/** Where a resumable export to `out` keeps its spools and checkpoint. */
export function resumeDirOf(out: string): string {
  return `${out}.offramp-resume`;
}

/** Why `dir` is not a directory of the user's that only they can enter, or undefined when it is one. */
async function notPrivate(dir: string): Promise<string | undefined> {
  const st = await lstat(dir);
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const uid = process.getuid?.();
  if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return `${dir} is not a private directory of yours (mode 0700)`;
  return undefined;
}

/** The checkpoint kept for an export to `out`; undefined when there is none (or none of ours). */
export async function readCheckpoint(out: string): Promise<Checkpoint | undefined> {
  const dir = resumeDirOf(out);
  try {
    if (await notPrivate(dir)) return undefined;
    const file = JSON.parse(await readFile(join(dir, CHECKPOINT), { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW })) as Checkpoint & { kind: string; version: number };
    if (file.kind !== KIND || file.version !== VERSION || !Array.isArray(file.slices) || typeof file.binding !== 'object') return undefined;
    return { binding: file.binding, slices: file.slices };
  } catch {
    return undefined;
  }
}

/** A resumable export's directory, held by this run. */
export class ResumeDir {
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly lock: PidLock,
  ) {}

  /** Makes (or takes up) the directory for an export to `out` and locks it; throws a one-line reason. */
  static async take(out: string): Promise<ResumeDir> {
    const path = resumeDirOf(out);
    try {
      await mkdir(path, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const why = await notPrivate(path);
      if (why) throw new Error(why);
    }
    try {
      return new ResumeDir(path, await takePidLock(join(path, 'lock')));
    } catch (err) {
      if (err instanceof LockHeldError) throw new Error(`another export (pid ${err.pid}) is using ${path}`);
      if (err instanceof LockContendedError) throw new Error(`another export took ${path} meanwhile`);
      throw err;
    }
  }

  /** A new spool for slice `index` (an older one of that name goes). */
  spool(index: number): Spool {
    return Spool.named(join(this.path, spoolName(index)));
  }

  /** Slice `index`'s spool, when it is there at the length its checkpoint entry says. */
  async saved(index: number, bytes: number): Promise<Spool | undefined> {
    const path = join(this.path, spoolName(index));
    if ((await stat(path).catch(() => undefined))?.size !== bytes) return undefined;
    return new Spool(openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW), bytes);
  }

  /** Writes the checkpoint whole (aside, then renamed); one write at a time, in call order. */
  save(checkpoint: Checkpoint): Promise<void> {
    const text = `${JSON.stringify({ kind: KIND, version: VERSION, ...checkpoint })}\n`;
    const write = this.saving.then(() => writeAside(join(this.path, CHECKPOINT), text, 0o600));
    this.saving = write.catch(() => undefined);
    return write;
  }

  /** Leaves the directory for the next --resume, unlocked. */
  async release(): Promise<void> {
    await this.saving;
    await this.lock.release();
  }

  /** Removes the directory and all it holds (the export is done, or starts over). */
  async remove(): Promise<void> {
    await this.saving;
    await rm(this.path, { recursive: true, force: true });
  }
}

function spoolName(index: number): string {
  return `slice-${String(index).padStart(4, '0')}.ndjson`;
}
