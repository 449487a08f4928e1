import { GROUP_TREND_TABLE, planCoarseWindow } from '../rollups/rollups.js';
import { all, type Dialect, type Query } from '../queries/plan.js';

/**
 * Issue facts read from what commit keeps, never from every occurrence:
 *  - runs and failures from `error_group_stats`, flows from `error_group_flows` (migration 18,
 *    kept by triggers on `errors`);
 *  - occurrences in a window from the group trend rollups (whole days, whole hours) plus the
 *    errors of the two partial hours at its edges, through the `(fingerprint, ts)` index.
 * The work is bounded by the issues asked and the window's days and hours, not by the history:
 * at 1,000,000 errors the counts that took seconds take milliseconds. Both engines run the same
 * statements.
 */

const HOUR = 3_600_000;

/** `fingerprint IN (?, …)` for a non-empty list, or no condition (every issue) for null. */
function issueCondition(fingerprints: readonly string[] | null, column = 'fingerprint'): { sql: string; params: string[] } {
  if (fingerprints === null) return { sql: '', params: [] };
  return { sql: ` AND ${column} IN (${fingerprints.map(() => '?').join(', ')})`, params: [...fingerprints] };
}

/**
 * Occurrences per issue in [since, until) (either side open when undefined): exact, as
 * `COUNT(*) FROM errors` over the window would say. Issues with none are absent.
 */
export function* issueCountsInWindow(
  _dialect: Dialect,
  fingerprints: readonly string[] | null,
  since: number | undefined,
  until: number | undefined,
): Query<Map<string, number>> {
  const plan = planCoarseWindow(since, until);
  const only = issueCondition(fingerprints);
  const parts: string[] = [];
  const params: unknown[] = [];
  const fromTrends = (table: string, range: { from: number; to: number }): void => {
    parts.push(`SELECT fingerprint, SUM(count) AS n FROM ${table} WHERE bucket >= ? AND bucket < ?${only.sql} GROUP BY fingerprint`);
    params.push(range.from, range.to, ...only.params);
  };
  for (const range of plan.hours) fromTrends(GROUP_TREND_TABLE.hour, range);
  fromTrends(GROUP_TREND_TABLE.day, plan.days);
  for (const edge of plan.edges) {
    parts.push(`SELECT fingerprint, COUNT(*) AS n FROM errors WHERE ts >= ? AND ts < ?${only.sql} GROUP BY fingerprint`);
    params.push(edge.from, edge.to, ...only.params);
  }
  // The subquery is named: PostgreSQL (before 16) requires it.
  const rows = yield* all<{ fingerprint: string; n: number }>(
    `SELECT fingerprint, SUM(n) AS n FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY fingerprint HAVING SUM(n) > 0`,
    params,
  );
  return new Map(rows.map((r) => [r.fingerprint, Number(r.n)]));
}

export interface IssueFactsQuery {
  /** Only these issues; all groups when absent. */
  fingerprints?: readonly string[];
  /** Wall ms the last hour ends at. */
  now: number;
  /** Only the last hour (runs, failures and flows read as 0): what escalation needs first. */
  ratesOnly?: boolean;
}

export interface IssueFacts {
  fingerprint: string;
  /** Distinct runs with an occurrence. */
  runs: number;
  /** Runs that ended failed with this group as their ending error (docs/semantics.md F1). */
  failures: number;
  flows: number;
  /** Occurrences in [now − 1 h, now). */
  lastHour: number;
}

/** One row per issue (of those asked) that has an occurrence; a window's counts are 0 when it has none there. */
export function* issueFacts(dialect: Dialect, query: IssueFactsQuery): Query<IssueFacts[]> {
  const fingerprints = query.fingerprints === undefined ? null : [...new Set(query.fingerprints)];
  if (fingerprints !== null && fingerprints.length === 0) return [];
  const only = issueCondition(fingerprints, 's.fingerprint');
  const stats = yield* all<{ fingerprint: string; runs: number; failures: number; flows: number }>(
    `SELECT s.fingerprint, s.runs, s.failures, (SELECT COUNT(*) FROM error_group_flows AS f WHERE f.fingerprint = s.fingerprint) AS flows
      FROM error_group_stats AS s WHERE s.runs > 0${only.sql} ORDER BY s.fingerprint`,
    only.params,
  );
  const hourStart = query.now - HOUR;
  const lastHour = yield* issueCountsInWindow(dialect, fingerprints, hourStart, query.now);
  const rates = query.ratesOnly === true;
  return stats.map((s) => ({
    fingerprint: s.fingerprint,
    runs: rates ? 0 : Number(s.runs),
    failures: rates ? 0 : Number(s.failures),
    flows: rates ? 0 : Number(s.flows),
    lastHour: lastHour.get(s.fingerprint) ?? 0,
  }));
}
