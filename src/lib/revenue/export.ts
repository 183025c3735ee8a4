// The revenue export engine: fetches every slice (at most `concurrency` at once, each
// following its cursor to the end), writes rows in ledger order through OrderedOutput,
// counts rows and sums `share` per slice with decimal.js, and, when asked, keeps the
// service's summary of each slice (include_summary=true on the slice's first page; the
// summary covers the whole slice window, docs/api.md "Revenue") to check against.
//
// Filters (--token, --network) are applied again to the rows that come back
// (src/lib/client/filters.ts). The service's summary describes the rows the service
// selected, so the check compares it with every row received, not only the rows kept:
// when the service ignored a filter, its summary covers the other pairs too, and comparing
// it with the kept rows would report a mismatch that is not one.
import pLimit from 'p-limit';
import type { Api, RevenueFilters } from '../client/api.js';
import type { Window } from '../dates.js';
import type { RevenueSummary } from '../schemas.js';
import type { OrderedOutput, SliceSink } from './ordered-output.js';
import { describeSlice } from './slices.js';
import { DecimalSum } from './totals.js';

/** partner-api.md: page size 1 to 100; the largest page means the fewest round trips. */
export const EXPORT_PAGE_SIZE = 100;

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
  done: boolean;
};

export type ExportProgress = { rows: number; pages: number; slicesDone: number; slices: number };

export type ExportOptions = {
  api: Pick<Api, 'revenue'>;
  slices: Window[];
  filters?: RevenueFilters;
  concurrency: number;
  summary: boolean;
  output: OrderedOutput;
  pageSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
};

export class ExportAborted extends Error {
  constructor() {
    super('export interrupted');
  }
}

/** Runs the export; resolves with one report per slice once every row is written. */
export async function exportRevenue(o: ExportOptions): Promise<SliceReport[]> {
  const reports: SliceReport[] = o.slices.map((window, index) => ({
    index,
    window,
    rows: 0,
    pages: 0,
    share: new DecimalSum(),
    received: 0,
    receivedShare: new DecimalSum(),
    done: false,
  }));
  const check = o.api.revenue.filterCheck(o.filters ?? {});
  const progress: ExportProgress = { rows: 0, pages: 0, slicesDone: 0, slices: o.slices.length };
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const limit = pLimit(o.concurrency);

  /**
   * One page, checked, counted and formatted. Only its text and cursor leave this
   * function, so the parsed rows die young (see SliceSink.write).
   */
  const fetchPage = async (report: SliceReport, cursor: string | undefined, first: boolean) => {
    const { from, to } = report.window;
    const page = await o.api.revenue.page(
      {
        from: from.toISOString(),
        to: to.toISOString(),
        limit: o.pageSize ?? EXPORT_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
        ...(o.summary && first ? { include_summary: true } : {}),
        ...o.filters,
      },
      check,
    );
    if (o.summary && first) {
      if (!page.summary) throw new Error(`the service sent no summary for slice ${report.index + 1} (${describeSlice(report.window)})`);
      report.service = page.summary;
    }
    const fromMs = from.getTime();
    const toMs = to.getTime();
    for (const row of page.received) {
      const ts = Date.parse(row.ts);
      // A row outside the window asked for would be written twice (it belongs to another slice).
      if (!(ts >= fromMs && ts <= toMs)) {
        throw new Error(`the service returned a row outside the requested window (transaction ${row.transaction_id}, ts ${row.ts}, window ${describeSlice(report.window)})`);
      }
      if (o.summary) report.receivedShare.add(row.share);
    }
    if (o.summary) for (const row of page.items) report.share.add(row.share);
    report.rows += page.items.length;
    report.received += page.received.length;
    report.pages++;
    return { text: page.items.length > 0 ? o.output.format(page.items) : '', rows: page.items.length, next: page.last ? null : page.nextCursor };
  };

  /**
   * One page fetched and written (or spooled); resolves with its next cursor. The page's
   * text stays in this call: held by the slice's loop (as `page` was), it lived on through
   * the next request, so young GCs kept copying it, and V8 grows its young generation by
   * what they keep (a quarter less of it kept, measured, at 100,000 rows).
   */
  const copyPage = async (report: SliceReport, sink: SliceSink, cursor: string | undefined, first: boolean) => {
    const page = await fetchPage(report, cursor, first);
    progress.rows += page.rows;
    progress.pages++;
    await sink.writeText(page.text, page.rows);
    return page.next;
  };

  const fetchSlice = async (report: SliceReport): Promise<void> => {
    const sink = o.output.slices[report.index]!;
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let first = true; ; first = false) {
      if (stop.signal.aborted) throw new ExportAborted();
      const next = await copyPage(report, sink, cursor, first);
      o.onProgress?.(progress);
      if (!next) break;
      if (seen.has(next)) throw new Error(`the service returned the same cursor twice in slice ${report.index + 1}; stopping`);
      seen.add(next);
      cursor = next;
    }
    await sink.settled();
    report.done = true;
    progress.slicesDone++;
    o.onProgress?.(progress);
  };

  // The first real failure stops every slice (each checks between pages); queued slices
  // start, see the stop and end at once, so every task settles.
  let failure: unknown;
  const tasks = reports.map((report) =>
    limit(() => fetchSlice(report)).catch((err: unknown) => {
      if (failure === undefined && !(err instanceof ExportAborted)) failure = err;
      stop.abort();
      throw err;
    }),
  );
  for (const task of tasks) task.catch(() => undefined);
  try {
    await o.output.start();
    for (const [i, task] of tasks.entries()) {
      await o.output.slices[i]!.promote();
      await task;
    }
    if (stop.signal.aborted) throw new ExportAborted();
    await o.output.finish();
    return reports;
  } catch (err) {
    stop.abort();
    await Promise.allSettled(tasks);
    if (o.signal?.aborted) throw new ExportAborted();
    throw failure ?? err;
  } finally {
    o.signal?.removeEventListener('abort', onOuterAbort);
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
