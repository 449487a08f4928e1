import { describe, expect, it } from 'vitest';
import { anchorScroll } from './scroll-anchor.js';

const ids = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `r${from + i}`);
const ROW = 44;

describe('anchorScroll', () => {
  it('keeps the first visible row in place when runs arrive above it, and counts them', () => {
    const before = ids(10, 60);
    const after = ['r7', 'r8', 'r9', ...before];
    // Row r20 (index 10) is at the top, 5 px of it scrolled away.
    const result = anchorScroll({ previousKeys: before, keys: after, scrollTop: 10 * ROW + 5, viewportHeight: 400, rowHeight: ROW });
    expect(result).toEqual({ scrollTop: 13 * ROW + 5, insertedAbove: 3, anchored: true });
  });

  it('counts only new rows above the anchor: a row moved up from below is not new', () => {
    const before = ids(0, 30);
    const after = ['new1', 'r25', ...before.filter((k) => k !== 'r25')];
    const result = anchorScroll({ previousKeys: before, keys: after, scrollTop: 5 * ROW, viewportHeight: 200, rowHeight: ROW });
    expect(result).toEqual({ scrollTop: 7 * ROW, insertedAbove: 1, anchored: true });
  });

  it('holds on to the next visible row when the top one left the list', () => {
    const before = ids(0, 30);
    const after = ['new1', ...before.filter((k) => k !== 'r5')];
    // r5 was at the top and is gone; r6 (was index 6, now index 6: one new above, one gone) stays put.
    const result = anchorScroll({ previousKeys: before, keys: after, scrollTop: 5 * ROW, viewportHeight: 200, rowHeight: ROW });
    expect(result).toEqual({ scrollTop: 5 * ROW, insertedAbove: 1, anchored: true });
  });

  it('leaves the scroll alone when rows are only appended (the next page)', () => {
    const before = ids(0, 100);
    const result = anchorScroll({ previousKeys: before, keys: ids(0, 200), scrollTop: 80 * ROW, viewportHeight: 600, rowHeight: ROW });
    expect(result).toEqual({ scrollTop: 80 * ROW, insertedAbove: 0, anchored: true });
  });

  it('leaves the scroll alone when nothing shown before is listed now (a new query)', () => {
    const result = anchorScroll({ previousKeys: ids(0, 50), keys: ids(100, 150), scrollTop: 10 * ROW, viewportHeight: 400, rowHeight: ROW });
    expect(result).toEqual({ scrollTop: 10 * ROW, insertedAbove: 0, anchored: false });
  });
});
