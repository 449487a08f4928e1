import { floorTo, GRAIN_MS, GROUP_COUNT_TABLE, GROUP_FLOW_COUNT_TABLE, GROUP_TREND_TABLE, planCoarseWindow, type GroupTrendGrain } from '../rollups/rollups.js';
import { StoreError } from '../store-error.js';
import { clampLimit, Conditions, optionalText, optionalTime } from './sql.js';
import { all, type Dialect, type Query } from './plan.js';
import { dispositionFilter, resolveFlows, type ErrorFilters } from './errors.js';
import type { ErrorDisposition } from '../projection/schema.js';

export interface ErrorGroupsQuery extends ErrorFilters {
  since?: number;
  until?: number;
  /** Default `count` (largest first); `last_seen` for the most recent first. */
  sort?: 'count' | 'last_seen';
  limit?: number;
}

export interface ErrorGroup {
  fingerprint: string;
  category: string;
  code: string;
  origin: string;
  /** The normalised message every member shares. */
  template: string;
  /** The newest member's message (over all time). */
  lastMessage: string;
  /** Members in the window and filters (all time without a window). */
  count: number;
  /** Of `count`, the members whose disposition is `unhandled` (links of a failed run's chain). */
  unhandled: number;
  /** The group's first and last member over all time, whatever the window (as Sentry shows them). */
  firstSeen: number;
  lastSeen: number;
}

export interface GroupTrendsQuery {
  fingerprints: readonly string[];
  grain: GroupTrendGrain;
  since: number;
  until: number;
  flow?: string;
  disposition?: ErrorDisposition;
}

export type GroupRecord = {
  fingerprint: string;
  category: string;
  code: string;
  origin: string;
  template: string;
  last_message: string;
  count: number;
  unhandled: number;
  first_seen: number;
  last_seen: number;
};

export const toGroup = (r: GroupRecord): ErrorGroup => ({
  fingerprint: r.fingerprint,
  category: r.category,
  code: r.code,
  origin: r.origin,
  template: r.template,
  lastMessage: r.last_message,
  count: r.count,
  unhandled: r.unhandled,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
});

const UNHANDLED_SUM = "CASE WHEN disposition = 'unhandled' THEN 1 ELSE 0 END";

/**
 * Groups by fingerprint. Without a window or flow filter (or a disposition filter other than
 * `unhandled`, which `error_groups` cannot split) this reads `error_groups`, maintained
 * incrementally at ingest (count, unhandled, first/last seen): one small-table read whatever the
 * history. Otherwise the counts come from the group trend tables (whole days and hours) plus the
 * errors of the two partial hours at the window's edges, joined to `error_groups` for the
 * template and the all-time first / last seen.
 */
export function* errorGroups(dialect: Dialect, query: ErrorGroupsQuery = {}): Query<ErrorGroup[]> {
  const limit = clampLimit(query.limit);
  const sort = query.sort ?? 'count';
  if (sort !== 'count' && sort !== 'last_seen') throw new StoreError('invalid_argument', `unknown sort "${String(sort)}"; use count or last_seen`);
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const flow = optionalText('flow', query.flow);
  const disposition = dispositionFilter(query.disposition);
  const order = sort === 'count' ? 'count DESC, last_seen DESC, fingerprint' : 'last_seen DESC, count DESC, fingerprint';

  const groupFilter = new Conditions();
  for (const dim of ['category', 'origin', 'code'] as const) {
    const value = optionalText(dim, query[dim]);
    if (value !== undefined) groupFilter.add(`g.${dim} = ?`, value);
  }
  if (query.fingerprints !== undefined) {
    if (query.fingerprints.length === 0) return [];
    groupFilter.add(`g.fingerprint IN (${query.fingerprints.map(() => '?').join(', ')})`, ...query.fingerprints);
  }

  if (since === undefined && until === undefined && flow === undefined && (disposition === undefined || disposition === 'unhandled')) {
    const count = disposition === undefined ? 'g.count' : 'g.unhandled';
    const sql = `SELECT g.fingerprint, g.category, g.code, g.origin, g.template, g.last_message, ${count} AS count,
        g.unhandled AS unhandled, g.first_seen, g.last_seen
      FROM error_groups AS g WHERE ${count} > 0${groupFilter.and()} ORDER BY ${order} LIMIT ?`;
    return (yield* all<GroupRecord>(sql, [...groupFilter.params, limit])).map(toGroup);
  }

  const trendFilter = new Conditions();
  const rawFilter = new Conditions();
  if (flow !== undefined) {
    const flows = yield* resolveFlows(dialect, flow);
    const list = flows.map(() => '?').join(', ');
    trendFilter.add(`flow IN (${list})`, ...flows);
    rawFilter.add(`flow IN (${list})`, ...flows);
  }
  if (disposition !== undefined) {
    trendFilter.add('disposition = ?', disposition);
    rawFilter.add('disposition = ?', disposition);
  }
  const plan = planCoarseWindow(since, until);
  const parts: string[] = [];
  const params: unknown[] = [];
  const trendPart = (table: string, range: { from: number; to: number }): void => {
    parts.push(
      `SELECT fingerprint, SUM(count) AS n, SUM(CASE WHEN disposition = 'unhandled' THEN count ELSE 0 END) AS u FROM ${table}
       WHERE bucket >= ? AND bucket < ?${trendFilter.and()} GROUP BY fingerprint`,
    );
    params.push(range.from, range.to, ...trendFilter.params);
  };
  for (const range of plan.hours) trendPart(GROUP_TREND_TABLE.hour, range);
  trendPart(GROUP_TREND_TABLE.day, plan.days);
  for (const edge of plan.edges) {
    parts.push(`SELECT fingerprint, COUNT(*) AS n, SUM(${UNHANDLED_SUM}) AS u FROM errors WHERE ts >= ? AND ts < ?${rawFilter.and()} GROUP BY fingerprint`);
    params.push(edge.from, edge.to, ...rawFilter.params);
  }
  const sql = `SELECT g.fingerprint AS fingerprint, g.category AS category, g.code AS code, g.origin AS origin,
      g.template AS template, g.last_message AS last_message, w.n AS count, w.u AS unhandled,
      g.first_seen AS first_seen, g.last_seen AS last_seen
    FROM (SELECT fingerprint, SUM(n) AS n, SUM(u) AS u FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY fingerprint HAVING SUM(n) > 0) AS w
    JOIN error_groups AS g ON g.fingerprint = w.fingerprint${groupFilter.where()}
    ORDER BY ${order} LIMIT ?`;
  return (yield* all<GroupRecord>(sql, [...params, ...groupFilter.params, limit])).map(toGroup);
}

