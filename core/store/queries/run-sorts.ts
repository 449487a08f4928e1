import type { RunStatus } from '../../engine/events.js';
import { RUNS, rowFromDb, type RunRow } from '../schema.js';
import { StoreError } from '../store-error.js';
import { clampLimit, decodeCursor, encodeCursor, type StatementCache } from './sql.js';
import { runFilters, type RunPage } from './runs.js';

/**
 * The run list ordered by a column an operator sorts a table by, besides the time sorts of
 * `listRuns` (runs.ts): `status` (active runs first, then failed, interrupted, cancelled,
 * completed) and `flow` (by name). Ties go newest first. Same filters and keyset cursors as
 * `listRuns`. Added by the service (issue 4); it could fold into runs.ts's sort table.
 */

export type ColumnSort = 'status' | 'flow';

export interface ColumnSortQuery {
  status?: readonly RunStatus[];
  flow?: string;
  text?: string;
  since?: number;
  until?: number;
  sort: ColumnSort;
  limit?: number;
  cursor?: string | null;
}

const STATUS_RANK =
  "CASE status WHEN 'running' THEN 0 WHEN 'cancelling' THEN 1 WHEN 'queued' THEN 2 WHEN 'failed' THEN 3 " +
  "WHEN 'interrupted' THEN 4 WHEN 'cancelled' THEN 5 ELSE 6 END";

const EXPRESSIONS: Record<ColumnSort, string> = { status: STATUS_RANK, flow: 'flow_name' };

export function listRunsByColumn(cache: StatementCache, query: ColumnSortQuery): RunPage {
  const expr = EXPRESSIONS[query.sort];
  if (expr === undefined) throw new StoreError('invalid_argument', `unknown sort "${String(query.sort)}"`);
  const limit = clampLimit(query.limit);
  const c = runFilters(query);
  if (c === null) return { runs: [], nextCursor: null };
  if (query.cursor) {
    const [, key, startedAt, id] = decodeCursor(query.cursor, 4, query.sort);
    if ((typeof key !== 'number' && typeof key !== 'string') || typeof startedAt !== 'number' || typeof id !== 'string') {
      throw new StoreError('invalid_argument', 'invalid cursor');
    }
    c.add(`(${expr} > ? OR (${expr} = ? AND (started_at, id) < (?, ?)))`, key, key, startedAt, id);
  }
  const sql = `SELECT *, ${expr} AS sort_value FROM runs${c.where()} ORDER BY ${expr} ASC, started_at DESC, id DESC LIMIT ?`;
  const records = cache.get(sql).all(...c.params, limit + 1) as Record<string, unknown>[];
  const more = records.length > limit;
  const page = more ? records.slice(0, limit) : records;
  const last = page[page.length - 1];
  return {
    runs: page.map((r) => rowFromDb<RunRow>(RUNS, r)),
    nextCursor: more && last ? encodeCursor([query.sort, last.sort_value, last.started_at, last.id]) : null,
  };
}
