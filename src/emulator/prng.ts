// The emulator's seeded random source (mulberry32): fault injection and seeded revenue draw
// from it so `--seed N` repeats a run exactly. Identifiers (uuids, addresses) do not: they
// come from node:crypto, since repeatable ids across runs would collide in a partner's
// stored data.

export type Random = () => number;

/** A uniform [0, 1) generator from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