/**
 * Where a trend read looks and what it matches besides the window: a disposition filter needs the
 * trend tables themselves; a flow filter reads the per-flow counts (migration 20), the flow first
 * in their key so one flow is one range; no filter reads each group's counts over everything.
 */
function* trendSource(dialect: Dialect, query: GroupTrendsQuery, first: number): Query<{ table: string; where: Conditions }> {
  const fingerprints = [...new Set(query.fingerprints)];
  const where = new Conditions();
  const flow = optionalText('flow', query.flow);
  const flows = flow === undefined ? undefined : yield* resolveFlows(dialect, flow);
  if (flows !== undefined) where.add(`flow IN (${flows.map(() => '?').join(', ')})`, ...flows);
  where
    .add(`fingerprint IN (${fingerprints.map(() => '?').join(', ')})`, ...fingerprints)
    .add('bucket >= ?', first)
    .add('bucket < ?', query.until);
  const disposition = dispositionFilter(query.disposition);
  if (disposition !== undefined) {
    where.add('disposition = ?', disposition);
    return { table: GROUP_TREND_TABLE[query.grain], where };
  }
  return { table: (flows === undefined ? GROUP_COUNT_TABLE : GROUP_FLOW_COUNT_TABLE)[query.grain], where };
}

/** Checks a trend query's window and grain; returns the bucket size and the first bucket. */
function trendWindow(query: GroupTrendsQuery): { size: number; first: number; count: number } {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since === undefined || until === undefined) throw new StoreError('invalid_argument', 'groupTrends needs since and until');
  if (query.grain !== 'hour' && query.grain !== 'day') throw new StoreError('invalid_argument', `unknown grain "${String(query.grain)}"; use hour or day`);
  const size = GRAIN_MS[query.grain];
  const first = floorTo(since, size);
  const count = until > first ? Math.ceil((until - first) / size) : 0;
  if (count > 10_000) throw new StoreError('invalid_argument', `${count} ${query.grain} buckets requested; at most 10000`);
  return { size, first, count };
}

/**
 * Counts per bucket of one grain for several groups, from the rollups: every sparkline of the
 * groups table in one read. Buckets are whole buckets from floor(since) up to until.
 */
export function* groupTrends(dialect: Dialect, query: GroupTrendsQuery): Query<{ buckets: number[]; trends: Map<string, number[]> }> {
  const { size, first, count } = trendWindow(query);
  const buckets = Array.from({ length: count }, (_, i) => first + i * size);
  const trends = new Map<string, number[]>();
  const fingerprints = [...new Set(query.fingerprints)];
  for (const fp of fingerprints) trends.set(fp, new Array<number>(count).fill(0));
  if (fingerprints.length === 0 || count === 0) return { buckets, trends };
  const { table, where } = yield* trendSource(dialect, query, first);
  const sql = `SELECT fingerprint, bucket, SUM(count) AS n FROM ${table}${where.where()} GROUP BY fingerprint, bucket`;
  for (const r of yield* all<{ fingerprint: string; bucket: number; n: number }>(sql, where.params)) {
    const series = trends.get(r.fingerprint);
    const index = Math.round((r.bucket - first) / size);
    if (series && index >= 0 && index < count) series[index] = (series[index] ?? 0) + Number(r.n);
  }
  return { buckets, trends };
}

