// Binary search, for the lists the emulator keeps sorted: the ledger, the seeded rows and the
// deposit deadlines.

/** The first index below `length` that `isAtOrPast` accepts; it must reject, then accept, along the order. */
export function firstIndex(length: number, isAtOrPast: (i: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isAtOrPast(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
