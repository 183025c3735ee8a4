// How an export window is cut into requests. The service refuses windows over 90 days
// (docs/api.md: GET /revenue), so a longer one is always split; beyond that, the window
// is cut into slices of whole days, enough of them that the most pages the export may ask
// for at once (export.ts) each have a slice to page through (one slice pages
// strictly one after another, cursor by cursor), several times over, so that slices of
// uneven size still keep every slot busy to the end.
// Slices come from dates.sliceWindow: contiguous, each ending 1 ms before the next begins,
// so a row stamped exactly on a border belongs to exactly one slice (both bounds inclusive).
// The plan depends on the window alone, so a resumed export finds the same slices (a
// checkpoint names each finished slice by its place and its window, resume.ts).
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
