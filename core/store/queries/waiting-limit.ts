import type { RunStatus } from '../../base/events.js';
import { WAITING_LIMIT, type RunListStatus } from '../../base/run-list-status.js';
import type { Conditions } from './sql.js';
import { all, Dialect, get, type Query } from './plan.js';

/**
 * The run list's `waiting-limit` filter (core/base/run-list-status.ts): runs whose
 * `waiting_until` is set, read through the partial index of migration 17. Listed beside real
 * statuses it widens the filter (`status=failed,waiting-limit` is either), as statuses do.
 */

const WAITING_LIMIT_SQL = 'waiting_until IS NOT NULL';

/**
 * The runs table as the waiting counts read it: on SQLite through the partial index, which holds
 * only the waiting runs (its planner otherwise takes a start-time window's index and reads every
 * run of the window); PostgreSQL's planner weighs the partial index by its statistics.
 */
const waitingRuns = (dialect: Dialect): string => (dialect === Dialect.sqlite ? 'runs INDEXED BY runs_waiting_until' : 'runs');

/** The real statuses of a filter, and whether it names `waiting-limit`. */
export function splitWaitingLimit(statuses: readonly string[]): { statuses: RunStatus[]; waitingLimit: boolean } {
  return { statuses: statuses.filter((s) => s !== WAITING_LIMIT) as RunStatus[], waitingLimit: statuses.includes(WAITING_LIMIT) };
}

/** A status filter that names `waiting-limit`, as one condition (`status IN (…)` widened by an OR). */
export function addStatusesWithWaitingLimit(c: Conditions, statuses: readonly RunStatus[]): void {
  if (statuses.length === 0) {
    c.add(WAITING_LIMIT_SQL);
    return;
  }
  c.add(`(status IN (${statuses.map(() => '?').join(', ')}) OR ${WAITING_LIMIT_SQL})`, ...statuses);
}

/** How many runs under `base` (every filter but the status one) wait for a usage-limit reset. */
export function* countWaitingLimit(base: Conditions, dialect: Dialect): Query<number> {
  const where = base.where();
  const row = yield* get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${waitingRuns(dialect)}${where === '' ? ' WHERE ' : `${where} AND `}${WAITING_LIMIT_SQL}`, base.params);
  return Number(row?.n ?? 0);
}

export function isRunListStatus(value: string, known: ReadonlySet<string>): value is RunListStatus {
  return value === WAITING_LIMIT || known.has(value);
}

/**
 * Per flow, the runs under `base` that wait for a usage-limit reset while in none of `listed`:
 * what a `waiting-limit` in the status filter adds to the counts of the listed statuses.
 */
export function* waitingOutside(base: Conditions, listed: readonly RunStatus[], dialect: Dialect): Query<{ flow: string; n: number }[]> {
  const where = base.where();
  const outside = listed.length === 0 ? '' : ` AND status NOT IN (${listed.map(() => '?').join(', ')})`;
  const sql = `SELECT flow, COUNT(*) AS n FROM ${waitingRuns(dialect)}${where === '' ? ' WHERE ' : `${where} AND `}${WAITING_LIMIT_SQL}${outside} GROUP BY flow`;
  const rows = yield* all<{ flow: string; n: number | string }>(sql, [...base.params, ...listed]);
  return rows.map((r) => ({ flow: r.flow, n: Number(r.n) }));
}
