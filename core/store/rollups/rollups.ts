import type { ErrorRow } from '../projection/schema.js';

/**
 * Error rollups: counts per (bucket × category × origin × code × flow), kept at three grains
 * (minute, hour, day; UTC) and changed by deltas in the same transaction as the errors they
 * count. A window query reads whole days, then whole hours, then whole minutes, and only the
 * partial minutes at its two edges come from the (ts-indexed) errors table: exact for any
 * window, and a 24 h window touches ~24 hour buckets instead of 1,440 minute buckets.
 */

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export type Grain = 'minute' | 'hour' | 'day';
export const GRAIN_MS: Record<Grain, number> = { minute: MINUTE, hour: HOUR, day: DAY };
export const ROLLUP_TABLE: Record<Grain, string> = {
  minute: 'error_rollups',
  hour: 'error_rollups_hour',
  day: 'error_rollups_day',
};
export const GRAINS: readonly Grain[] = ['minute', 'hour', 'day'];

/**
 * Dimensions a rollup is keyed by besides its bucket and the occurrences' `disposition` (pending,
 * handled or unhandled: dispositions.ts), a dimension of its own so "unhandled" is a count, not a
 * scan; an occurrence settled by its run's end moves from the pending key to its final one.
 */
export const ROLLUP_DIMENSIONS = ['category', 'origin', 'code', 'flow'] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/**
 * Group trend tables (fingerprint × bucket × flow × disposition → count): every group's sparkline in
 * one read, and a window's group counts from whole hours and days instead of a scan.
 */
export const GROUP_TREND_GRAINS = ['hour', 'day'] as const;
export type GroupTrendGrain = (typeof GROUP_TREND_GRAINS)[number];
export const GROUP_TREND_TABLE: Record<GroupTrendGrain, string> = {
  hour: 'error_group_trend_hour',
  day: 'error_group_trend_day',
};

/**
 * Each group's count per bucket over every flow and disposition, and per flow over every
 * disposition (migration 20): the sparklines' reads, kept by triggers on the trend tables.
 */
export const GROUP_COUNT_TABLE: Record<GroupTrendGrain, string> = {
  hour: 'error_group_count_hour',
  day: 'error_group_count_day',
};
export const GROUP_FLOW_COUNT_TABLE: Record<GroupTrendGrain, string> = {
  hour: 'error_group_flow_count_hour',
  day: 'error_group_flow_count_day',
};

/** Far enough that every real timestamp is inside, small enough to stay an exact integer. */
export const TIME_MIN = -8_640_000_000_000_000 + DAY;
export const TIME_MAX = 8_640_000_000_000_000 - DAY;

export function floorTo(ts: number, size: number): number {
  return ts - (((ts % size) + size) % size);
}

export function ceilTo(ts: number, size: number): number {
  const floor = floorTo(ts, size);
  return floor === ts ? ts : floor + size;
}

export interface RollupKey {
  bucket: number;
  category: string;
  origin: string;
  code: string;
  flow: string;
  /** The counted occurrences' disposition (pending, handled, unhandled). */
  disposition: string;
}

const SEP = '\u0000';

export function rollupKeyString(key: RollupKey): string {
  return `${key.bucket}${SEP}${key.category}${SEP}${key.origin}${SEP}${key.code}${SEP}${key.flow}${SEP}${key.disposition}`;
}

export function parseRollupKey(text: string): RollupKey {
  const [bucket, category, origin, code, flow, disposition] = text.split(SEP);
  return { bucket: Number(bucket), category: category ?? '', origin: origin ?? '', code: code ?? '', flow: flow ?? '', disposition: disposition ?? '' };
}

/** Pending count changes for one grain, keyed by rollupKeyString. */
type RollupDeltas = Map<string, number>;

export interface GrainDeltas {
  minute: RollupDeltas;
  hour: RollupDeltas;
  day: RollupDeltas;
  /** Group trends per grain, keyed by groupTrendKey. */
  trendHour: RollupDeltas;
  trendDay: RollupDeltas;
}

export function emptyGrainDeltas(): GrainDeltas {
  return { minute: new Map(), hour: new Map(), day: new Map(), trendHour: new Map(), trendDay: new Map() };
}

export type RolledError = Pick<ErrorRow, 'ts' | 'category' | 'origin' | 'code' | 'flow' | 'fingerprint' | 'disposition'>;

