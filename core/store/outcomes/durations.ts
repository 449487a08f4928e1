/**
 * Run durations as the flow-health rollups keep them (migration 21): a run's duration in
 * milliseconds rounded down to two significant digits (23,456 → 23,000; 870 → 870; 7 → 7), so a
 * flow's runs of an hour fit a few dozen rows whatever their number, and a median read from them
 * is off by at most half a bucket: under 5 % (a bucket is a tenth of its lower bound at most).
 * Computed by the same rule in SQL (the triggers, the edges of a window, the conformance
 * suite's plain GROUP BY) and here.
 */

/** A duration the run row does not have (NULL, or negative from a clock that went back). */
export const NO_DURATION = -1;

/** The bucket in SQL for the integer expression `ms` (portable: text functions only, no logarithm). */
export function durationBucketSql(ms: string): string {
  const digits = `length(CAST(${ms} AS TEXT))`;
  return `(CASE WHEN ${ms} IS NULL OR ${ms} < 0 THEN ${NO_DURATION} WHEN ${ms} < 100 THEN ${ms}
    ELSE CAST(substr(CAST(${ms} AS TEXT), 1, 2) || substr('0000000000000000000', 1, ${digits} - 2) AS BIGINT) END)`;
}

/** The bucket of one duration (durationBucketSql's rule). */
export function durationBucket(ms: number | null): number {
  if (ms === null || !Number.isFinite(ms) || ms < 0) return NO_DURATION;
  const whole = Math.floor(ms);
  if (whole < 100) return whole;
  const digits = String(whole).length;
  const unit = 10 ** (digits - 2);
  return Math.floor(whole / unit) * unit;
}

/** The durations a bucket holds: [bucket, bucket + width). */
function bucketWidth(bucket: number): number {
  if (bucket < 100) return 1;
  return 10 ** (String(bucket).length - 2);
}

/**
 * The median of the durations counted per bucket: the bucket holding the ⌈n/2⌉-th shortest run,
 * read as the middle of its range (the exact value for durations under 100 ms). Null with no runs.
 */
export function medianOfBuckets(counts: ReadonlyMap<number, number>): number | null {
  const buckets = [...counts].filter(([bucket, n]) => bucket !== NO_DURATION && n > 0).sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total / 2);
  let seen = 0;
  for (const [bucket, n] of buckets) {
    seen += n;
    if (seen >= rank) {
      const width = bucketWidth(bucket);
      return width === 1 ? bucket : bucket + Math.floor(width / 2);
    }
  }
  return null;
}
