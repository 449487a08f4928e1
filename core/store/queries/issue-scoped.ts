import { ISSUE_FAILURE_TABLE } from '../migrations/v20-v29/v22-issue-failure-rollups.js';
import {
  floorTo,
  GRAIN_MS,
  GROUP_COUNT_TABLE,
  GROUP_FLOW_COUNT_TABLE,
  GROUP_TREND_TABLE,
  planCoarseWindow,
  type Grain,
  type GroupTrendGrain,
  type RollupDimension,
} from '../rollups/rollups.js';
import { all, type Dialect, type Query } from './plan.js';
import { flowFiles } from './runs.js';
import { Conditions, optionalText } from './sql.js';
import type { ErrorDisposition } from '../projection/schema.js';

/**
 * The error views narrowed to some issues (the Errors screen's issue-status filter: "Resolved"
 * counts, charts and lists only the occurrences of resolved issues). The error rollups have no
 * fingerprint, so these read the group rollups instead: an issue's fingerprint fixes its
 * category, origin and code (`error_groups` holds them), the group count tables (migration 20)
 * give counts per issue and bucket, per flow, or per disposition (the trend tables), and the
 * failure tables (migration 22) the failures. Whole days and hours from those, the partial hours
 * at the window's edges from the errors. A minute series reads the errors of its window.
 */

export interface ScopedFilters {
  fingerprints: readonly string[];
  flow?: string;
  category?: string;
  origin?: string;
  code?: string;
  disposition?: ErrorDisposition;
}

type Needs = { flow: boolean; disposition: boolean };

/** The group table a read needs: per disposition (trend), per flow, or per issue alone. */
function eventTable(grain: GroupTrendGrain, needs: Needs): string {
  if (needs.disposition) return GROUP_TREND_TABLE[grain];
  return (needs.flow ? GROUP_FLOW_COUNT_TABLE : GROUP_COUNT_TABLE)[grain];
}

interface Scope {
  /** Conditions on the rollup rows and the errors alike (fingerprint, flow, disposition). */
  rows: Conditions;
  /** Conditions on the issue (`g.` of error_groups): category, origin, code. */
  groups: Conditions;
}

function* scopeOf(dialect: Dialect, filters: ScopedFilters): Query<Scope> {
  const rows = new Conditions();
  rows.add(`fingerprint IN (${filters.fingerprints.map(() => '?').join(', ')})`, ...filters.fingerprints);
  const flow = optionalText('flow', filters.flow);
  if (flow !== undefined) {
    const files = yield* flowFiles(dialect, flow);
    rows.add(`flow IN (${files.map(() => '?').join(', ')})`, ...files);
  }
  if (filters.disposition !== undefined) rows.add('disposition = ?', filters.disposition);
  const groups = new Conditions();
  for (const dim of ['category', 'origin', 'code'] as const) {
    const value = optionalText(dim, filters[dim]);
    if (value !== undefined) groups.add(`g.${dim} = ?`, value);
  }
  return { rows, groups };
}

/**
 * `SELECT fingerprint[, extra], n` of the window as one UNION ALL: the group rollups' whole hours
 * and days, the errors' partial hours. `extra` is a column both have (flow, disposition, or a
 * bucket expression over `bucket` / `ts`).
 */
function windowed(
  scope: Scope,
  since: number | undefined,
  until: number | undefined,
  needs: Needs,
  extra: { rollup: string; raw: string } | null,
  failures = false,
): { sql: string; params: unknown[] } {
  const plan = planCoarseWindow(since, until);
  const parts: string[] = [];
  const params: unknown[] = [];
  const cols = (expr: string): string => (extra === null ? 'fingerprint' : `fingerprint, ${expr} AS x`);
  const groupBy = extra === null ? '1' : '1, 2';
  const rollup = (grain: GroupTrendGrain, range: { from: number; to: number }): void => {
    const table = failures ? ISSUE_FAILURE_TABLE[grain] : eventTable(grain, needs);
    parts.push(`SELECT ${cols(extra?.rollup ?? '')}, SUM(count) AS n FROM ${table} WHERE bucket >= ? AND bucket < ?${scope.rows.and()} GROUP BY ${groupBy}`);
    params.push(range.from, range.to, ...scope.rows.params);
  };
  for (const range of plan.hours) rollup('hour', range);
  rollup('day', plan.days);
  for (const edge of plan.edges) {
    parts.push(
      `SELECT ${cols(extra?.raw ?? '')}, COUNT(*) AS n FROM errors WHERE ts >= ? AND ts < ?${failures ? ' AND ending = 1' : ''}${scope.rows.and()} GROUP BY ${groupBy}`,
    );
    params.push(edge.from, edge.to, ...scope.rows.params);
  }
  return { sql: parts.join(' UNION ALL '), params };
}

