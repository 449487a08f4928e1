import type { Bucket, ErrorFilter, IssueScope, IssueSort } from '../../core/service/api.js';

/**
 * The Errors screen's state in the URL: `#/errors?range=24h&category=runtime&code=…&group=…`.
 * A chart zoom sets `since`/`until` (absolute, ms), which win over `range`.
 */

export const RANGES = ['1h', '24h', '7d', '30d', 'all'] as const;
export type Range = (typeof RANGES)[number];

export const RANGE_LABELS: Record<Range, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  all: 'All time',
};

const RANGE_MS: Record<Exclude<Range, 'all'>, number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

const FILTER_KEYS = ['category', 'origin', 'code', 'flow', 'run'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export interface ErrorsQuery {
  range: Range;
  since: number | null;
  until: number | null;
  category: string;
  origin: string;
  code: string;
  flow: string;
  run: string;
  /** The selected error group (fingerprint) whose occurrences are listed. */
  group: string;
  /** The issues list's status filter ('' for every status) and sort (`istatus`, `isort`). */
  issueStatus: IssueStatusChoice;
  issueSort: IssueSort;
}

/** Duplicated from core/service/api-issues.ts (the renderer imports types only). */
export const ISSUE_STATUS_CHOICES = ['unresolved', 'resolved', 'ignored', 'regressed', 'escalating', 'new', 'ongoing', ''] as const;
export type IssueStatusChoice = (typeof ISSUE_STATUS_CHOICES)[number];
export const ISSUE_SORT_CHOICES: readonly IssueSort[] = ['last-seen', 'first-seen', 'events', 'failures', 'runs', 'trend'];
export const STATUS_LABELS: Record<IssueStatusChoice, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
  regressed: 'Regressed',
  escalating: 'Escalating',
  new: 'New',
  ongoing: 'Ongoing',
  '': 'Every status',
};
/** As Sentry opens on `is:unresolved`: what needs work. */
const DEFAULT_ISSUE_STATUS: IssueStatusChoice = 'unresolved';

export const DEFAULT_RANGE: Range = '24h';

