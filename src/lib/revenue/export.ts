// The revenue export engine: fetches every slice (each following its cursor to the end,
// as many pages at once as the service answers cleanly: adaptive-limit.ts), writes rows in
// ledger order through OrderedOutput, counts rows and sums `share` per slice with
// decimal.js, and, when asked, keeps the service's summary of each slice
// (include_summary=true on the slice's first page; the summary covers the whole slice
// window, docs/api.md: GET /revenue) to check against, and the rows' totals per token (the
// manifest, the checkpoint).
//
// Filters (--token, --network) are applied again to the rows that come back
// (src/lib/client/filters.ts). The service's summary describes the rows the service
// selected, so the check compares it with every row received, not only the rows kept:
// when the service ignored a filter, its summary covers the other pairs too, and comparing
// it with the kept rows would report a mismatch that is not one.
import { checkRowInWindow, checkSummaryWindow } from '../answers.js';
import type { Api, RevenueFilters } from '../client/api.js';
import { headerValue, parseRetryAfter } from '../client/http.js';
import type { Window } from '../dates.js';
import { ApiError } from '../errors.js';
import type { RevenueRow, RevenueSummary } from '../schemas.js';
import { AdaptiveLimit, type LimitStats } from './adaptive-limit.js';
import type { OrderedOutput, SliceSink } from './ordered-output.js';
import { describeSlice } from './slices.js';
import { DecimalSum, TokenTotals, type TokenTotalsJSON } from './totals.js';

/** GET /revenue takes a limit of 1 to 100 (docs/api.md); the largest page means the fewest round trips. */
export const EXPORT_PAGE_SIZE = 100;

/** The most pages fetched at once, however cleanly the service answers. */
export const MAX_CONCURRENCY = 16;

/**
 * A 429 that outlasted the client's own retries is waited out (its Retry-After) and the
 * page asked for again, this many times in a row at most; then the export fails (exit 6).
 */
const THROTTLED_RETRIES = 8;

export type { RevenueFilters };

export type SliceReport = {
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
  /** Totals per token of the rows written (with `totals: true`). */
  totals: TokenTotals;
  done: boolean;
};

/** Where an earlier run of a resumable export left a slice (checkpoint.ts). */
export type SliceStart = {
  rows: number;
  pages: number;
  received: number;
  share: string;
  receivedShare: string;
  service?: RevenueSummary;
  totals?: TokenTotalsJSON;
  /** The next page's cursor (null: from the first page, or done). */
  cursor: string | null;
  done: boolean;
  /** Its spool and how many bytes of it hold those rows. */
  spool?: { path: string; bytes: number };
};

/** A slice's state once a page's bytes are in its spool (a resumable export's checkpoint). */
export type PageMark = SliceStart & { index: number };

export type ExportProgress = {
  rows: number;
  pages: number;
  slicesDone: number;
  slices: number;
  /** Rows that an earlier run had fetched (a resumed export). */
  resumedRows: number;
  limit: LimitStats;
};

export type ExportOptions = {
  api: Pick<Api, 'revenue'>;
  slices: Window[];
  filters?: RevenueFilters;
  /** Pages fetched at once to start with; grows while the service answers cleanly. */
  concurrency: number;
  maxConcurrency?: number;
  summary: boolean;
  /** Sum the rows per token (SliceReport.totals). */
  totals?: boolean;
  output: OrderedOutput;
  pageSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  /** Per slice, where an earlier run left it. */
  resume?: readonly (SliceStart | undefined)[];
  /** Told after each page, once its bytes are in the slice's spool. */
  onPageWritten?: (mark: PageMark) => void;
  /** Told when a page ended in a 429 the client gave up on, before it is asked for again. */
  onThrottled?: (slice: number, waitMs: number) => void;
};

export class ExportAborted extends Error {
  constructor() {
    super('export interrupted');
  }
}

function newReport(index: number, window: Window, start: SliceStart | undefined): SliceReport {
  const share = new DecimalSum();
  const receivedShare = new DecimalSum();
  if (start) {
    share.add(start.share);
    receivedShare.add(start.receivedShare);
  }
  return {
    index,
    window,
    rows: start?.rows ?? 0,
    pages: start?.pages ?? 0,
    share,
    received: start?.received ?? 0,
    receivedShare,
    ...(start?.service ? { service: start.service } : {}),
    totals: start?.totals ? TokenTotals.fromJSON(start.totals) : new TokenTotals(),
    done: false,
  };
}

