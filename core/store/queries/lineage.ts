import type { RunStatus } from '../../base/events.js';
import { all, get, type Dialect, type Query } from './plan.js';

/**
 * A run's relatives: the runs started as its retries or resumed from it (the
 * other direction of `retryOf` / `resumedFrom`, each read through its partial index), and the run
 * of the same flow started just before it, which the run header offers to compare with.
 */

export interface LineageRun {
  id: string;
  status: RunStatus;
  startedAt: number;
  startedWall: number;
}

export interface RunLineage {
  retries: LineageRun[];
  resumes: LineageRun[];
  /** The same flow's run started last before this one (ties broken by id), or null. */
  previous: LineageRun | null;
}

/** More than this many retries of one run is not a list anyone reads; the newest are kept. */
const LINEAGE_LIMIT = 50;

// snake_case names: PostgreSQL folds an unquoted alias like startedAt to lower case.
const COLUMNS = 'id, status, started_at, started_wall';
type LineageRecord = { id: string; status: RunStatus; started_at: number; started_wall: number };
const lineageRun = (r: LineageRecord): LineageRun => ({ id: r.id, status: r.status, startedAt: r.started_at, startedWall: r.started_wall });
export const RETRIES_SQL = `SELECT ${COLUMNS} FROM runs WHERE retry_of = ? ORDER BY started_at DESC, id DESC LIMIT ${LINEAGE_LIMIT}`;
export const RESUMES_SQL = `SELECT ${COLUMNS} FROM runs WHERE resumed_from = ? ORDER BY started_at DESC, id DESC LIMIT ${LINEAGE_LIMIT}`;
export const PREVIOUS_SQL = `SELECT ${COLUMNS} FROM runs WHERE flow = ? AND (started_at < ? OR (started_at = ? AND id < ?))
  ORDER BY started_at DESC, id DESC LIMIT 1`;

export function* runLineage(_dialect: Dialect, runId: string): Query<RunLineage | null> {
  const self = yield* get<{ flow: string; started_at: number }>('SELECT flow, started_at FROM runs WHERE id = ?', [runId]);
  if (!self) return null;
  const newestFirst = (rows: LineageRecord[]): LineageRun[] => rows.map(lineageRun).reverse();
  const retries = yield* all<LineageRecord>(RETRIES_SQL, [runId]);
  const resumes = yield* all<LineageRecord>(RESUMES_SQL, [runId]);
  const record = yield* get<LineageRecord>(PREVIOUS_SQL, [self.flow, self.started_at, self.started_at, runId]);
  const previous = record ? lineageRun(record) : undefined;
  // Oldest first reads as a history: the first retry, then the next.
  return { retries: newestFirst(retries), resumes: newestFirst(resumes), previous: previous ?? null };
}
