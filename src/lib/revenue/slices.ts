// How an export window is cut into requests. The service refuses windows over 90 days
// (partner-api.md, GET /revenue), so a longer one is always split; beyond that, the window
// is cut into about `parallel` slices of whole days so that `--concurrency` slices can be
// fetched at once (one slice pages strictly one after another, cursor by cursor).
// Slices come from dates.sliceWindow: contiguous, each ending 1 ms before the next begins,
// so a row stamped exactly on a border belongs to exactly one slice (both bounds inclusive).
import { DAY_MS, MAX_WINDOW_MS, sliceWindow, type Window } from '../dates.js';

export function planSlices(window: Window, parallel: number): Window[] {
  const span = window.to.getTime() - window.from.getTime() + 1;
  const share = Math.ceil(span / Math.max(1, parallel));
  // Whole days keep borders readable (midnight UTC when the window starts at midnight).
  const length = Math.max(DAY_MS, Math.ceil(share / DAY_MS) * DAY_MS);
  // A 90-day slice of whole days ends 1 ms before the 91st day: to − from = 90 d − 1 ms.
  return sliceWindow(window, Math.min(MAX_WINDOW_MS - 1, length - 1));
}

/** "2026-01-01T00:00:00.000Z … 2026-03-31T23:59:59.999Z" */
export function describeSlice(slice: Window): string {
  return `${slice.from.toISOString()} … ${slice.to.toISOString()}`;
}
