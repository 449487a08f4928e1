import type { RunStatus } from '../../base/events.js';
import { WAITING_APPROVAL } from '../../base/approval-wait.js';
import { WAITING_LIMIT, type RunListStatus } from '../../base/run-list-status.js';
import type { Conditions } from './sql.js';
import { all, Dialect, get, type Query } from './plan.js';

/**
 * The run list's derived states (core/base/run-list-status.ts): `waiting-limit`, runs whose
 * `waiting_until` is set (partial index of migration 17), and `waiting-approval`, runs whose
 * `approval_since` is set (partial index of migration 25). Listed beside real statuses a state
 * widens the filter (`status=failed,waiting-limit` is either), as statuses do.
 */

export interface DerivedState {
  name: Exclude<RunListStatus, RunStatus>;
  sql: string;
  index: string;
}

export const DERIVED_STATES: readonly DerivedState[] = [
  { name: WAITING_LIMIT, sql: 'waiting_until IS NOT NULL', index: 'runs_waiting_until' },
  { name: WAITING_APPROVAL, sql: 'approval_since IS NOT NULL', index: 'runs_approval_since' },
];

/**
 * The runs table as a state's count reads it: on SQLite through the state's partial index, which
 * holds only the runs in it (its planner otherwise takes a start-time window's index and reads
 * every run of the window); PostgreSQL's planner weighs the partial index by its statistics.
 */
const stateRuns = (dialect: Dialect, state: DerivedState): string => (dialect === Dialect.sqlite ? `runs INDEXED BY ${state.index}` : 'runs');

/** The real statuses of a filter, and the derived states it names. */
export function splitDerived(statuses: readonly string[]): { statuses: RunStatus[]; derived: DerivedState[] } {
  const derived = DERIVED_STATES.filter((d) => statuses.includes(d.name));
  return { statuses: statuses.filter((s) => !derived.some((d) => d.name === s)) as RunStatus[], derived };
}

/** A status filter that names derived states, as one condition (`status IN (…)` widened by ORs). */
export function addStatusesWithDerived(c: Conditions, statuses: readonly RunStatus[], derived: readonly DerivedState[]): void {
  const states = derived.map((d) => d.sql);
  if (statuses.length === 0) {
    c.add(states.length === 1 ? (states[0] as string) : `(${states.join(' OR ')})`);
    return;
  }
  c.add(`(status IN (${statuses.map(() => '?').join(', ')}) OR ${states.join(' OR ')})`, ...statuses);
}

/** How many runs under `base` (every filter but the status one) are in `state`. */
export function* countDerived(base: Conditions, state: DerivedState, dialect: Dialect): Query<number> {
  const where = base.where();
  const row = yield* get<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${stateRuns(dialect, state)}${where === '' ? ' WHERE ' : `${where} AND `}${state.sql}`,
    base.params,
  );
  return Number(row?.n ?? 0);
}

export function isRunListStatus(value: string, known: ReadonlySet<string>): value is RunListStatus {
  return DERIVED_STATES.some((d) => d.name === value) || known.has(value);
}

/**
 * Per flow, the runs under `base` in any of `derived` while in none of `listed`: what the derived
 * states in the status filter add to the counts of the listed statuses.
 */
export function* derivedOutside(
  base: Conditions,
  listed: readonly RunStatus[],
  derived: readonly DerivedState[],
  dialect: Dialect,
): Query<{ flow: string; n: number }[]> {
  if (derived.length === 0) return [];
  const where = base.where();
  const outside = listed.length === 0 ? '' : ` AND status NOT IN (${listed.map(() => '?').join(', ')})`;
  const from = derived.length === 1 ? stateRuns(dialect, derived[0] as DerivedState) : 'runs';
  const sql = `SELECT flow, COUNT(*) AS n FROM ${from}${where === '' ? ' WHERE ' : `${where} AND `}(${derived.map((d) => d.sql).join(' OR ')})${outside} GROUP BY flow`;
  const rows = yield* all<{ flow: string; n: number | string }>(sql, [...base.params, ...listed]);
  return rows.map((r) => ({ flow: r.flow, n: Number(r.n) }));
}