/** A 429's Retry-After in ms (whole seconds or an HTTP date), one second when it gives none. */
function retryAfterOf(err: ApiError): number {
  return parseRetryAfter(headerValue(err.headers['retry-after'])) ?? 1000;
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Takes up the spools an earlier run left, each cut to what its checkpoint counted. A slice
 * whose spool is not there as counted (shorter: written but never flushed before a crash)
 * starts over, so its rows are still written once.
 */
async function takeUp(output: OrderedOutput, resume: readonly (SliceStart | undefined)[]): Promise<(SliceStart | undefined)[]> {
  const starts = [...resume];
  for (const [i, start] of starts.entries()) {
    if (!start) continue;
    if (!start.spool) {
      if (start.rows > 0) starts[i] = undefined;
      continue;
    }
    try {
      await output.slices[i]!.adopt(start.spool.path, start.spool.bytes, start.rows);
    } catch {
      starts[i] = undefined;
    }
  }
  return starts;
}

/** Runs the export; resolves with one report per slice once every row is written. */
export async function exportRevenue(o: ExportOptions): Promise<SliceReport[]> {
  const starts = await takeUp(o.output, o.resume ?? []);
  const reports = o.slices.map((window, index) => newReport(index, window, starts[index]));
  const check = o.api.revenue.filterCheck(o.filters ?? {});
  const stop = new AbortController();
  const abort = () => {
    if (!stop.signal.aborted) stop.abort(new ExportAborted());
  };
  const onOuterAbort = () => abort();
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const limit = new AdaptiveLimit({
    start: o.concurrency,
    max: o.maxConcurrency ?? MAX_CONCURRENCY,
    onChange: () => launch(),
  });
  const resumedRows = reports.reduce((n, r) => n + r.rows, 0);
  const progress: ExportProgress = {
    rows: resumedRows,
    pages: reports.reduce((n, r) => n + r.pages, 0),
    slicesDone: 0,
    slices: o.slices.length,
    resumedRows,
    limit: limit.stats,
  };
  const tell = () => {
    progress.limit = limit.stats;
    o.onProgress?.(progress);
  };

  /** One page, asked for when the limit allows, a 429 the client gave up on waited out. */
  const requestPage = async (report: SliceReport, cursor: string | undefined, first: boolean) => {
    const { from, to } = report.window;
    const query = {
      from: from.toISOString(),
      to: to.toISOString(),
      limit: o.pageSize ?? EXPORT_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
      ...(o.summary && first ? { include_summary: true } : {}),
      ...o.filters,
    };
    for (let throttled = 0; ; throttled++) {
      const ticket = await limit.acquire(report.index, stop.signal);
      try {
        const page = await o.api.revenue.page(query, check);
        limit.release(ticket);
        return page;
      } catch (err) {
        if (err instanceof ApiError && err.status === 429 && throttled < THROTTLED_RETRIES && !stop.signal.aborted) {
          const wait = retryAfterOf(err);
          limit.release(ticket, { retryAfterMs: wait });
          o.onThrottled?.(report.index, wait);
          await abortable(wait, stop.signal);
          continue;
        }
        limit.release(ticket, { failed: true });
        throw err;
      }
    }
  };

  /**
   * One page, checked, counted and formatted. Only its text and cursor leave this
   * function, so the parsed rows die young (see SliceSink.write).
   */
  const fetchPage = async (report: SliceReport, cursor: string | undefined, first: boolean) => {
    const page = await requestPage(report, cursor, first);
    if (o.summary && first) {
      if (!page.summary) throw new Error(`the service sent no summary for slice ${report.index + 1} (${describeSlice(report.window)})`);
      // A summary of another window would make the check compare unlike things.
      report.service = checkSummaryWindow(page.summary, report.window, page.requestId);
    }
    for (const row of page.received) {
      // A row outside the window asked for would be written twice (it belongs to another slice).
      checkRowInWindow(row, report.window);
      if (o.summary) report.receivedShare.add(row.share);
    }
    if (o.summary) for (const row of page.items) report.share.add(row.share);
    if (o.totals) for (const row of page.items as RevenueRow[]) report.totals.add(row);
    report.rows += page.items.length;
    report.received += page.received.length;
    report.pages++;
    return { text: page.items.length > 0 ? o.output.format(page.items) : '', rows: page.items.length, next: page.last ? null : page.nextCursor };
  };

  /** The slice as a checkpoint records it once it goes on at `next` (its spool added when written). */
  const mark = (report: SliceReport, next: string | null): PageMark => ({
    index: report.index,
    rows: report.rows,
    pages: report.pages,
    received: report.received,
    share: report.share.toString(),
    receivedShare: report.receivedShare.toString(),
    ...(report.service ? { service: report.service } : {}),
    ...(o.totals ? { totals: report.totals.toJSON() } : {}),
    cursor: next,
    done: next === null,
  });

  /**
   * One page fetched and written (or spooled); resolves with its next cursor. The page's
   * text stays in this call: held by the slice's loop, it lived on through the next
   * request, so young GCs kept copying it, and V8 grows its young generation by what they
   * keep (BENCHMARKS.md).
   */
  const copyPage = async (report: SliceReport, sink: SliceSink, cursor: string | undefined, first: boolean) => {
    const page = await fetchPage(report, cursor, first);
    progress.rows += page.rows;
    progress.pages++;
    const onPageWritten = o.onPageWritten;
    if (onPageWritten) {
      // Counted now, told once the bytes are in the spool: a checkpoint never counts a page it does not hold.
      const counted = mark(report, page.next);
      await sink.writeText(page.text, page.rows, (bytes) => onPageWritten(sink.spoolPath ? { ...counted, spool: { path: sink.spoolPath, bytes } } : counted));
    } else {
      await sink.writeText(page.text, page.rows);
    }
    return page.next;
  };

  const fetchSlice = async (report: SliceReport, start: SliceStart | undefined): Promise<void> => {
    const sink = o.output.slices[report.index]!;
    const seen = new Set<string>();
    let cursor = start?.cursor ?? undefined;
    let first = report.pages === 0;
    if (!start?.done) {
      for (;;) {
        if (stop.signal.aborted) throw new ExportAborted();
        const next = await copyPage(report, sink, cursor, first);
        first = false;
        tell();
        if (!next) break;
        if (seen.has(next)) throw new Error(`the service returned the same cursor twice in slice ${report.index + 1}; stopping`);
        seen.add(next);
        cursor = next;
      }
    }
    await sink.settled();
    report.done = true;
    progress.slicesDone++;
    tell();
  };

  // Slices start in ledger order, as many at a time as the limit allows (more when it
  // grows); each waits for a slot before each page, earlier slices first.
  let failure: unknown;
  let next = 0;
  let active = 0;
  const gates = reports.map(() => deferred());
  const tasks = reports.map((report, i) =>
    gates[i]!.promise
      .then(() => fetchSlice(report, starts[i]))
      .finally(() => {
        active--;
        launch();
      })
      .catch((err: unknown) => {
        if (failure === undefined && !(err instanceof ExportAborted)) failure = err;
        abort();
        throw err;
      }),
  );
  for (const task of tasks) task.catch(() => undefined);
  function launch(): void {
    while (!stop.signal.aborted && next < reports.length && active < limit.limit) {
      active++;
      gates[next++]!.resolve();
    }
  }
  const onStop = () => {
    limit.close(new ExportAborted());
    // Slices never started end too, so every task settles.
    while (next < reports.length) {
      active++;
      gates[next++]!.reject(new ExportAborted());
    }
  };
  stop.signal.addEventListener('abort', onStop, { once: true });
  if (o.signal?.aborted) abort();

  try {
    await o.output.start();
    launch();
    for (const [i, task] of tasks.entries()) {
      await o.output.slices[i]!.promote();
      await task;
    }
    if (stop.signal.aborted) throw new ExportAborted();
    await o.output.finish();
    return reports;
  } catch (err) {
    abort();
    await Promise.allSettled(tasks);
    if (o.signal?.aborted) throw new ExportAborted();
    throw failure ?? err;
  } finally {
    o.signal?.removeEventListener('abort', onOuterAbort);
    stop.signal.removeEventListener('abort', onStop);
    limit.close(new ExportAborted());
    await o.output.cleanup();
  }
}

export type SliceCheck = { report: SliceReport; ok: boolean; problem?: string };

/** Compares each slice's count and summed share, as received, with the service's summary. */
export function checkSlices(reports: SliceReport[]): SliceCheck[] {
  return reports.map((report) => {
    const service = report.service;
    if (!service) return { report, ok: false, problem: 'no summary from the service' };
    const problems: string[] = [];
    const what = report.received === report.rows ? 'exported' : 'received';
    if (service.transaction_count !== report.received) problems.push(`${report.received} rows ${what}, the service counts ${service.transaction_count}`);
    if (!report.receivedShare.equals(service.total_partner_share)) {
      problems.push(`share sums to ${report.receivedShare.toString()}, the service says ${service.total_partner_share}`);
    }
    return problems.length ? { report, ok: false, problem: problems.join('; ') } : { report, ok: true };
  });
}