/**
 * The rollup rows `groupTrends` reads, summed into `bins` equal bins of [since, until) by the
 * database: a 30-day window's sparklines are 720 hour buckets per group, and carrying each to
 * JavaScript cost more than reading it (docs/benches.md). A bucket that starts before `since`
 * (the first, floored) or whose middle lies past `until` counts in the first or last bin.
 * Integer arithmetic on both engines (the bound numbers are cast: better-sqlite3 binds every
 * number as a REAL), so the division truncates as `Math.floor` does on the non-negative values;
 * the few negative ones are clamped here.
 */
function* rollupBins(dialect: Dialect, query: GroupTrendsQuery & { bins: number }): Query<Map<string, number[]>> {
  const { size, first, count } = trendWindow(query);
  const out = new Map<string, number[]>();
  const fingerprints = [...new Set(query.fingerprints)];
  for (const fp of fingerprints) out.set(fp, new Array<number>(query.bins).fill(0));
  const since = Math.floor(query.since);
  const span = Math.ceil(query.until) - since;
  if (fingerprints.length === 0 || count === 0 || span <= 0) return out;
  const { table, where } = yield* trendSource(dialect, query, first);
  const bin = '(bucket + CAST(? AS BIGINT) - CAST(? AS BIGINT)) * CAST(? AS BIGINT) / CAST(? AS BIGINT)';
  const sql = `SELECT fingerprint, ${bin} AS bin, SUM(count) AS n FROM ${table}${where.where()} GROUP BY 1, 2`;
  const binParams = [size / 2, since, query.bins, span];
  for (const r of yield* all<{ fingerprint: string; bin: number; n: number }>(sql, [...binParams, ...where.params])) {
    const series = out.get(r.fingerprint);
    const at = Math.min(query.bins - 1, Math.max(0, Number(r.bin)));
    if (series) series[at] = (series[at] ?? 0) + Number(r.n);
  }
  return out;
}

export interface GroupBinsQuery {
  fingerprints: readonly string[];
  since: number;
  until: number;
  bins: number;
  flow?: string;
  /** Read the group rollups of this grain (a bucket counts in the bin its middle falls in); without, the errors. */
  grain?: GroupTrendGrain;
}

/**
 * Counts of several groups in `bins` equal bins of [since, until), in one query. With a `grain`,
 * from the group rollups (`rollupBins`); without, from the errors themselves (their
 * `(fingerprint, ts)` index): sparklines of a window shorter than the rollups' hour, where hour
 * buckets would put everything in one bin.
 */
export function* groupBins(dialect: Dialect, query: GroupBinsQuery): Query<Map<string, number[]>> {
  if (!Number.isInteger(query.bins) || query.bins < 1 || query.bins > 1_000) throw new StoreError('invalid_argument', 'bins must be an integer from 1 to 1000');
  if (query.grain !== undefined) {
    const { grain, ...rest } = query;
    return yield* rollupBins(dialect, { ...rest, grain });
  }
  const since = optionalTime('since', query.since) as number;
  const until = optionalTime('until', query.until) as number;
  const out = new Map<string, number[]>();
  const fingerprints = [...new Set(query.fingerprints)];
  for (const fp of fingerprints) out.set(fp, new Array<number>(query.bins).fill(0));
  if (fingerprints.length === 0 || until <= since) return out;
  const c = new Conditions()
    .add(`fingerprint IN (${fingerprints.map(() => '?').join(', ')})`, ...fingerprints)
    .add('ts >= ?', since)
    .add('ts < ?', until);
  const flow = optionalText('flow', query.flow);
  if (flow !== undefined) {
    const flows = yield* resolveFlows(dialect, flow);
    c.add(`flow IN (${flows.map(() => '?').join(', ')})`, ...flows);
  }
  const sql = `SELECT fingerprint, (ts - ?) * ? / ? AS bin, COUNT(*) AS n FROM errors${c.where()} GROUP BY 1, 2`;
  for (const r of yield* all<{ fingerprint: string; bin: number; n: number }>(sql, [since, query.bins, until - since, ...c.params])) {
    const series = out.get(r.fingerprint);
    const at = Math.min(query.bins - 1, Math.max(0, Math.floor(r.bin)));
    if (series) series[at] = (series[at] ?? 0) + r.n;
  }
  return out;
}
