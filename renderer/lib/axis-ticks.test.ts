import { describe, expect, it } from 'vitest';
import { countTicks, largestStack } from './axis-ticks.js';

/**
 * mulberry32, as core/testing/seeded-random.ts (renderer/ may not import core/ beyond the API's
 * types). The seed is fixed, HIVEWATCH_FUZZ_SEED overrides it, a failure prints it.
 */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const propertySeed = (fallback: number): number => {
  const given = Number(process.env.HIVEWATCH_FUZZ_SEED ?? '');
  return process.env.HIVEWATCH_FUZZ_SEED && Number.isSafeInteger(given) ? given : fallback;
};

describe('countTicks', () => {
  it('reads 0 upward in a nice step for the 30-day Errors chart', () => {
    expect(countTicks(8_500)).toEqual([0, 2_500, 5_000, 7_500, 10_000]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
  });

  it('gives an empty or broken maximum the axis 0, 1', () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(-4)).toEqual([0, 1]);
    expect(countTicks(Number.NaN)).toEqual([0, 1]);
  });

  it('over generated maxima: starts at 0, rises in one whole step, covers the maximum, stays short', () => {
    const seed = propertySeed(24_2026);
    const random = seededRandom(seed);
    for (let i = 0; i < 5_000; i++) {
      // Maxima across magnitudes: 0.3 .. 10^9, fractions included (a bar count is whole, a guess may not be).
      const max = 10 ** (random() * 9.5 - 0.5) * (random() < 0.2 ? 1 : Math.round(random() * 10) / 10 + 0.05);
      const target = 2 + Math.floor(random() * 8);
      const ticks = countTicks(max, target);
      const where = `seed ${seed} (HIVEWATCH_FUZZ_SEED=${seed} replays it), max ${max}, target ${target}: ${ticks.join(', ')}`;
      expect(ticks[0], where).toBe(0);
      const step = (ticks[1] as number) - (ticks[0] as number);
      expect(Number.isInteger(step) && step > 0, where).toBe(true);
      for (let t = 1; t < ticks.length; t++) expect((ticks[t] as number) - (ticks[t - 1] as number), where).toBe(step);
      expect(ticks.at(-1) as number, where).toBeGreaterThanOrEqual(max);
      // The last tick is the first one at or above the maximum: no empty band on top.
      expect(ticks.at(-2) as number, where).toBeLessThan(Math.max(1, Math.ceil(max)));
      expect(ticks.length, where).toBeLessThanOrEqual(Math.max(target, 2) * 2 + 1);
    }
  });
});

describe('largestStack', () => {
  it('is the largest sum of one point’s counts, 0 with no points', () => {
    expect(largestStack([])).toBe(0);
    expect(largestStack([{ counts: { a: 3, b: 4 } }, { counts: { a: 6 } }, { counts: {} }])).toBe(7);
  });
});
