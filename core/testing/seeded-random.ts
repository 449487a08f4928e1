/**
 * mulberry32: a small seeded PRNG, so every randomized test, bench and fault trial can be
 * replayed from its seed. One copy for all of them (tests, `npm run bench`, `npm run faults`).
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
