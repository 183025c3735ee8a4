// The revenue export as a pipeline (docs/finance.md, "Slices, pace and memory"): slices
// (slices.ts) are read `concurrency` at once, each into a spool of its own, and read back in
// ledger order into the format stage and a stage that hashes and counts every byte. Memory
// holds about one page per slice being read; what is read ahead waits on disk.
//
// The concurrency is fixed and the client's retry loop alone answers a 429, so --retries
// bounds every page's attempts whatever the status (BENCHMARKS.md, "Revenue export").
//
// The service's summary describes the rows it selected, so the check compares it with every
// row received, not only those the filters applied again here keep: when the service ignored
// a filter, its summary covers the other pairs too.
import { createHash } from 'node:crypto';
import { Readable, Writable, type Duplex } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import { checkRowInWindow, checkSummaryWindow } from '../client/checked-calls.js';
import { FULL_PAGE, type Api, type ListAnswer, type RevenueFilters } from '../client/api.js';
import type { Window } from '../input/dates.js';
import { ApiError } from '../errors.js';
import type { RevenueRow, RevenueSummary } from '../schemas.js';
import { describeSlice } from './slices.js';
import { Spool } from './spool.js';
import { DecimalSum } from '../money.js';

/** The most pages (slices) --concurrency may ask for at once. */
export const MAX_CONCURRENCY = 16;

/** The most, the 429s beyond the service's limit retried by the client (BENCHMARKS.md, "Revenue export"). */
export const DEFAULT_CONCURRENCY = MAX_CONCURRENCY;

/** How long the client asked for a page the service kept refusing (429): the command's message says it. */
export const refusedFor = new WeakMap<Error, number>();

export type SliceTally = {
  index: number;
  window: Window;
  /** Rows written (those that satisfy the filters). */
  rows: number;
  pages: number;
  /** Sum of `share` of the rows written (with `summary: true` only). */
  share: DecimalSum;
  /** Rows the service sent, and the sum of their `share`: what its summary describes. */
  received: number;
  receivedShare: DecimalSum;
  /** The service's summary of the slice window (with `summary: true`). */
  service?: RevenueSummary;
};

/** A finished slice as a checkpoint keeps it (resume.ts): its place in the plan, its spool's length, its counts. */
export function saveSlice(tally: SliceTally, bytes: number) {
  return {
    index: tally.index,
    from: tally.window.from.toISOString(),
    to: tally.window.to.toISOString(),
    bytes,
    rows: tally.rows,
    pages: tally.pages,
    received: tally.received,
    share: tally.share.toString(),
    receivedShare: tally.receivedShare.toString(),
    ...(tally.service ? { service: tally.service } : {}),
  };
}

export type SavedSlice = ReturnType<typeof saveSlice>;

function newTally(index: number, window: Window, saved?: SavedSlice): SliceTally {
  const share = new DecimalSum();
  const receivedShare = new DecimalSum();
  share.add(saved?.share ?? '0');
  receivedShare.add(saved?.receivedShare ?? '0');
  return {
    index,
    window,
    rows: saved?.rows ?? 0,
    pages: saved?.pages ?? 0,
    share,
    received: saved?.received ?? 0,
    receivedShare,
    ...(saved?.service ? { service: saved.service } : {}),
  };
}

/** A slice an earlier run finished (--resume): what it counted, and its spool. */
export type KeptSlice = { saved: SavedSlice; spool: Spool };

export type ExportProgress = {
  rows: number;
  pages: number;
  slicesDone: number;
  slices: number;
  /** Rows that an earlier run had fetched (a resumed export). */
  resumedRows: number;
};

export type ExportOptions = {
  api: Pick<Api, 'revenue'>;
  slices: Window[];
  filters?: RevenueFilters;
  /** Pages (slices) asked for at once. */
  concurrency: number;
  summary: boolean;
  /** The format stage: rows in, the output's bytes out. */
  format: Duplex;
  /** Where the bytes go: a file's stream (ended with the export), or stdout (never ended). */
  dest: Writable;
  endDest: boolean;
  /** A new spool for slice `index`; by default one with no name (Spool.anonymous). */
  spool?: (index: number) => Spool;
  /** Slices an earlier run finished, by index. */
  kept?: ReadonlyMap<number, KeptSlice>;
  /** Told when a slice's rows are all in its spool, synced to disk. */
  onSliceDone?: (tally: SliceTally, bytes: number) => Promise<void>;
  pageSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  /** The clock that times a refused page (refusedFor); Date.now by default. */
  now?: () => number;
};

/** Each slice's tally; every slice's rows and pages; the output's length and SHA-256. */
export type ExportResult = { tallies: SliceTally[]; rows: number; pages: number; bytes: number; sha256: string };

/**
 * The pipeline's last stage: every byte hashed and counted (the manifest's SHA-256 and
 * length) and handed to `dest` with backpressure. What arrives meanwhile goes in the next
 * write, whole: one write per CSV record took a disk round trip each (BENCHMARKS.md).
 */
