/**
 * The arithmetic of the Errors screen's SVG charts, apart from React so it can be tested as is.
 * Horizontal positions are percentages of the plot's width (the browser scales them; nothing
 * is measured), vertical ones pixels of a plot of fixed height.
 */

/** A fraction of the plot's width as an SVG length ("12.5%"), rounded to keep the markup short. */
export function pct(fraction: number): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  return `${Math.round(clamped * 100_000) / 1000}%`;
}

/** Where a tick's label sits: the first starts at its tick, the last ends at it, the others centre on it. */
export function tickAnchor(index: number, count: number): 'start' | 'middle' | 'end' {
  if (index === 0) return 'start';
  return index === count - 1 ? 'end' : 'middle';
}

/** A label cut to `max` characters with an ellipsis; the tooltip shows it whole. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export interface Segment {
  key: string;
  count: number;
  /** Pixels from the plot's top to the segment's top, and the segment's height. */
  y: number;
  height: number;
}

/**
 * One bar's stack, bottom up in the order of `keys` (the legend's order): each key's segment sits on
 * the ones before it; keys with no count in the bar draw nothing. `top` is the axis' largest tick.
 */
export function stackSegments(counts: Readonly<Record<string, number>>, keys: readonly string[], top: number, plotHeight: number): Segment[] {
  const scale = top > 0 ? plotHeight / top : 0;
  const segments: Segment[] = [];
  let below = 0;
  for (const key of keys) {
    const count = counts[key] ?? 0;
    if (count <= 0) continue;
    const bottom = plotHeight - below * scale;
    below += count;
    const y = plotHeight - below * scale;
    segments.push({ key, count, y, height: bottom - y });
  }
  return segments;
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
 * A count axis' label, short enough for the 44 px Y axis: 9,500, then 25k, 1.5M. One axis reads
 * in one unit, that of its top tick (0, 5k, 10k, 15k — not 0, 5,000, 10k); tick steps are round.
 */
export function axisCount(value: number, top = value): string {
  if (value === 0) return '0';
  if (top >= 1_000_000) return `${Math.round(value / 100_000) / 10}M`;
  if (top >= 10_000) return `${Math.round(value / 100) / 10}k`;
  return value.toLocaleString('en-US');
}
