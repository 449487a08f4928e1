import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { durationBucket, medianOfBuckets, NO_DURATION } from './durations.js';

/** The duration buckets the flow-health rollups keep, and the median read from them. */
describe('duration buckets', () => {
  it('keeps two significant digits, and whole milliseconds under 100', () => {
    expect([0, 7, 99, 100, 870, 999, 1000, 1049, 23_456, 60_000, 61_234_567].map(durationBucket)).toEqual([
      0, 7, 99, 100, 870, 990, 1000, 1000, 23_000, 60_000, 61_000_000,
    ]);
    expect(durationBucket(null)).toBe(NO_DURATION);
    expect(durationBucket(-3)).toBe(NO_DURATION);
  });

  it('reads a median within 5 % of the exact one (the ⌈n/2⌉-th shortest)', async () => {
    await assertProperty(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 * 86_400_000 }), { minLength: 1, maxLength: 300 }), (durations) => {
        const counts = new Map<number, number>();
        for (const d of durations) counts.set(durationBucket(d), (counts.get(durationBucket(d)) ?? 0) + 1);
        const exact = [...durations].sort((a, b) => a - b)[Math.ceil(durations.length / 2) - 1] as number;
        const read = medianOfBuckets(counts) as number;
        expect(Math.abs(read - exact)).toBeLessThanOrEqual(Math.max(1, exact * 0.05));
      }),
      { seed: 2104, numRuns: 300 },
    );
  });

  it('has no median without a duration', () => {
    expect(medianOfBuckets(new Map())).toBeNull();
    expect(medianOfBuckets(new Map([[NO_DURATION, 4]]))).toBeNull();
  });
});