function hashingSink(dest: Writable, endDest: boolean) {
  const hash = createHash('sha256');
  let bytes = 0;
  const sink = new Writable({
    writev(chunks, done) {
      const data = Buffer.concat(chunks.map((c) => c.chunk as Buffer));
      hash.update(data);
      bytes += data.length;
      dest.write(data, (err) => done(err));
    },
    final(done) {
      if (!endDest) return done();
      dest.end();
      finished(dest).then(() => done(), done);
    },
  });
  return { sink, result: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/** Runs the export; resolves with one tally per slice once every byte is in `dest`. */
export async function exportRevenue(o: ExportOptions): Promise<ExportResult> {
  const tallies = o.slices.map((window, index) => newTally(index, window, o.kept?.get(index)?.saved));
  const check = o.api.revenue.filterCheck(o.filters ?? {});
  // A slice pages strictly one after another: slices read at once are pages asked for at once.
  const sliceSlots = pLimit({ concurrency: o.concurrency, rejectOnClear: true });
  const now = o.now ?? Date.now;
  // Aborted by the caller (o.signal) or by the first failure, which is what the export throws.
  const stop = new AbortController();
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
    stop.abort(err);
  };
  const onAbort = () => fail(o.signal!.reason);
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const spools = new Set<Spool>();
  const resumedRows = tallies.reduce((n, r) => n + r.rows, 0);
  const progress: ExportProgress = { rows: resumedRows, pages: tallies.reduce((n, r) => n + r.pages, 0), slicesDone: o.kept?.size ?? 0, slices: o.slices.length, resumedRows };
  const tell = () => o.onProgress?.({ ...progress });

  /** One page, with the client's retries; a 429 it gave up on ends the export (refusedFor says how long it tried). */
  const requestPage = async (tally: SliceTally, cursor: string | undefined): Promise<ListAnswer<RevenueRow>> => {
    const { from, to } = tally.window;
    const query = {
      from: from.toISOString(),
      to: to.toISOString(),
      limit: o.pageSize ?? FULL_PAGE,
      ...(cursor ? { cursor } : {}),
      ...(o.summary && !cursor ? { include_summary: true } : {}),
      ...o.filters,
    };
    const asked = now();
    try {
      return await o.api.revenue.page(query, check);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) refusedFor.set(err, now() - asked);
      throw err;
    }
  };

  /** A page's rows checked and counted into the slice's tally; their text for the spool, and the next cursor. */
  const takePage = (tally: SliceTally, page: ListAnswer<RevenueRow>, first: boolean) => {
    if (o.summary && first) {
      if (!page.summary) throw new Error(`the service sent no summary for slice ${tally.index + 1} (${describeSlice(tally.window)})`);
      // A summary of another window would make the check compare unlike things.
      tally.service = checkSummaryWindow(page.summary, tally.window, page.requestId);
    }
    for (const row of page.received) {
      // A row outside the window asked for would be written twice (it belongs to another slice).
      checkRowInWindow(row, tally.window);
      if (o.summary) tally.receivedShare.add(row.share);
    }
    if (o.summary) for (const row of page.items) tally.share.add(row.share);
    tally.rows += page.items.length;
    tally.received += page.received.length;
    tally.pages++;
    progress.rows += page.items.length;
    progress.pages++;
    return { text: page.items.map((row) => `${JSON.stringify(row)}\n`).join(''), next: page.last ? null : page.nextCursor };
  };

  /** Every page of a slice, cursor after cursor, into its spool. */
  const readSlice = async (tally: SliceTally): Promise<Spool> => {
    const spool = (o.spool ?? Spool.anonymous)(tally.index);
    spools.add(spool);
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      if (stop.signal.aborted) throw stop.signal.reason;
      const { text, next } = takePage(tally, await requestPage(tally, cursor), cursor === undefined);
      await spool.append(text);
      tell();
      if (next !== null && seen.has(next)) throw new Error(`the service returned the same cursor twice in slice ${tally.index + 1}; stopping`);
      if (next !== null) seen.add(next);
      cursor = next ?? undefined;
    } while (cursor !== undefined);
    if (o.onSliceDone) {
      await spool.sync();
      await o.onSliceDone(tally, spool.length);
    }
    progress.slicesDone++;
    tell();
    return spool;
  };

  const tasks = tallies.map((tally) => {
    const kept = o.kept?.get(tally.index);
    if (!kept) return sliceSlots(() => readSlice(tally));
    spools.add(kept.spool);
    return Promise.resolve(kept.spool);
  });
  for (const task of tasks) task.catch(fail);

  /** The rows of every slice in ledger order, each slice's once it is read whole. */
  async function* rows(): AsyncGenerator<object> {
    for (const task of tasks) {
      const spool = await task;
      try {
        for await (const line of spool.lines()) yield JSON.parse(line) as object;
      } finally {
        spools.delete(spool);
        await spool.close();
      }
    }
  }

  const out = hashingSink(o.dest, o.endDest);
  try {
    await pipeline(Readable.from(rows()), o.format, out.sink, { signal: stop.signal });
    return { tallies, rows: progress.rows, pages: progress.pages, ...out.result() };
  } catch (err) {
    throw failure ?? err;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    if (!stop.signal.aborted) stop.abort();
    sliceSlots.clearQueue();
    await Promise.allSettled(tasks);
    await Promise.allSettled([...spools].map((spool) => spool.close()));
  }
}

export type SliceCheck = { tally: SliceTally; ok: boolean; problem?: string };

/** Compares each slice's count and summed share, as received, with the service's summary. */
export function checkSlices(tallies: SliceTally[]): SliceCheck[] {
  return tallies.map((tally) => {
    const service = tally.service;
    if (!service) return { tally, ok: false, problem: 'no summary from the service' };
    const problems: string[] = [];
    const what = tally.received === tally.rows ? 'exported' : 'received';
    if (service.transaction_count !== tally.received) problems.push(`${tally.received} rows ${what}, the service counts ${service.transaction_count}`);
    if (!tally.receivedShare.equals(service.total_partner_share)) {
      problems.push(`share sums to ${tally.receivedShare.toString()}, the service says ${service.total_partner_share}`);
    }
    return problems.length ? { tally, ok: false, problem: problems.join('; ') } : { tally, ok: true };
  });
}
