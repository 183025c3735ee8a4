// The checkpoint of a resumable export (--resume): kept beside the spools in the run's
// private directory (workdir.ts), it says, for each slice, how many bytes of its spool hold
// whole pages, the cursor of the next page, and the counts and sums of the rows so far. A
// run started again with --resume takes the spools up at those lengths and asks for those
// cursors, so every row is fetched and written exactly once whatever stopped the first
// run (a byte written after the last checkpoint is cut, its page asked for again).
//
// A checkpoint is bound to its query: the output file, the service and key, the window,
// the filters, the format and its options, the summary check and the page size. Resuming
// under any other query is refused, since the rows already spooled would not be the rows
// asked for.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { RevenueFilters } from '../client/api.js';
import type { SliceStart } from './export.js';
import { ownWorkDirs, readPrivateFile, type WorkDir } from './workdir.js';

export const CHECKPOINT_FILE = 'checkpoint.json';
const KIND = 'offramp-revenue-export-checkpoint';
/** How often a running export rewrites its checkpoint at most. */
const WRITE_EVERY_MS = 250;

export type Binding = {
  /** Absolute path of --out. */
  out: string;
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

/** A slice as the checkpoint records it: where it starts again, and which spool bytes are its. */
export type SliceState = Omit<SliceStart, 'spool'> & {
  from: string;
  to: string;
  /** Spool file name in the run's directory, once the slice wrote one. */
  spool?: string;
  /** Bytes of the spool that hold the pages counted here. */
  bytes: number;
};

type CheckpointFile = { kind: typeof KIND; version: 1; binding: Binding; updated_at: string; slices: SliceState[] };

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
  out: '--out',
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

export class Checkpoint {
  /** Written at the first flush, even before any page. */
  private dirty = true;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;

  constructor(
    readonly dir: WorkDir,
    readonly binding: Binding,
    readonly slices: SliceState[],
  ) {}

  /** Records a slice's state; written within WRITE_EVERY_MS. */
  update(index: number, state: SliceState): void {
    this.slices[index] = state;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, WRITE_EVERY_MS);
  }

  /** Writes what is pending now (and waits for a write under way). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const step = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const file: CheckpointFile = { kind: KIND, version: 1, binding: this.binding, updated_at: new Date().toISOString(), slices: this.slices };
      await this.dir.replace(CHECKPOINT_FILE, `${JSON.stringify(file)}\n`);
    });
    this.writing = step.catch((err: unknown) => {
      this.failure ??= err;
    });
    await step;
  }

  /** Stops writing (the run is over); a write under way is waited for. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Reads the checkpoint in a run directory; undefined when it has none or not one of ours. */
  static async read(dir: string): Promise<{ binding: Binding; slices: SliceState[]; updatedAt: string } | undefined> {
    let text: string;
    try {
      text = await readPrivateFile(join(dir, CHECKPOINT_FILE));
    } catch {
      return undefined;
    }
    try {
      const file = JSON.parse(text) as CheckpointFile;
      if (file.kind !== KIND || file.version !== 1 || !Array.isArray(file.slices) || typeof file.binding?.out !== 'string') return undefined;
      return { binding: file.binding, slices: file.slices, updatedAt: file.updated_at };
    } catch {
      return undefined;
    }
  }
}

export type FoundCheckpoint = { path: string; binding: Binding; slices: SliceState[]; updatedAt: string };

/** The newest checkpoint under `root` for the output file `out` (an absolute path). */
export async function findCheckpoint(out: string, root?: string): Promise<FoundCheckpoint | undefined> {
  let best: FoundCheckpoint | undefined;
  for (const { path } of await ownWorkDirs(root)) {
    const found = await Checkpoint.read(path);
    if (!found || found.binding.out !== out) continue;
    if (!best || found.updatedAt > best.updatedAt) best = { path, ...found };
  }
  return best;
}