export interface GroupTrendKey {
  bucket: number;
  fingerprint: string;
  flow: string;
  disposition: string;
}

export function groupTrendKey(key: GroupTrendKey): string {
  return `${key.bucket}${SEP}${key.fingerprint}${SEP}${key.flow}${SEP}${key.disposition}`;
}

export function parseGroupTrendKey(text: string): GroupTrendKey {
  const [bucket, fingerprint, flow, disposition] = text.split(SEP);
  return { bucket: Number(bucket), fingerprint: fingerprint ?? '', flow: flow ?? '', disposition: disposition ?? '' };
}

/** Adds one error row's contribution (sign +1 on insert, -1 on prune) to every grain and trend. */
export function addErrorContribution(deltas: GrainDeltas, error: RolledError, sign = 1): void {
  const disposition = error.disposition;
  for (const grain of GRAINS) {
    const key = rollupKeyString({
      bucket: floorTo(error.ts, GRAIN_MS[grain]),
      category: error.category,
      origin: error.origin,
      code: error.code,
      flow: error.flow,
      disposition,
    });
    const map = deltas[grain];
    map.set(key, (map.get(key) ?? 0) + sign);
  }
  for (const [grain, map] of [
    ['hour', deltas.trendHour],
    ['day', deltas.trendDay],
  ] as const) {
    const key = groupTrendKey({ bucket: floorTo(error.ts, GRAIN_MS[grain]), fingerprint: error.fingerprint, flow: error.flow, disposition });
    map.set(key, (map.get(key) ?? 0) + sign);
  }
}

/** A rollup row's key with a count (a delta to add). */
export interface RollupEntry extends RollupKey {
  count: number;
}

export interface GroupTrendEntry extends GroupTrendKey {
  count: number;
}

/**
 * The rollup changes of one ingest batch: one minute entry per distinct key (one key string
 * built per error), the hour and day entries summed from the minute ones when written. Gives
 * the same sums as `addErrorContribution` over every grain, with a third of the work. Counts are
 * signed: an occurrence its run's end settled leaves its pending key (-1) for its final one (+1);
 * writers skip entries that sum to zero and delete rows a negative entry brings to zero.
 */
export class BatchRollups {
  private readonly minutes = new Map<string, RollupEntry>();
  private readonly trendHours = new Map<string, GroupTrendEntry>();

  get size(): number {
    return this.minutes.size;
  }

  add(error: RolledError, sign = 1): void {
    const bucket = floorTo(error.ts, MINUTE);
    const disposition = error.disposition;
    const key = `${bucket}${SEP}${error.category}${SEP}${error.origin}${SEP}${error.code}${SEP}${error.flow}${SEP}${disposition}`;
    const entry = this.minutes.get(key);
    if (entry) entry.count += sign;
    else this.minutes.set(key, { bucket, category: error.category, origin: error.origin, code: error.code, flow: error.flow, disposition, count: sign });
    const hour = floorTo(error.ts, HOUR);
    const trendKey = `${hour}${SEP}${error.fingerprint}${SEP}${error.flow}${SEP}${disposition}`;
    const trend = this.trendHours.get(trendKey);
    if (trend) trend.count += sign;
    else this.trendHours.set(trendKey, { bucket: hour, fingerprint: error.fingerprint, flow: error.flow, disposition, count: sign });
  }

  /** Group trend entries of a grain (days summed from the hours). */
  trends(grain: GroupTrendGrain): Iterable<GroupTrendEntry> {
    if (grain === 'hour') return this.trendHours.values();
    const summed = new Map<string, GroupTrendEntry>();
    for (const h of this.trendHours.values()) {
      const bucket = floorTo(h.bucket, DAY);
      const key = `${bucket}${SEP}${h.fingerprint}${SEP}${h.flow}${SEP}${h.disposition}`;
      const entry = summed.get(key);
      if (entry) entry.count += h.count;
      else summed.set(key, { bucket, fingerprint: h.fingerprint, flow: h.flow, disposition: h.disposition, count: h.count });
    }
    return summed.values();
  }

