import { describe, expect, it } from 'vitest';
import { axisCount, bucketAt, gridPositions, labelledBuckets, labelWidth, narrows, orderedSelection, shorten, tickAnchor, zoomWindow } from './geometry.js';

const HOUR = 3_600_000;

describe('chart geometry', () => {
  it('anchors the first tick label at its start and the last at its end, so both stay in the plot', () => {
    expect([0, 1, 2, 3].map((i) => tickAnchor(i, 4))).toEqual(['start', 'middle', 'middle', 'end']);
  });

  it('writes axis counts short enough for the Y axis', () => {
    expect([0, 2_500, 9_500, 10_000, 25_000, 125_000, 1_000_000, 2_500_000].map((v) => axisCount(v))).toEqual([
      '0',
      '2,500',
      '9,500',
      '10k',
      '25k',
      '125k',
      '1M',
      '2.5M',
    ]);
    // One axis, one unit: its top tick's.
    expect([0, 5_000, 10_000, 15_000, 20_000].map((v) => axisCount(v, 20_000))).toEqual(['0', '5k', '10k', '15k', '20k']);
    expect([0, 500_000, 1_000_000, 1_500_000].map((v) => axisCount(v, 1_500_000))).toEqual(['0', '0.5M', '1M', '1.5M']);
    expect([0, 2_000, 4_000, 6_000].map((v) => axisCount(v, 6_000))).toEqual(['0', '2,000', '4,000', '6,000']);
  });

  it('shortens a long label to the given length with an ellipsis', () => {
    expect(shorten('RUNTIME_RATE_LIMIT', 22)).toBe('RUNTIME_RATE_LIMIT');
    expect(shorten('VERIFICATION_TESTS_FAILED_HARD', 22)).toBe('VERIFICATION_TESTS_FA…');
    expect(shorten('VERIFICATION_TESTS_FAILED_HARD', 22)).toHaveLength(22);
  });

  it('finds the bucket under the pointer in equal bands, clamped to the first and the last', () => {
    // 24 buckets over 480 px: 20 px each.
    expect([0, 19.9, 20, 239, 479.9].map((x) => bucketAt(x, 480, 24))).toEqual([0, 0, 1, 11, 23]);
    expect(bucketAt(-5, 480, 24)).toBe(0);
    expect(bucketAt(9_999, 480, 24)).toBe(23);
    expect(bucketAt(100, 0, 24)).toBe(0);
    expect(bucketAt(100, 480, 0)).toBe(0);
  });

  it('puts one grid line per count tick across the plot, upward for a Y axis, none for an empty axis', () => {
    expect(gridPositions([0, 10, 20, 30], 170, 300)).toEqual([170, 270, 370, 470]);
    expect(gridPositions([0, 10, 20, 30, 40], 8, 200, true)).toEqual([208, 158, 108, 58, 8]);
    expect(gridPositions([0], 0, 100)).toEqual([]);
    expect(gridPositions([], 0, 100)).toEqual([]);
  });

  it('labels every n-th bucket so labels never overlap and none runs past the right edge', () => {
    const labelPx = labelWidth('11-26 03h');
    expect(labelPx).toBe(74);
    // 24 hourly buckets over 960 px: 40 px a bucket, a label spans 2 buckets.
    const wide = labelledBuckets(24, 960, labelPx);
    expect(wide).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]);
    // At 480 px a label needs 4 buckets; the one at 22 would overrun the edge and at 20 just fits.
    expect(labelledBuckets(24, 480, labelPx)).toEqual([0, 4, 8, 12, 16, 20]);
    // 400 daily buckets over 600 px: one label in 50 (5-character labels: 47 px).
    const days = labelledBuckets(400, 600, labelWidth('11-26'));
    expect(days[1]).toBe(32);
    for (let n = 1; n < days.length; n++) expect(((days[n] as number) - (days[n - 1] as number)) * (600 / 400)).toBeGreaterThanOrEqual(labelWidth('11-26'));
    expect((400 - (days.at(-1) as number)) * (600 / 400)).toBeGreaterThanOrEqual(labelWidth('11-26'));
  });

  it('labels one bucket in eight before the plot width is known, and none for no buckets', () => {
    expect(labelledBuckets(24, 0, 74)).toEqual([0, 3, 6, 9, 12, 15, 18, 21]);
    expect(labelledBuckets(0, 800, 74)).toEqual([]);
  });

  it('orders and clamps a dragged selection, and tells a narrowing one from the whole span', () => {
    expect(orderedSelection(9, 3, 24)).toEqual({ from: 3, to: 9 });
    expect(orderedSelection(-2, 40, 24)).toEqual({ from: 0, to: 23 });
    expect(narrows({ from: 0, to: 23 }, 24)).toBe(false);
    expect(narrows({ from: 1, to: 23 }, 24)).toBe(true);
    expect(narrows({ from: 0, to: 22 }, 24)).toBe(true);
    expect(narrows(null, 24)).toBe(false);
  });

  it('turns a selection into the window from its first bucket start to its last bucket end', () => {
    const starts = Array.from({ length: 24 }, (_, i) => 1_795_600_000_000 + i * HOUR);
    expect(zoomWindow(starts, { from: 3, to: 5 }, HOUR)).toEqual({ since: starts[3], until: (starts[5] as number) + HOUR });
    expect(zoomWindow(starts, { from: 7, to: 7 }, HOUR)).toEqual({ since: starts[7], until: (starts[7] as number) + HOUR });
    expect(zoomWindow(starts, { from: 3, to: 30 }, HOUR)).toBeNull();
  });
});
