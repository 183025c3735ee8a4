// What an export to FILE keeps so that one that stopped can be continued (docs/finance.md,
// "Nothing left behind, and `--resume`"): FILE.offramp-resume (0700) holding each slice's
// spool, `checkpoint.json` and, while a run holds it, a pid `lock` (src/lib/fs/pid-lock.ts).
//
// A slice is listed in the checkpoint only once its spool is written whole and synced, with
// its length, counts and sums; a run started again takes up those spools and fetches every
// other slice from its first page, so every row is written exactly once whatever stopped the
// first run, a SIGKILL included. A checkpoint is bound to its query: resuming under another
// is refused, as the rows kept would not be the rows asked for.
import { createHash } from 'node:crypto';
import { constants, openSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RevenueFilters } from '../client/api.js';
import type { Globals } from '../context.js';
import { offrampWords, pasteable, shellQuote } from '../input/values.js';
import { extensionOf } from '../output/format.js';
import { writeAside } from '../fs/atomic.js';
import { LockContendedError, LockHeldError, takePidLock, type PidLock } from '../fs/pid-lock.js';
import type { SavedSlice } from './export.js';
import { Spool } from './spool.js';

const KIND = 'offramp-revenue-export-checkpoint';
// Version 2 also kept each slice's totals per token; a resumed export sums the rows as they
// are written again, so a version 2 checkpoint resumes as is. A version 2 release ignores a
// version 3 checkpoint (its totals would be missing) and starts over.
const VERSION = 3;
const READABLE_VERSIONS = [2, VERSION];
const CHECKPOINT = 'checkpoint.json';

export type Binding = {
  /** The service's base URL, without credentials. */
  service: string;
  /** A digest of the API key: which partner's ledger. */
  partner: string;
  from: string;
  to: string;
  /** --tz: the zone of the --summary table's and the workbook's months. */
  tz: string;
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
  return [...queryWords(b), ...contentWords(b, true)].join(' ');
}

/**
 * `offramp revenue export` of a window and filters, as words to paste: the window as exact
 * instants, and the global flags that chose the service when they were given (`service` is
 * the base URL to name, without credentials), never a key.
 */
export function exportCommandWords(
  query: { from: string; to: string; filters: RevenueFilters },
  globals: Pick<Globals, 'profile' | 'baseUrl'>,
  service: string,
): string[] {
  return [...offrampWords(globals, service), 'revenue', 'export', ...queryWords(query)];
}

/**
 * The command that continues the export `b` describes, to be pasted as is: the export's
 * command, what decides the file's content, and --resume. Pace (--concurrency, --retries)
 * is the user's to add.
 */
export function continuingCommand(
  b: Binding,
  globals: Pick<Globals, 'profile' | 'baseUrl' | 'apiKey'>,
  files: { out: string; manifest?: string | undefined },
): string {
  // The file's name says its format; -o only for a name without an extension.
  const words = [...exportCommandWords(b, globals, b.service), ...contentWords(b, extensionOf(files.out) === undefined)];
  words.push('--out', shellQuote(files.out));
  if (files.manifest) words.push('--manifest', shellQuote(files.manifest));
  words.push('--resume');
  return pasteable(words, globals);
}

function queryWords(q: { from: string; to: string; filters: RevenueFilters }): string[] {
  const words = ['--from', q.from, '--to', q.to];
  if (q.filters.crypto_currency) words.push('--token', shellQuote(q.filters.crypto_currency));
  if (q.filters.network) words.push('--network', shellQuote(q.filters.network));
  return words;
}

/** What decides the file's content, as flags; -o only when `withFormat`. */
function contentWords(b: Binding, withFormat: boolean): string[] {
  const words = withFormat ? ['-o', b.format] : [];
  if (b.tz !== 'UTC') words.push('--tz', shellQuote(b.tz));
  if (b.excel) words.push('--excel');
  if (b.raw_cells) words.push('--raw-cells');
  if (b.summary) words.push('--summary');
  return words;
}

const FIELD_NAMES: Record<keyof Binding, string> = {
  service: 'the service (base URL)',
  partner: 'the API key',
  from: '--from',
  to: '--to',
  tz: '--tz',
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
    if (file.kind !== KIND || !READABLE_VERSIONS.includes(file.version) || !Array.isArray(file.slices) || typeof file.binding !== 'object') return undefined;
    // A checkpoint from before --tz was one of an export in UTC.
    return { binding: { ...file.binding, tz: file.binding.tz ?? 'UTC' }, slices: file.slices };
  } catch {
    return undefined;
  }
}

/** A resumable export's directory, held by this run. */
export class ResumeDir {
  private saving: Promise<void> = Promise.resolve();
  /** Slices the last checkpoint saved lists; any other spool is a slice unfinished. */
  private listed = new Set<number>();

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
    this.listed = new Set(checkpoint.slices.map((s) => s.index));
    const write = this.saving.then(() => writeAside(join(this.path, CHECKPOINT), text, 0o600));
    this.saving = write.catch(() => undefined);
    return write;
  }

  /** Leaves the directory for the next --resume, unlocked, without the spools of unfinished slices (fetched again then). */
  async release(): Promise<void> {
    await this.saving;
    const names = await readdir(this.path).catch(() => []);
    const unfinished = names.filter((name) => SPOOL_NAME.test(name) && !this.listed.has(Number(SPOOL_NAME.exec(name)![1])));
    await Promise.all(unfinished.map((name) => rm(join(this.path, name), { force: true })));
    await this.lock.release();
  }

  /** Removes the directory and all it holds (the export is done, or starts over). */
  async remove(): Promise<void> {
    await this.saving;
    await rm(this.path, { recursive: true, force: true });
  }
}

const SPOOL_NAME = /^slice-(\d{4,})\.ndjson$/;

function spoolName(index: number): string {
  return `slice-${String(index).padStart(4, '0')}.ndjson`;
}
