// How an export window is cut into requests. The service refuses windows over 90 days
// (docs/api.md: GET /revenue); beyond that, the window is cut into enough slices of whole
// days that every page the export may ask for at once has a slice to page through (a slice
// pages strictly one after another), several times over, so uneven slices still keep every
// slot busy to the end. Slices are contiguous, so a row stamped on a border belongs to
// exactly one; the plan depends on the window alone, so a resumed export finds the same slices.
import { DAY_MS, MAX_WINDOW_MS, sliceWindow, type Window } from '../input/dates.js';

/** Slices an export aims for: four per page it may fetch at once (MAX_CONCURRENCY). */
export const EXPORT_SLICES = 64;

export function planSlices(window: Window, parallel: number = EXPORT_SLICES): Window[] {
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