  /** A grain's entries, in the order their keys first occurred. */
  entries(grain: Grain): Iterable<RollupEntry> {
    if (grain === 'minute') return this.minutes.values();
    const size = GRAIN_MS[grain];
    const summed = new Map<string, RollupEntry>();
    for (const m of this.minutes.values()) {
      // Minutes nest in hours and days (all UTC from the epoch): flooring the minute floors the ts.
      const bucket = floorTo(m.bucket, size);
      const key = `${bucket}${SEP}${m.category}${SEP}${m.origin}${SEP}${m.code}${SEP}${m.flow}${SEP}${m.disposition}`;
      const entry = summed.get(key);
      if (entry) entry.count += m.count;
      else summed.set(key, { bucket, category: m.category, origin: m.origin, code: m.code, flow: m.flow, disposition: m.disposition, count: m.count });
    }
    return summed.values();
  }
}

/**
 * A window split for the group trend tables, which have hours and days only: whole days in the
 * middle, whole hours around them, and raw edges shorter than an hour at the two ends.
 */
export function planCoarseWindow(
  since: number | undefined,
  until: number | undefined,
): { hours: { from: number; to: number }[]; days: { from: number; to: number }; edges: { from: number; to: number }[] } {
  const lo = since ?? TIME_MIN;
  const hi = until ?? TIME_MAX;
  const empty = { from: 0, to: 0 };
  if (hi <= lo) return { hours: [empty, empty], days: empty, edges: [empty, empty] };
  const a = ceilTo(lo, HOUR);
  const b = floorTo(hi, HOUR);
  if (a >= b) return { hours: [empty, empty], days: empty, edges: [{ from: lo, to: hi }, empty] };
  const edges = [lo < a ? { from: lo, to: a } : empty, b < hi ? { from: b, to: hi } : empty];
  const da = ceilTo(a, DAY);
  const db = floorTo(b, DAY);
  if (da >= db) return { hours: [{ from: a, to: b }, empty], days: empty, edges };
  return {
    hours: [
      { from: a, to: da },
      { from: db, to: b },
    ],
    days: { from: da, to: db },
    edges,
  };
}

/** A half-open range [from, to) of bucket starts in one grain's table. */
interface BucketRange {
  grain: Grain;
  from: number;
  to: number;
}

/** How a window is answered: rollup ranges per grain, plus raw [from, to) edge ranges. */
export interface WindowPlan {
  ranges: BucketRange[];
  edges: { from: number; to: number }[];
}

/**
 * Splits [since, until) into the fewest buckets: whole days in the middle, whole hours around
 * them, whole minutes around those, raw edges (< 1 minute each) at the ends. Always returns
 * ranges for minute ×2, hour ×2, day ×1 and two edges (empty ones as [0, 0)) so every query of
 * a shape has one SQL text and one prepared statement.
 */
export function planWindow(since: number | undefined, until: number | undefined): WindowPlan {
  const lo = since ?? TIME_MIN;
  const hi = until ?? TIME_MAX;
  const empty = { from: 0, to: 0 };
  if (hi <= lo) {
    return {
      ranges: [
        { grain: 'minute', ...empty },
        { grain: 'minute', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'day', ...empty },
      ],
      edges: [empty, empty],
    };
  }
  const a = ceilTo(lo, MINUTE);
  const b = floorTo(hi, MINUTE);
  if (a > b) {
    // Inside one minute: a single edge shorter than a minute.
    return {
      ranges: [
        { grain: 'minute', ...empty },
        { grain: 'minute', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'day', ...empty },
      ],
      edges: [{ from: lo, to: hi }, empty],
    };
  }
  const edges = [lo < a ? { from: lo, to: a } : empty, b < hi ? { from: b, to: hi } : empty];
  const ha = ceilTo(a, HOUR);
  const hb = floorTo(b, HOUR);
  if (ha >= hb) {
    return {
      ranges: [
        { grain: 'minute', from: a, to: b },
        { grain: 'minute', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'hour', ...empty },
        { grain: 'day', ...empty },
      ],
      edges,
    };
  }
  const da = ceilTo(ha, DAY);
  const db = floorTo(hb, DAY);
  const minutes: BucketRange[] = [
    { grain: 'minute', from: a, to: ha },
    { grain: 'minute', from: hb, to: b },
  ];
  if (da >= db) {
    return {
      ranges: [...minutes, { grain: 'hour', from: ha, to: hb }, { grain: 'hour', ...empty }, { grain: 'day', ...empty }],
      edges,
    };
  }
  return {
    ranges: [...minutes, { grain: 'hour', from: ha, to: da }, { grain: 'hour', from: db, to: hb }, { grain: 'day', from: da, to: db }],
    edges,
  };
}
