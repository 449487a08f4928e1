import { ISSUE_FAILURE_TABLE } from '../migrations/v20-v29/v22-issue-failure-rollups.js';
import { all, type Dialect, type Query } from '../queries/plan.js';
import { flowFiles } from '../queries/runs.js';
import { GROUP_COUNT_TABLE, GROUP_FLOW_COUNT_TABLE, planCoarseWindow, type GroupTrendGrain } from '../rollups/rollups.js';

/**
 * Each issue's events and failures in a window, from rollups: the group count tables of
 * migration 20 for the events, the failure tables of migration 22 for the failures (one per run
 * that ended failed on this issue, at the time of its ending error), whole days and hours of
 * them, and the errors of the two partial hours at the window's edges through the errors'
 * indexes. Bounded by the issues asked and the window's days and hours, not by the history: what
 * the issues table's period counts, its trend sort and the issue page read. Exact: the same
 * numbers as `COUNT(*) … GROUP BY fingerprint` over the window's errors (a conformance test
 * compares them on both engines).
 */

export interface IssueWindowQuery {
  /** Only these issues (an empty list: none); every issue when null. */
  fingerprints: readonly string[] | null;
  /** [since, until): either side open when undefined. */
  since: number | undefined;
  until: number | undefined;
  /** Only occurrences in this flow: its file, or a name (the files of the runs so named), as every error filter reads it. */
  flow?: string;
  /** Only this run's occurrences (read from its errors: a run has few). */
  runId?: string;
}

export interface IssueWindowCount {
  events: number;
  failures: number;
}

/** `AND column IN (?, …)`, or nothing for null. */
function inList(column: string, values: readonly string[] | null | undefined): { sql: string; params: string[] } {
  if (values === null || values === undefined) return { sql: '', params: [] };
  return { sql: ` AND ${column} IN (${values.map(() => '?').join(', ')})`, params: [...values] };
}

/** Fingerprints per `IN (…)` list: well under either engine's limit on parameters. */
const IN_LIST = 500;

/** One read per slice of at most IN_LIST fingerprints (every issue in one read when null). */
function slices(fingerprints: readonly string[] | null): (readonly string[] | null)[] {
  if (fingerprints === null) return [null];
  const wanted = [...new Set(fingerprints)];
  const out: string[][] = [];
  for (let i = 0; i < wanted.length; i += IN_LIST) out.push(wanted.slice(i, i + IN_LIST));
  return out;
}

export function* issueWindowCounts(dialect: Dialect, query: IssueWindowQuery): Query<Map<string, IssueWindowCount>> {
  const out = new Map<string, IssueWindowCount>();
  const flows = query.flow === undefined ? undefined : yield* flowFiles(dialect, query.flow);
  for (const part of slices(query.fingerprints)) {
    if (part !== null && part.length === 0) continue;
    const rows =
      query.runId !== undefined ? yield* runWindowCounts(dialect, query, part, query.runId, flows) : yield* rollupWindowCounts(dialect, query, part, flows);
    for (const r of rows) out.set(r.fingerprint, { events: Number(r.e), failures: Number(r.f) });
  }
  return out;
}

type CountRow = { fingerprint: string; e: number; f: number };

