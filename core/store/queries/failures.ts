import { FAILURE_ROLLUP_TABLE } from '../rollups/failure-rollups.js';
import { planWindow } from '../rollups/rollups.js';
import { StoreError } from '../store-error.js';
import { flowFiles } from './runs.js';
import { all, Dialect, get, type Query } from './plan.js';
import { clampLimit, Conditions, optionalText, optionalTime } from './sql.js';
import { scopedFailureCounts } from './issue-scoped.js';

/**
 * Failures (docs/semantics.md F4): one per run that ended `failed`, its ending error, counted in
 * the window by the run's end wall time. Whole buckets come from the failure rollups, the partial
 * minutes at the window's edges from the failed runs themselves (`runs_failed_ended`), as error
 * counts do: so `total` equals the runs that ended failed in the window, whatever its bounds.
 */

export const FAILURE_DIMENSIONS = ['code', 'rootCode', 'category', 'origin', 'flow'] as const;
type FailureDimension = (typeof FAILURE_DIMENSIONS)[number];

export interface FailureCountsQuery {
  by: FailureDimension;
  /** Window on the run's end wall time: since ≤ ended < until. */
  since?: number;
  until?: number;
  /** A flow file or a flow name. */
  flow?: string;
  category?: string;
  origin?: string;
  /** The ending error's code or its root cause's code. */
  code?: string;
  /** One run's failure (0 or 1). */
  runId?: string;
  /**
   * Only failures on these issues (an issue-status filter), counted at their ending error's time
   * from the issue failure rollups (issue-scoped.ts); by `rootCode` the ending code stands in.
   */
  fingerprints?: readonly string[];
  /** At most this many rows, largest counts first (default 100); `total` counts them all. */
  limit?: number;
}

interface FailureCountRow {
  key: string;
  count: number;
  /** For `flow`: the flow's latest name. */
  label: string | null;
  /** For `code`: the root cause's code of this row's failures. */
  rootCode?: string;
}

export interface FailureCounts {
  total: number;
  rows: FailureCountRow[];
}

/** The rollups' column for each dimension, and the runs' column meaning the same thing. */
const COLUMNS: Record<FailureDimension, { rollup: string; runs: string }> = {
  code: { rollup: 'code', runs: 'ending_code' },
  rootCode: { rollup: 'root_code', runs: 'COALESCE(ending_root_code, ending_code)' },
  category: { rollup: 'category', runs: "COALESCE(ending_category, '')" },
  origin: { rollup: 'origin', runs: "COALESCE(ending_origin, '')" },
  flow: { rollup: 'flow', runs: 'flow' },
};

function* filters(dialect: Dialect, query: FailureCountsQuery, source: 'rollup' | 'runs'): Query<Conditions> {
  const c = new Conditions();
  for (const dim of ['category', 'origin'] as const) {
    const value = optionalText(dim, query[dim]);
    if (value !== undefined) c.add(`${COLUMNS[dim][source]} = ?`, value);
  }
  const code = optionalText('code', query.code);
  if (code !== undefined) c.add(`(${COLUMNS.code[source]} = ? OR ${COLUMNS.rootCode[source]} = ?)`, code, code);
  const flow = optionalText('flow', query.flow);
  if (flow !== undefined) {
    const files = yield* flowFiles(dialect, flow);
    c.add(`flow IN (${files.map(() => '?').join(', ')})`, ...files);
  }
  return c;
}

