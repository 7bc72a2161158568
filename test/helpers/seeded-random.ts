/**
 * A small seeded pseudo-random generator (mulberry32) for fuzzers and randomized trials: the
 * same seed gives the same sequence on every machine, so a failure is reproduced by its seed.
 * Returns numbers in [0, 1), like Math.random. Not for anything that must be unpredictable.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
