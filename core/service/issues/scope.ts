import type { HivewatchStore } from '../../store/index.js';
import type { IssueWindowCount } from '../../store/issues/issues.js';
import type { IssuePeriod, IssueScope } from '../api-issues.js';

/**
 * The period an issue list or page is read for, and what it counts in it (docs/triage.md "What
 * is getting worse"): events and failures in [since, until) and in the period before it, as long
 * and ending where it starts; and each issue's trend over the period in hour or day buckets,
 * the current one marked partial. Everything from rollups (store/issues/issue-periods.ts,
 * migration 20's group counts).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A period longer than this is charted in days. */
const HOURLY_UP_TO_MS = 3 * DAY;
/** A trend covers at least the last day (a shorter period's hour would be one or two buckets). */
const MIN_TREND_MS = DAY;
/** All time is charted over its last 30 days. */
const ALL_TIME_TREND_MS = 30 * DAY;
/** The most buckets a trend holds (the newest are kept). */
const MAX_TREND_BUCKETS = 400;

export interface PeriodBounds {
  since: number | null;
  until: number;
  previous: { since: number; until: number } | null;
}

/** The period of a scope at `now`: until now when open at its end; the previous one as long, before it. */
export function periodBounds(scope: IssueScope, now: number): PeriodBounds {
  const until = scope.until ?? now;
  if (scope.since === undefined) return { since: null, until, previous: null };
  const span = Math.max(0, until - scope.since);
  return { since: scope.since, until, previous: { since: scope.since - span, until: scope.since } };
}

export interface PeriodCounts {
  current: Map<string, IssueWindowCount>;
  previous: Map<string, IssueWindowCount> | null;
}

/** Events and failures of these issues (every issue for null) in the period and the one before. */
export async function periodCounts(
  store: HivewatchStore,
  fingerprints: readonly string[] | null,
  scope: IssueScope,
  bounds: PeriodBounds,
): Promise<PeriodCounts> {
  const filters = { ...(scope.flow !== undefined ? { flow: scope.flow } : {}), ...(scope.runId !== undefined ? { runId: scope.runId } : {}) };
  const current = await store.issues.windowCounts({ fingerprints, since: bounds.since ?? undefined, until: bounds.until, ...filters });
  const previous = bounds.previous === null ? null : await store.issues.windowCounts({ fingerprints, ...bounds.previous, ...filters });
  return { current, previous };
}

export function periodOf(fingerprint: string, counts: PeriodCounts, bounds: PeriodBounds): IssuePeriod {
  const now = counts.current.get(fingerprint) ?? { events: 0, failures: 0 };
  const before = counts.previous === null || bounds.previous === null ? null : (counts.previous.get(fingerprint) ?? { events: 0, failures: 0 });
  return {
    since: bounds.since,
    until: bounds.until,
    events: now.events,
    failures: now.failures,
    previous: before === null || bounds.previous === null ? null : { ...bounds.previous, ...before },
    change: before === null || before.events === 0 ? null : (now.events - before.events) / before.events,
  };
}

/**
 * How much an issue grew: its events against the period before's, plus one on both sides so a
 * period from nothing ranks by its size and a large issue's small wobble does not outrank a small
 * one that tripled (the "+1" Sentry's trends sort puts under its relative volume, getsentry/sentry
 * src/sentry/search/snuba/executors.py `trends_aggregation_impl`). Without a previous period,
 * its events.
 */
export function growth(period: IssuePeriod): number {
  if (period.previous === null) return period.events;
  return (period.events + 1) / (period.previous.events + 1);
}

export interface Trends {
  start: number;
  bucketMs: number;
  partial: boolean;
  counts: Map<string, number[]>;
}

/** The trend's buckets for a period: hours up to three days, else days; at least the last 24 hours. */
function trendBuckets(bounds: PeriodBounds, now: number): { start: number; bucketMs: number; count: number; partial: boolean } {
  const end = Math.min(bounds.until, now);
  const span = bounds.since === null ? ALL_TIME_TREND_MS : Math.max(MIN_TREND_MS, end - bounds.since);
  const bucketMs = span <= HOURLY_UP_TO_MS ? HOUR : DAY;
  const last = Math.ceil(end / bucketMs) * bucketMs;
  let start = Math.floor((end - span) / bucketMs) * bucketMs;
  start = Math.max(start, last - MAX_TREND_BUCKETS * bucketMs);
  return { start, bucketMs, count: Math.max(1, Math.round((last - start) / bucketMs)), partial: last > now };
}

/** Every issue's trend over the period, in one read of the group rollups (a flow filter reads that flow's). */
export async function issueTrends(
  store: HivewatchStore,
  fingerprints: readonly string[],
  scope: IssueScope,
  bounds: PeriodBounds,
  now: number,
): Promise<Trends> {
  const b = trendBuckets(bounds, now);
  const grain = b.bucketMs === HOUR ? 'hour' : 'day';
  const counts = new Map<string, number[]>();
  if (fingerprints.length > 0) {
    const { trends } = await store.groupTrends({
      fingerprints,
      grain,
      since: b.start,
      until: b.start + b.count * b.bucketMs,
      ...(scope.flow !== undefined ? { flow: scope.flow } : {}),
    });
    for (const [fp, series] of trends) counts.set(fp, series);
  }
  return { start: b.start, bucketMs: b.bucketMs, partial: b.partial, counts };
}
