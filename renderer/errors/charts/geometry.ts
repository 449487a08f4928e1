import { formatCount } from '../../lib/format.js';

/**
 * The arithmetic of the Errors screen's charts, apart from React and recharts so it can be tested
 * as is: which ticks the axes get (fixed sets handed to recharts, so it measures no text), how a
 * tick reads, which bar the pointer is on, what a zoom selection spans.
 */

/** Where a tick's label sits: the first starts at its tick, the last ends at it, the others centre on it. */
export function tickAnchor(index: number, count: number): 'start' | 'middle' | 'end' {
  if (index === 0) return 'start';
  return index === count - 1 ? 'end' : 'middle';
}

/** A label cut to `max` characters with an ellipsis; the tooltip shows it whole. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Pixels one time label needs: its characters at ~6.6 px (11 px text) plus a gap; no text is measured. */
export function labelWidth(text: string): number {
  return Math.ceil(text.length * 6.6) + 14;
}

/**
 * Which buckets get a time label: every `step`-th from the first, `step` the fewest buckets whose
 * width holds one label, so labels never overlap. A label starts at its bucket's left edge; one that
 * would run past the plot's right edge is left off. `width` is the plot's width in pixels (0 before
 * it is known: then one label in eight buckets, a guess corrected by the first measure of the box).
 */
export function labelledBuckets(buckets: number, width: number, labelPx: number): number[] {
  if (buckets <= 0) return [];
  const bucketPx = width > 0 ? width / buckets : 0;
  const step = bucketPx > 0 ? Math.max(1, Math.ceil(labelPx / bucketPx)) : Math.max(1, Math.ceil(buckets / 8));
  const out: number[] = [];
  for (let i = 0; i < buckets; i += step) {
    if (bucketPx > 0 && (buckets - i) * bucketPx < labelPx) break;
    out.push(i);
  }
  return out;
}

/** A zoom selection of bucket indexes, both ends included, in order and inside [0, buckets). */
export interface ZoomSelection {
  from: number;
  to: number;
}

export function orderedSelection(a: number, b: number, buckets: number): ZoomSelection {
  const last = Math.max(0, buckets - 1);
  const clamp = (i: number): number => Math.min(last, Math.max(0, Math.round(i)));
  return { from: Math.min(clamp(a), clamp(b)), to: Math.max(clamp(a), clamp(b)) };
}

/** Whether a selection narrows the chart (the whole span is no zoom). */
export function narrows(selection: ZoomSelection | null, buckets: number): selection is ZoomSelection {
  return selection !== null && (selection.from > 0 || selection.to < buckets - 1);
}

/** The time window of a selection: from its first bucket's start to its last bucket's end. */
export function zoomWindow(starts: readonly number[], selection: ZoomSelection, bucketMs: number): { since: number; until: number } | null {
  const since = starts[selection.from];
  const last = starts[selection.to];
  return since === undefined || last === undefined ? null : { since, until: last + bucketMs };
}

/**
 * The bucket (or row) under a pointer at `x` pixels into a plot of `width` pixels cut into
 * `buckets` equal bands (recharts' band scale, no outer padding), clamped to the first and last.
 */
export function bucketAt(x: number, width: number, buckets: number): number {
  if (buckets <= 0 || width <= 0) return 0;
  return Math.min(buckets - 1, Math.max(0, Math.floor((x / width) * buckets)));
}

/**
 * Where the grid lines of a count axis go, in pixels: one per tick over a plot that starts at
 * `from` and runs `size` pixels, 0 at its start (`upward`: 0 at its end, as a Y axis). The
 * charts hand these to recharts' grid, which would otherwise work out its own tick set (and
 * measure its labels) for the grid alone.
 */
export function gridPositions(ticks: readonly number[], from: number, size: number, upward = false): number[] {
  const top = ticks.at(-1) ?? 0;
  if (top <= 0) return [];
  return ticks.map((t) => from + size * (upward ? 1 - t / top : t / top));
}

/**
 * A count axis' label, short enough for the 44 px Y axis: 9,500, then 25k, 1.5M. One axis reads
 * in one unit, that of its top tick (0, 5k, 10k, 15k — not 0, 5,000, 10k); tick steps are round.
 */
export function axisCount(value: number, top = value): string {
  if (value === 0) return '0';
  if (top >= 1_000_000) return `${Math.round(value / 100_000) / 10}M`;
  if (top >= 10_000) return `${Math.round(value / 100) / 10}k`;
  return formatCount(value);
}
