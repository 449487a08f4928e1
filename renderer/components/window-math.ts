/**
 * Windowing math for long lists: which rows to mount for a scroll position. Rows have a fixed
 * height, or variable heights given as prefix offsets (`offsets[i]` = top of row i, with one
 * extra entry at the end for the total height).
 */

export interface VisibleWindow {
  /** First mounted row (inclusive). */
  start: number;
  /** Last mounted row (exclusive). */
  end: number;
  /** Total height of the list, for the spacer. */
  totalHeight: number;
}

export interface FixedWindowInput {
  count: number;
  rowHeight: number;
  scrollTop: number;
  viewportHeight: number;
  /** Extra rows mounted above and below the viewport. */
  overscan?: number;
}

export function fixedWindow({ count, rowHeight, scrollTop, viewportHeight, overscan = 8 }: FixedWindowInput): VisibleWindow {
  const totalHeight = count * rowHeight;
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0, totalHeight };
  const top = Math.max(0, Math.min(scrollTop, Math.max(0, totalHeight - viewportHeight)));
  const first = Math.floor(top / rowHeight);
  const visible = Math.ceil((top + Math.max(0, viewportHeight)) / rowHeight);
  return {
    start: Math.max(0, first - overscan),
    end: Math.min(count, Math.max(visible, first + 1) + overscan),
    totalHeight,
  };
}

/** Prefix offsets of rows of the given heights: length n + 1, the last being the total. */
export function prefixOffsets(heights: readonly number[]): number[] {
  const offsets = new Array<number>(heights.length + 1);
  offsets[0] = 0;
  for (let i = 0; i < heights.length; i++) offsets[i + 1] = (offsets[i] as number) + (heights[i] as number);
  return offsets;
}

/** Index of the row containing pixel `y` (the last row whose top is ≤ y). */
export function rowAt(offsets: readonly number[], y: number): number {
  const count = offsets.length - 1;
  if (count <= 0) return 0;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] as number) <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface VariableWindowInput {
  offsets: readonly number[];
  scrollTop: number;
  viewportHeight: number;
  overscan?: number;
}

export function variableWindow({ offsets, scrollTop, viewportHeight, overscan = 8 }: VariableWindowInput): VisibleWindow {
  const count = offsets.length - 1;
  const totalHeight = offsets[count] ?? 0;
  if (count <= 0) return { start: 0, end: 0, totalHeight };
  const top = Math.max(0, Math.min(scrollTop, Math.max(0, totalHeight - viewportHeight)));
  const first = rowAt(offsets, top);
  const last = rowAt(offsets, Math.max(top, top + viewportHeight - 1));
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + 1 + overscan), totalHeight };
}

/**
 * The scrollTop that brings row `index` into view with the least movement (unchanged when it is
 * already fully visible).
 */
export function scrollIntoView(rowTop: number, rowBottom: number, scrollTop: number, viewportHeight: number): number {
  if (rowTop < scrollTop) return rowTop;
  if (rowBottom > scrollTop + viewportHeight) return Math.max(0, rowBottom - viewportHeight);
  return scrollTop;
}
