import { describe, expect, it } from 'vitest';
import { fixedWindow, prefixOffsets, rowAt, scrollIntoView, variableWindow } from './window-math.js';

describe('fixedWindow', () => {
  it('mounts only the rows in view plus the overscan', () => {
    expect(fixedWindow({ count: 10_000, rowHeight: 32, scrollTop: 0, viewportHeight: 320, overscan: 5 })).toEqual({
      start: 0,
      end: 15,
      totalHeight: 320_000,
    });
    expect(fixedWindow({ count: 10_000, rowHeight: 32, scrollTop: 3200, viewportHeight: 320, overscan: 5 })).toEqual({
      start: 95,
      end: 115,
      totalHeight: 320_000,
    });
  });

  it('handles a partly visible row at the bottom', () => {
    expect(fixedWindow({ count: 100, rowHeight: 30, scrollTop: 10, viewportHeight: 100, overscan: 0 })).toMatchObject({ start: 0, end: 4 });
  });

  it('clamps a scroll position past the end (the list shrank)', () => {
    const w = fixedWindow({ count: 20, rowHeight: 10, scrollTop: 5_000, viewportHeight: 50, overscan: 0 });
    expect(w).toEqual({ start: 15, end: 20, totalHeight: 200 });
  });

  it('is empty for no rows', () => {
    expect(fixedWindow({ count: 0, rowHeight: 10, scrollTop: 0, viewportHeight: 50 })).toEqual({ start: 0, end: 0, totalHeight: 0 });
  });

  it('never mounts more than the viewport needs at 10,000 rows', () => {
    for (const scrollTop of [0, 1234, 99_999, 319_680]) {
      const w = fixedWindow({ count: 10_000, rowHeight: 32, scrollTop, viewportHeight: 640, overscan: 8 });
      expect(w.end - w.start).toBeLessThanOrEqual(20 + 1 + 16);
      expect(w.end).toBeLessThanOrEqual(10_000);
    }
  });
});

describe('variable heights', () => {
  const heights = [10, 10, 100, 10, 10];
  const offsets = prefixOffsets(heights);

  it('builds prefix offsets with the total last', () => {
    expect(offsets).toEqual([0, 10, 20, 120, 130, 140]);
  });

  it('finds the row at a pixel', () => {
    expect(rowAt(offsets, 0)).toBe(0);
    expect(rowAt(offsets, 9)).toBe(0);
    expect(rowAt(offsets, 10)).toBe(1);
    expect(rowAt(offsets, 119)).toBe(2);
    expect(rowAt(offsets, 139)).toBe(4);
    expect(rowAt(offsets, 10_000)).toBe(4);
  });

  it('mounts the rows that intersect the viewport', () => {
    expect(variableWindow({ offsets, scrollTop: 25, viewportHeight: 20, overscan: 0 })).toEqual({ start: 2, end: 3, totalHeight: 140 });
    expect(variableWindow({ offsets, scrollTop: 15, viewportHeight: 110, overscan: 1 })).toEqual({ start: 0, end: 5, totalHeight: 140 });
  });

  it('is empty for no rows', () => {
    expect(variableWindow({ offsets: [0], scrollTop: 0, viewportHeight: 100 })).toEqual({ start: 0, end: 0, totalHeight: 0 });
  });
});

describe('scrollIntoView', () => {
  it('moves only as far as needed', () => {
    expect(scrollIntoView(100, 130, 0, 200)).toBe(0);
    expect(scrollIntoView(250, 280, 0, 200)).toBe(80);
    expect(scrollIntoView(40, 70, 100, 200)).toBe(40);
  });
});
