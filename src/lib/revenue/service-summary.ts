// The service's own totals of a window (`revenue summary`, the export's progress): one summary
// per window the service accepts (90 days at most, docs/api.md: GET /revenue), each read as a
// page of one row with include_summary, a few at a time. A summary of another window than the
// one asked for is ANSWER_MISMATCH (src/lib/client/checked-calls.ts).
import pLimit from 'p-limit';
import type { Api, RevenueFilters } from '../client/api.js';
import { checkSummaryWindow } from '../client/checked-calls.js';
import { sliceWindow, type Window } from '../input/dates.js';
import type { RevenueSummary } from '../schemas.js';
import { describeSlice } from './slices.js';

/** Summaries read at once. */
const PARALLEL = 4;

/** The service's summary of each legal window of `window`, in order. */
export async function serviceSummaries(api: Api, window: Window, filters: RevenueFilters = {}): Promise<RevenueSummary[]> {
  const limit = pLimit(PARALLEL);
  return Promise.all(sliceWindow(window).map((slice, i) => limit(() => serviceSummary(api, slice, i, filters))));
}

async function serviceSummary(api: Api, slice: Window, i: number, filters: RevenueFilters): Promise<RevenueSummary> {
  const page = await api.revenue.page({ from: slice.from.toISOString(), to: slice.to.toISOString(), include_summary: true, limit: 1, ...filters });
  if (!page.summary) throw new Error(`the service sent no summary for ${describeSlice(slice)} (slice ${i + 1})`);
  return checkSummaryWindow(page.summary, slice, page.requestId);
}
