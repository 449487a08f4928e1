import type { ErrorCount, ErrorFilter, ErrorGroup, ErrorOccurrence, ErrorSeries, HivewatchApi } from '../../core/service/api.js';
import { BUCKET_MS, densify } from './bins.js';
import { bucketFor, filterOf, MAX_BARS, parseErrorsQuery, saneSpan, seriesWindowOf, stableNow, windowOf } from './errors-query.js';
import { costInput, issuesInput, prefetchSideLoads } from './side-loads.js';

/**
 * What the Errors screen reads, as plain async functions, and a prefetch of it. This module is
 * part of the main bundle (no charts), so the window starts the screen's queries when the route
 * says #/errors, while the screen's own chunk (the charts) is still loading: the two waits
 * overlap instead of adding up.
 */

export interface Overview {
  byCategory: ErrorCount[];
  byOrigin: ErrorCount[];
  byCode: ErrorCount[];
  byFlow: ErrorCount[];
  /** Occurrences by disposition: keys HANDLED_KEYS.handled / .unhandled / .pending (rule 17). */
  byHandled: ErrorCount[];
  /** Failures in the window: one per run that ended failed (by its end time), its ending error. */
  failures: number;
  series: ErrorSeries;
  groups: ErrorGroup[];
}

/** The newest occurrences: the list's first rows and the pivot's input, in one read. */
export interface OccurrenceSample {
  items: ErrorOccurrence[];
  nextCursor: string | null;
}

/** How many occurrences the pivot summarises (the list shows them 50 at a time). */
export const SAMPLE_SIZE = 500;

const SPARK_BINS = 24;

/**
 * One round of queries: the counts, the groups with every sparkline (from the rollups), and, for
 * a bounded window, the series, all at once. Only "all time" reads its series after the groups,
 * whose first and last seen give the bars their span.
 */
export async function loadOverview(api: HivewatchApi, filter: ErrorFilter, windowBucket: ErrorSeries['bucket'], now = Date.now()): Promise<Overview> {
  const open = filter.since === undefined;
  // A bounded window's bars: inside the sane bounds, never more than the chart draws.
  const bars = open ? null : seriesWindowOf(filter, windowBucket, now);
  const [byCategory, byOrigin, byCode, byFlow, byHandled, failureCounts, groups, windowed] = await Promise.all([
    api.errorCounts({ ...filter, by: 'category' }),
    api.errorCounts({ ...filter, by: 'origin', limit: 12 }),
    api.errorCounts({ ...filter, by: 'code', limit: 12 }),
    api.errorCounts({ ...filter, by: 'flow', limit: 50 }),
    api.errorCounts({ ...filter, by: 'handled' }),
    // Only the total is shown: one row is the least the query can answer.
    api.failureCounts({ ...filter, by: 'code', limit: 1 }),
    api.errorGroups({ ...filter, limit: 100, trendBins: SPARK_BINS }),
    bars === null ? Promise.resolve(null) : api.errorSeries({ ...filter, ...bars, bucket: windowBucket, stackBy: 'category' }),
  ]);
  const failures = failureCounts.total;
  if (!open) {
    const points = windowed ? densify(windowed.points, windowBucket, bars?.since ?? null, bars?.until ?? null) : [];
    return {
      byCategory,
      byOrigin,
      byCode,
      byFlow,
      byHandled,
      failures,
      series: windowed ? { ...windowed, bucket: windowBucket, points } : noSeries(windowBucket),
      groups,
    };
  }
  // Without a start ("all time") the bars follow the data's own span, from first to last error,
  // inside the sane bounds (errors of virtual-clock runs can lie ahead of now; a row dated in
  // 2300 or before 2000 is counted and listed, not charted).
  const span = groups.length > 0 ? saneSpan(Math.min(...groups.map((g) => g.firstSeen)), Math.max(...groups.map((g) => g.lastSeen)) + 1, now) : null;
  if (span === null) return { byCategory, byOrigin, byCode, byFlow, byHandled, failures, series: noSeries(windowBucket), groups };
  const bucket = bucketFor(span.until - span.since);
  const until = filter.until !== undefined ? Math.min(filter.until, span.until) : span.until;
  const since = Math.max(span.since, until - MAX_BARS * BUCKET_MS[bucket]);
  const series = until > since ? await api.errorSeries({ ...filter, since, until, bucket, stackBy: 'category' }) : noSeries(bucket);
  const points = densify(trimEmpty(series.points), bucket, null, null);
  return { byCategory, byOrigin, byCode, byFlow, byHandled, failures, series: { ...series, bucket, points }, groups };
}

