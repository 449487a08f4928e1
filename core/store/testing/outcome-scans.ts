import { HOUR } from '../rollups/rollups.js';
import { all, type Dialect, type Query } from '../queries/plan.js';
import { assembleSplit, costKeyFilters, splitGrain, type CostSplitAnswer, type CostSplitQuery, type SumRow } from '../outcomes/cost-split.js';
import { COST_SUMS } from '../outcomes/cost-keys.js';
import { durationBucketSql } from '../outcomes/durations.js';
import { endedSql } from '../outcomes/run-outcomes-sql.js';

/**
 * The rollup-free answers, for the conformance suites and the benches' baselines: what failure
 * costs and how flows fare, read with plain GROUP BYs over the attempts and the runs. Nothing
 * here reads a rollup or the runs' stored fate: a failed run is `runs.status`, its issue the
 * fingerprint of its ending error's occurrence (`errors.ending`), so the writers' bookkeeping
 * (moving a run's spend when it fails, or when a session comes back) is checked, not repeated.
 */

const FAILED_RUN = "r.status = 'failed' AND r.ending_code IS NOT NULL";
const keyed = (fromRun: string, own: string): string => `CASE WHEN ${FAILED_RUN} THEN ${fromRun} WHEN u.failed = 1 THEN COALESCE(u.${own}, '') ELSE '' END`;

const SCANNED = `SELECT u.wall - (u.wall % ${HOUR}) AS bucket, u.flow AS flow,
    CASE WHEN ${FAILED_RUN} THEN 'failed' WHEN u.failed = 1 THEN 'retried' ELSE 'succeeded' END AS outcome,
    ${keyed("COALESCE(r.ending_category, '')", 'err_category')} AS category,
    ${keyed("COALESCE(r.ending_origin, '')", 'err_origin')} AS origin,
    ${keyed('r.ending_code', 'err_code')} AS code,
    ${keyed('COALESCE(r.ending_root_code, r.ending_code)', 'err_code')} AS root_code,
    ${keyed("COALESCE(e.fingerprint, '')", 'err_fingerprint')} AS fingerprint,
    1 AS attempts, COALESCE(u.input_tokens, 0) AS input_tokens, COALESCE(u.output_tokens, 0) AS output_tokens,
    COALESCE(u.cache_read_tokens, 0) AS cache_read_tokens, COALESCE(u.cache_write_tokens, 0) AS cache_write_tokens,
    COALESCE(u.cost_usd, 0) AS cost_usd, CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END AS unknown_cost_attempts
  FROM attempt_usage AS u JOIN runs AS r ON r.id = u.run_id LEFT JOIN errors AS e ON e.run_id = r.id AND e.ending = 1
  WHERE u.counted = 1 AND u.wall >= ? AND u.wall < ?`;

/** What failure costs in the window, from every counted attempt in it (as `costSplit` answers). */
export function* costSplitByScan(dialect: Dialect, query: CostSplitQuery = {}): Query<CostSplitAnswer> {
  const filters = yield* costKeyFilters(dialect, query);
  const rows = yield* all<SumRow>(
    `SELECT bucket, flow, outcome, ${COST_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ')} FROM (${SCANNED}) AS scanned${filters.where()}
      GROUP BY bucket, flow, outcome`,
    [query.since ?? Number.MIN_SAFE_INTEGER, query.until ?? Number.MAX_SAFE_INTEGER, ...filters.params],
  );
  const grain = splitGrain(query.since, query.until, query.now);
  return assembleSplit(rows, grain, query.since, query.until ?? query.now);
}

export interface ScannedOutcome {
  flow: string;
  status: string;
  durationBucket: number;
  runs: number;
}

/** The runs that ended in the window per flow, status and duration bucket, from the runs themselves. */
export function* runOutcomesByScan(since: number | undefined, until: number | undefined): Query<ScannedOutcome[]> {
  const duration = durationBucketSql('r.duration_ms');
  const rows = yield* all<{ flow: string; status: string; duration_bucket: number | string; runs: number | string }>(
    `SELECT r.flow AS flow, r.status AS status, ${duration} AS duration_bucket, COUNT(*) AS runs FROM runs AS r
      WHERE ${endedSql('r')} AND r.ended_wall >= ? AND r.ended_wall < ?
      GROUP BY r.flow, r.status, ${duration} ORDER BY 1, 2, 3`,
    [since ?? Number.MIN_SAFE_INTEGER, until ?? Number.MAX_SAFE_INTEGER],
  );
  return rows.map((r) => ({ flow: r.flow, status: r.status, durationBucket: Number(r.duration_bucket), runs: Number(r.runs) }));
}