export function* failureCounts(dialect: Dialect, query: FailureCountsQuery): Query<FailureCounts> {
  if (!(FAILURE_DIMENSIONS as readonly unknown[]).includes(query.by)) {
    throw new StoreError('invalid_argument', `unknown dimension "${String(query.by)}"; use ${FAILURE_DIMENSIONS.join(', ')}`);
  }
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const limit = clampLimit(query.limit, 100, 10_000);
  const runId = optionalText('runId', query.runId);
  if (query.fingerprints !== undefined && runId === undefined) return yield* scopedFailures(dialect, query, query.fingerprints, since, until, limit);
  const byCode = query.by === 'code';
  const rollupFilter = yield* filters(dialect, query, 'rollup');
  const runsFilter = yield* filters(dialect, query, 'runs');
  const { rollup: key, runs: runsKey } = COLUMNS[query.by];
  const root = byCode ? COLUMNS.rootCode : { rollup: "''", runs: "''" };
  const parts: string[] = [];
  const params: unknown[] = [];
  const fromRuns = (from: number | undefined, to: number | undefined, extra: Conditions, source = 'runs'): void => {
    const c = new Conditions().add("status = 'failed'").add('ending_code IS NOT NULL').add('ended_wall IS NOT NULL');
    if (from !== undefined) c.add('ended_wall >= ?', from);
    if (to !== undefined) c.add('ended_wall < ?', to);
    parts.push(`SELECT ${runsKey} AS k, ${root.runs} AS r, COUNT(*) AS n FROM ${source}${c.where()}${runsFilter.and()}${extra.and()} GROUP BY 1, 2`);
    params.push(...c.params, ...runsFilter.params, ...extra.params);
  };
  if (runId !== undefined) {
    fromRuns(since, until, new Conditions().add('id = ?', runId));
  } else {
    const plan = planWindow(since, until);
    for (const range of plan.ranges) {
      parts.push(
        `SELECT ${key} AS k, ${root.rollup} AS r, SUM(count) AS n FROM ${FAILURE_ROLLUP_TABLE[range.grain]}
         WHERE bucket >= ? AND bucket < ?${rollupFilter.and()} GROUP BY 1, 2`,
      );
      params.push(range.from, range.to, ...rollupFilter.params);
    }
    // A window's edges are under a minute of end times: SQLite, without statistics, would
    // rather walk every failed run through runs_status (tenths of a second at 1,000,000 runs,
    // even for an empty edge) than the partial index of failed runs by end time.
    const edgeSource = dialect === Dialect.sqlite ? 'runs INDEXED BY runs_failed_ended' : 'runs';
    for (const edge of plan.edges) fromRuns(edge.from, edge.to, new Conditions(), edgeSource);
  }
  // The subquery is named: PostgreSQL (before 16) requires it.
  const sql = `SELECT k, r, SUM(n) AS n FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY k, r HAVING SUM(n) > 0 ORDER BY n DESC, k, r`;
  const grouped = yield* all<{ k: string; r: string; n: number }>(sql, params);
  const total = grouped.reduce((sum, g) => sum + g.n, 0);
  const rows: FailureCountRow[] = [];
  for (const g of grouped.slice(0, limit)) {
    const label =
      query.by === 'flow'
        ? ((yield* get<{ flow_name: string }>('SELECT flow_name FROM runs WHERE flow = ? ORDER BY started_at DESC LIMIT 1', [g.k]))?.flow_name ?? null)
        : null;
    rows.push({ key: g.k, count: g.n, label, ...(byCode ? { rootCode: g.r } : {}) });
  }
  return { total, rows };
}

/** Failures on some issues, from the issue failure rollups. */
function* scopedFailures(
  dialect: Dialect,
  query: FailureCountsQuery,
  fingerprints: readonly string[],
  since: number | undefined,
  until: number | undefined,
  limit: number,
): Query<FailureCounts> {
  const filters = {
    fingerprints,
    ...(query.flow !== undefined ? { flow: query.flow } : {}),
    ...(query.category !== undefined ? { category: query.category } : {}),
    ...(query.origin !== undefined ? { origin: query.origin } : {}),
    ...(query.code !== undefined ? { code: query.code } : {}),
  };
  const grouped = yield* scopedFailureCounts(dialect, filters, query.by, since, until);
  const rows: FailureCountRow[] = [];
  for (const g of grouped.slice(0, limit)) {
    const label =
      query.by === 'flow'
        ? ((yield* get<{ flow_name: string }>('SELECT flow_name FROM runs WHERE flow = ? ORDER BY started_at DESC LIMIT 1', [g.k]))?.flow_name ?? null)
        : null;
    rows.push({ key: g.k, count: g.n, label, ...(query.by === 'code' ? { rootCode: g.k } : {}) });
  }
  return { total: grouped.reduce((sum, g) => sum + g.n, 0), rows };
}