/** Occurrences of the issues by category, origin, code, flow or disposition (`handled`), largest first. */
export function* scopedErrorCounts(
  dialect: Dialect,
  filters: ScopedFilters,
  dim: RollupDimension | 'handled',
  since: number | undefined,
  until: number | undefined,
  limit: number,
): Query<{ k: string; n: number }[]> {
  if (filters.fingerprints.length === 0) return [];
  const scope = yield* scopeOf(dialect, filters);
  const needs = { flow: dim === 'flow' || filters.flow !== undefined, disposition: dim === 'handled' || filters.disposition !== undefined };
  const extra = dim === 'flow' ? { rollup: 'flow', raw: 'flow' } : dim === 'handled' ? { rollup: 'disposition', raw: 'disposition' } : null;
  const key = extra === null ? `g.${dim}` : 'w.x';
  const w = windowed(scope, since, until, needs, extra);
  const rows = yield* all<{ k: string; n: number }>(
    `SELECT ${key} AS k, SUM(w.n) AS n FROM (${w.sql}) AS w JOIN error_groups AS g ON g.fingerprint = w.fingerprint${scope.groups.where()}
      GROUP BY ${key} HAVING SUM(w.n) > 0 ORDER BY n DESC, k LIMIT ?`,
    [...w.params, ...scope.groups.params, limit],
  );
  return rows.map((r) => ({ k: r.k, n: Number(r.n) }));
}

/** Occurrences of the issues per bucket of one grain, stacked by a dimension. */
export function* scopedErrorSeries(
  dialect: Dialect,
  filters: ScopedFilters,
  grain: Grain,
  stackBy: RollupDimension,
  first: number,
  until: number,
): Query<{ bucket: number; k: string; n: number }[]> {
  if (filters.fingerprints.length === 0) return [];
  const scope = yield* scopeOf(dialect, filters);
  const size = GRAIN_MS[grain];
  const flowKey = stackBy === 'flow';
  const key = flowKey ? 'w.flow' : `g.${stackBy}`;
  const flowCol = flowKey ? ', flow' : '';
  let inner: { sql: string; params: unknown[] };
  if (grain === 'minute') {
    // The group rollups are no finer than an hour: a minute series reads its window's errors.
    inner = {
      sql: `SELECT fingerprint${flowCol}, ts - (((ts % ${size}) + ${size}) % ${size}) AS bucket, COUNT(*) AS n FROM errors
        WHERE ts >= ? AND ts < ?${scope.rows.and()} GROUP BY 1${flowKey ? ', 2, 3' : ', 2'}`,
      params: [first, until, ...scope.rows.params],
    };
  } else {
    const needs = { flow: flowKey || filters.flow !== undefined, disposition: filters.disposition !== undefined };
    inner = {
      sql: `SELECT fingerprint${flowCol}, bucket, SUM(count) AS n FROM ${eventTable(grain, needs)}
        WHERE bucket >= ? AND bucket < ?${scope.rows.and()} GROUP BY 1${flowKey ? ', 2, 3' : ', 2'}`,
      params: [floorTo(first, size), until, ...scope.rows.params],
    };
  }
  const rows = yield* all<{ bucket: number; k: string; n: number }>(
    `SELECT w.bucket AS bucket, ${key} AS k, SUM(w.n) AS n FROM (${inner.sql}) AS w JOIN error_groups AS g ON g.fingerprint = w.fingerprint${scope.groups.where()}
      GROUP BY w.bucket, ${key}`,
    [...inner.params, ...scope.groups.params],
  );
  return rows.map((r) => ({ bucket: Number(r.bucket), k: r.k, n: Number(r.n) }));
}

/**
 * Failures of the issues (runs that ended failed on one of them, at their ending error's time)
 * by code, category, origin or flow. The root cause's code is not kept per issue: by `rootCode`
 * these read the ending error's code.
 */
export function* scopedFailureCounts(
  dialect: Dialect,
  filters: ScopedFilters,
  dim: 'code' | 'rootCode' | 'category' | 'origin' | 'flow',
  since: number | undefined,
  until: number | undefined,
): Query<{ k: string; n: number }[]> {
  if (filters.fingerprints.length === 0) return [];
  // The failure tables are not kept per disposition (every failure is an unhandled ending).
  const { disposition: _all, ...withoutDisposition } = filters;
  const scope = yield* scopeOf(dialect, withoutDisposition);
  const flowKey = dim === 'flow';
  const w = windowed(scope, since, until, { flow: true, disposition: false }, flowKey ? { rollup: 'flow', raw: 'flow' } : null, true);
  const key = flowKey ? 'w.x' : `g.${dim === 'rootCode' ? 'code' : dim}`;
  const rows = yield* all<{ k: string; n: number }>(
    `SELECT ${key} AS k, SUM(w.n) AS n FROM (${w.sql}) AS w JOIN error_groups AS g ON g.fingerprint = w.fingerprint${scope.groups.where()}
      GROUP BY ${key} HAVING SUM(w.n) > 0 ORDER BY n DESC, k`,
    [...w.params, ...scope.groups.params],
  );
  return rows.map((r) => ({ k: r.k, n: Number(r.n) }));
}