function* rollupWindowCounts(
  _dialect: Dialect,
  query: IssueWindowQuery,
  fingerprints: readonly string[] | null,
  files: readonly string[] | undefined,
): Query<CountRow[]> {
  const plan = planCoarseWindow(query.since, query.until);
  const only = inList('fingerprint', fingerprints);
  const flows = inList('flow', files);
  const eventTable = (grain: GroupTrendGrain): string => (files === undefined ? GROUP_COUNT_TABLE : GROUP_FLOW_COUNT_TABLE)[grain];
  const parts: string[] = [];
  const params: unknown[] = [];
  const rollup = (grain: GroupTrendGrain, range: { from: number; to: number }): void => {
    parts.push(
      `SELECT fingerprint, SUM(count) AS e, 0 AS f FROM ${eventTable(grain)} WHERE bucket >= ? AND bucket < ?${only.sql}${flows.sql} GROUP BY fingerprint`,
    );
    params.push(range.from, range.to, ...only.params, ...flows.params);
    parts.push(
      `SELECT fingerprint, 0 AS e, SUM(count) AS f FROM ${ISSUE_FAILURE_TABLE[grain]} WHERE bucket >= ? AND bucket < ?${only.sql}${flows.sql} GROUP BY fingerprint`,
    );
    params.push(range.from, range.to, ...only.params, ...flows.params);
  };
  for (const range of plan.hours) rollup('hour', range);
  rollup('day', plan.days);
  for (const edge of plan.edges) {
    parts.push(`SELECT fingerprint, COUNT(*) AS e, SUM(CASE WHEN ending = 1 THEN 1 ELSE 0 END) AS f FROM errors
      WHERE ts >= ? AND ts < ?${only.sql}${flows.sql} GROUP BY fingerprint`);
    params.push(edge.from, edge.to, ...only.params, ...flows.params);
  }
  // The subquery is named: PostgreSQL (before 16) requires it.
  return yield* all<CountRow>(
    `SELECT fingerprint, SUM(e) AS e, SUM(f) AS f FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY fingerprint HAVING SUM(e) > 0 OR SUM(f) > 0`,
    params,
  );
}

function* runWindowCounts(
  _dialect: Dialect,
  query: IssueWindowQuery,
  fingerprints: readonly string[] | null,
  runId: string,
  files: readonly string[] | undefined,
): Query<CountRow[]> {
  const only = inList('fingerprint', fingerprints);
  const flows = inList('flow', files);
  const params: unknown[] = [runId];
  let window = '';
  if (query.since !== undefined) {
    window += ' AND ts >= ?';
    params.push(query.since);
  }
  if (query.until !== undefined) {
    window += ' AND ts < ?';
    params.push(query.until);
  }
  return yield* all<CountRow>(
    `SELECT fingerprint, COUNT(*) AS e, SUM(CASE WHEN ending = 1 THEN 1 ELSE 0 END) AS f FROM errors
      WHERE run_id = ?${window}${only.sql}${flows.sql} GROUP BY fingerprint`,
    [...params, ...only.params, ...flows.params],
  );
}

/**
 * A failure table equals counting the ending occurrences by bucket, fingerprint and flow, and
 * holds no row of 0: the store's aggregate check (replay.ts `verifyAggregates`) runs it.
 */
export function* verifyIssueFailures(_dialect: Dialect, grain: GroupTrendGrain, size: number, diffs: string[]): Query<void> {
  const table = ISSUE_FAILURE_TABLE[grain];
  const direct = `SELECT fingerprint, ts - (((ts % ${size}) + ${size}) % ${size}) AS bucket, flow, COUNT(*) AS n FROM errors WHERE ending = 1 GROUP BY 1, 2, 3`;
  const sql = `SELECT fingerprint, bucket, flow, SUM(stored) AS stored, SUM(counted) AS counted, MIN(nonzero) AS nonzero FROM (
      SELECT fingerprint, bucket, flow, count AS stored, 0 AS counted, CASE WHEN count = 0 THEN 0 ELSE 1 END AS nonzero FROM ${table}
      UNION ALL SELECT fingerprint, bucket, flow, 0, n, 1 FROM (${direct}) AS d
    ) AS x GROUP BY fingerprint, bucket, flow HAVING SUM(stored) <> SUM(counted) OR MIN(nonzero) = 0 ORDER BY 1, 2, 3 LIMIT 100`;
  type Row = { fingerprint: string; bucket: number; flow: string; stored: number; counted: number };
  for (const r of yield* all<Row>(sql)) {
    diffs.push(
      `${table}[${new Date(Number(r.bucket)).toISOString()} ${r.fingerprint}/${r.flow}].count: stored ${Number(r.stored)}, ending errors ${Number(r.counted)}`,
    );
  }
}