const noSeries = (bucket: ErrorSeries['bucket']): ErrorSeries => ({ bucket, stackBy: 'category', keys: [], points: [] });

function trimEmpty<P extends { counts: Record<string, number> }>(points: readonly P[]): P[] {
  const nonEmpty = (p: P): boolean => Object.values(p.counts).some((n) => n > 0);
  const from = points.findIndex(nonEmpty);
  if (from < 0) return [];
  let to = points.length - 1;
  while (to > from && !nonEmpty(points[to] as P)) to--;
  return points.slice(from, to + 1);
}

export function loadOccurrenceSample(api: HivewatchApi, filter: ErrorFilter, group: string): Promise<OccurrenceSample> {
  return api.listErrors({ ...filter, ...(group ? { fingerprint: group } : {}), limit: SAMPLE_SIZE });
}

/** A first round started before the screen mounted; each answer is taken at most once. */
interface Prefetched {
  overviewKey: string;
  sampleKey: string;
  overview: Promise<Overview> | null;
  sample: Promise<OccurrenceSample> | null;
  /** The page clock its windows were read at (stableNow), and when it was asked (wall). */
  at: number;
  askedAt: number;
}

/** How long a first round's clock is the screen's: longer, and its answers are too old to show first. */
const ROUND_CLOCK_MS = 5_000;

let prefetched: Prefetched | null = null;

const overviewKey = (filter: ErrorFilter, bucket: ErrorSeries['bucket']): string => `${JSON.stringify(filter)}|${bucket}`;
const sampleKey = (filter: ErrorFilter, group: string): string => `${JSON.stringify(filter)}|${group}`;

/**
 * Starts the screen's first round for the route's query, unless that round is already waiting
 * to be taken. The screen takes each answer once (`takePrefetched*`); a refresh reads again.
 */
export function prefetchErrors(api: HivewatchApi, params: URLSearchParams, now = Date.now()): void {
  const query = parseErrorsQuery(params);
  const at = stableNow(now);
  const filter = filterOf(query, at);
  const bucket = windowOf(query, at).bucket;
  prefetchSideLoads(api, issuesInput(query, at), costInput(filter, query.issueStatus));
  const next = { overviewKey: overviewKey(filter, bucket), sampleKey: sampleKey(filter, query.group) };
  if (prefetched && prefetched.overview && prefetched.overviewKey === next.overviewKey && prefetched.sampleKey === next.sampleKey) return;
  const overview = loadOverview(api, filter, bucket);
  const sample = loadOccurrenceSample(api, filter, query.group);
  const round: Prefetched = { ...next, overview, sample, at, askedAt: now };
  // Nobody may take them (the operator navigated on): never an unhandled rejection. A round that
  // failed (the server was away) is never handed to a screen that mounts later, e.g. once its
  // chunk loads after the server came back: that screen would show the old failure with no
  // recovery left to read again. It reads afresh instead.
  overview.catch(() => {
    if (round.overview === overview) round.overview = null;
  });
  sample.catch(() => {
    if (round.sample === sample) round.sample = null;
  });
  prefetched = round;
}

/**
 * The page clock of a first round asked moments ago, for the screen that takes it: its windows
 * are the round's. The clock turns each minute (stableNow); a screen mounting just after a turn
 * with a clock of its own missed the round and asked everything again (one cold open in a few
 * hundred, at twice the time).
 */
export function prefetchedNow(now = Date.now()): number | null {
  return prefetched?.overview && now - prefetched.askedAt < ROUND_CLOCK_MS ? prefetched.at : null;
}

export function takePrefetchedOverview(filter: ErrorFilter, bucket: ErrorSeries['bucket']): Promise<Overview> | null {
  if (!prefetched?.overview || prefetched.overviewKey !== overviewKey(filter, bucket)) return null;
  const taken = prefetched.overview;
  prefetched.overview = null;
  return taken;
}

export function takePrefetchedSample(filter: ErrorFilter, group: string): Promise<OccurrenceSample> | null {
  if (!prefetched?.sample || prefetched.sampleKey !== sampleKey(filter, group)) return null;
  const taken = prefetched.sample;
  prefetched.sample = null;
  return taken;
}
