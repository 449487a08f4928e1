/** Counts of timestamps in `bins` equal slices of [start, end); outside ones are clamped in. */
export function binTimestamps(timestamps: readonly number[], start: number, end: number, bins: number): number[] {
  const counts = new Array<number>(Math.max(1, bins)).fill(0);
  const span = Math.max(1, end - start);
  for (const ts of timestamps) {
    const i = Math.floor(((ts - start) / span) * counts.length);
    const at = Math.min(counts.length - 1, Math.max(0, i));
    counts[at] = (counts[at] as number) + 1;
  }
  return counts;
}

export const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/**
 * Fills the buckets with no errors, from the window's start (or the first point) to its end (or
 * the last point), so the time axis is linear. At most `max` buckets (the newest are kept).
 */
export function densify(
  points: readonly { start: number; counts: Record<string, number> }[],
  bucket: keyof typeof BUCKET_MS,
  since: number | null,
  until: number | null,
  max = 400,
): { start: number; counts: Record<string, number> }[] {
  if (points.length === 0) return [];
  const size = BUCKET_MS[bucket];
  const floor = (t: number): number => Math.floor(t / size) * size;
  const byStart = new Map(points.map((p) => [floor(p.start), p.counts]));
  const firstPoint = Math.min(...byStart.keys());
  const lastPoint = Math.max(...byStart.keys());
  const first = since === null ? firstPoint : Math.min(floor(since), firstPoint);
  const last = until === null ? lastPoint : Math.max(floor(until - 1), lastPoint);
  const count = Math.floor((last - first) / size) + 1;
  const shown = Number.isFinite(count) ? Math.min(count, max) : max;
  const from = last - (shown - 1) * size;
  const out: { start: number; counts: Record<string, number> }[] = [];
  // By index, not `t += size`: past 2^53 adding a bucket leaves t as it was (a loop that never ends).
  for (let i = 0; i < shown; i++) {
    const t = from + i * size;
    out.push({ start: t, counts: byStart.get(t) ?? {} });
  }
  return out;
}