function time(value: string | null): number | null {
  if (value === null || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

export function parseErrorsQuery(params: URLSearchParams): ErrorsQuery {
  const range = params.get('range') as Range | null;
  const since = time(params.get('since'));
  const until = time(params.get('until'));
  const ordered = since !== null && until !== null && until <= since ? { since: null, until: null } : { since, until };
  return {
    range: range && (RANGES as readonly string[]).includes(range) ? range : DEFAULT_RANGE,
    ...ordered,
    category: params.get('category') ?? '',
    origin: params.get('origin') ?? '',
    code: params.get('code') ?? '',
    flow: params.get('flow') ?? '',
    run: params.get('run') ?? '',
    group: params.get('group') ?? '',
    ...parseIssueParams(params),
  };
}

function parseIssueParams(params: URLSearchParams): Pick<ErrorsQuery, 'issueStatus' | 'issueSort'> {
  const status = params.get('istatus');
  const sort = params.get('isort') as IssueSort | null;
  return {
    issueStatus:
      status === 'all'
        ? ''
        : status !== null && (ISSUE_STATUS_CHOICES as readonly string[]).includes(status)
          ? (status as IssueStatusChoice)
          : DEFAULT_ISSUE_STATUS,
    issueSort: sort !== null && ISSUE_SORT_CHOICES.includes(sort) ? sort : 'last-seen',
  };
}

export function serializeErrorsQuery(q: ErrorsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (q.range !== DEFAULT_RANGE) params.set('range', q.range);
  if (q.since !== null) params.set('since', String(q.since));
  if (q.until !== null) params.set('until', String(q.until));
  for (const key of FILTER_KEYS) if (q[key]) params.set(key, q[key]);
  if (q.group) params.set('group', q.group);
  if (q.issueStatus !== DEFAULT_ISSUE_STATUS) params.set('istatus', q.issueStatus || 'all');
  if (q.issueSort !== 'last-seen') params.set('isort', q.issueSort);
  return params;
}

/**
 * The times a chart may span: stored errors may carry any time (an older
 * version's ingest, another writer), so a chart's window is planned inside these bounds whatever
 * the rows hold (telemetry dated more than a day ahead is not believed at ingest either), and
 * never asks for more bars than it can draw.
 */
const SANE_TIME_MIN_MS = Date.UTC(2000, 0, 1);
const SANE_FUTURE_MS = 86_400_000;
/** The most bars a series chart draws (densify keeps the newest this many). */
export const MAX_BARS = 400;

const BUCKET_SIZE: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** [since, until) clamped into the sane bounds at `now`; null when nothing of it is inside. */
export function saneSpan(since: number, until: number, now: number): { since: number; until: number } | null {
  const from = Math.max(since, SANE_TIME_MIN_MS);
  const to = Math.min(until, now + SANE_FUTURE_MS);
  return Number.isFinite(from) && Number.isFinite(to) && to > from ? { since: from, until: to } : null;
}

/**
 * The window a series is read for: the filter's own, inside the sane bounds and at most MAX_BARS
 * buckets long (the newest kept, as the chart draws them). `until` stays open (the server's now)
 * when the filter's is. Null when nothing of the window can be drawn.
 */
export function seriesWindowOf(filter: { since?: number; until?: number }, bucket: Bucket, now: number): { since: number; until?: number } | null {
  const size = BUCKET_SIZE[bucket];
  const span = saneSpan(filter.since ?? SANE_TIME_MIN_MS, filter.until ?? now + size, now);
  if (span === null) return null;
  const since = Math.max(span.since, span.until - MAX_BARS * size);
  return filter.until === undefined ? { since } : { since, until: span.until };
}

/** The bucket that gives a readable number of bars (≤ ~200) for a span. */
export function bucketFor(spanMs: number): Bucket {
  if (spanMs <= 3 * 3_600_000) return 'minute';
  if (spanMs <= 8 * 86_400_000) return 'hour';
  return 'day';
}

/** The time window a query means at `now`; `since` null means from the beginning. */
export function windowOf(q: ErrorsQuery, now: number): { since: number | null; until: number | null; bucket: Bucket; zoomed: boolean } {
  if (q.since !== null || q.until !== null) {
    const since = q.since;
    const until = q.until;
    return { since, until, bucket: bucketFor((until ?? now) - (since ?? 0)), zoomed: true };
  }
  if (q.range === 'all') return { since: null, until: null, bucket: 'day', zoomed: false };
  const span = RANGE_MS[q.range];
  return { since: now - span, until: null, bucket: bucketFor(span), zoomed: false };
}

/**
 * The API filter for a query (the group is a separate argument of listErrors): the window, the
 * filters, and the issue status, which every panel follows (only the occurrences of the issues in
 * that status are counted, charted and listed).
 */
export function filterOf(q: ErrorsQuery, now: number): ErrorFilter {
  const filter: ErrorFilter = scopeOf(q, now);
  if (q.issueStatus) filter.issueStatus = q.issueStatus;
  return filter;
}

/** The period and filters an issue list or page is read for: the screen's, without the status. */
export function scopeOf(q: ErrorsQuery, now: number): IssueScope {
  const w = windowOf(q, now);
  const scope: IssueScope = {};
  if (w.since !== null) scope.since = w.since;
  if (w.until !== null) scope.until = w.until;
  if (q.category) scope.category = q.category;
  if (q.origin) scope.origin = q.origin;
  if (q.code) scope.code = q.code;
  if (q.flow) scope.flow = q.flow;
  if (q.run) scope.runId = q.run;
  return scope;
}

/** Rounds `now` so that relative windows stay stable across renders (one minute steps). */
export function stableNow(now: number): number {
  return Math.ceil(now / 60_000) * 60_000;
}
