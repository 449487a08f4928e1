import type { RunStatus } from '../../engine/events.js';
import {
  ATTEMPTS,
  CHECKPOINTS,
  RUNS,
  rowFromDb,
  STEPS,
  TASKS,
  type AttemptRow,
  type CheckpointRow,
  type RunRow,
  type StepRow,
  type TaskRow,
} from '../schema.js';
import { StoreError } from '../store-error.js';
import {
  clampLimit,
  Conditions,
  decodeCursor,
  encodeCursor,
  likeContains,
  optionalText,
  optionalTime,
  type StatementCache,
} from './sql.js';

export type RunSortKey = 'started' | 'ended' | 'duration' | 'errors' | 'attempts';
export type RunSort = RunSortKey | `-${RunSortKey}`;

export interface ListRunsQuery {
  status?: RunStatus | readonly RunStatus[];
  /** The flow file or the flow's name. */
  flow?: string;
  /** Substring (case-insensitive) of the run id, flow, flow name or last error message. */
  text?: string;
  /** Window on the start time: since ≤ startedAt < until. */
  since?: number;
  until?: number;
  /** Default `-started` (newest first). */
  sort?: RunSort;
  limit?: number;
  cursor?: string | null;
}

export interface RunPage {
  runs: RunRow[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface RunDetail {
  run: RunRow;
  steps: StepRow[];
  tasks: TaskRow[];
  /** Every attempt of every task, by (step, ordinal, attempt), each with its scheduled delay. */
  attempts: AttemptRow[];
  checkpoints: CheckpointRow[];
}

/** The filters every run list shares; null when they can match nothing (an empty status list). */
export function runFilters(query: Pick<ListRunsQuery, 'status' | 'flow' | 'text' | 'since' | 'until'>): Conditions | null {
  const c = new Conditions();
  if (query.status !== undefined) {
    const statuses: readonly string[] = typeof query.status === 'string' ? [query.status] : query.status;
    for (const s of statuses) if (!STATUSES.has(s)) throw new StoreError('invalid_argument', `unknown run status "${String(s)}"`);
    if (statuses.length === 0) return null;
    c.add(`status IN (${statuses.map(() => '?').join(', ')})`, ...statuses);
  }
  const flow = optionalText('flow', query.flow);
  if (flow !== undefined) c.add('(flow = ? OR flow_name = ?)', flow, flow);
  const text = optionalText('text', query.text);
  if (text !== undefined && text !== '') {
    const pattern = likeContains(text);
    c.add(
      "(id LIKE ? ESCAPE '\\' OR flow LIKE ? ESCAPE '\\' OR flow_name LIKE ? ESCAPE '\\' OR last_error_message LIKE ? ESCAPE '\\')",
      pattern, pattern, pattern, pattern,
    );
  }
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since !== undefined) c.add('started_at >= ?', since);
  if (until !== undefined) c.add('started_at < ?', until);
  return c;
}

/** Sort keys → non-null SQL expressions (a still-running run sorts as ending last / lasting -1 ms). */
const SORT_EXPRESSIONS: Record<RunSortKey, string> = {
  started: 'started_at',
  ended: 'COALESCE(ended_at, 9007199254740991)',
  duration: 'COALESCE(duration_ms, -1)',
  errors: 'error_count',
  attempts: 'attempt_count',
};

const STATUSES = new Set<string>(['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted']);

function parseSort(sort: RunSort | undefined): { key: RunSortKey; desc: boolean } {
  const text = sort ?? '-started';
  const desc = text.startsWith('-');
  const key = (desc ? text.slice(1) : text) as RunSortKey;
  if (!Object.prototype.hasOwnProperty.call(SORT_EXPRESSIONS, key)) {
    throw new StoreError('invalid_argument', `unknown sort "${String(sort)}"; use one of ${Object.keys(SORT_EXPRESSIONS).join(', ')} (prefix - for descending)`);
  }
  return { key, desc };
}

export function listRuns(cache: StatementCache, query: ListRunsQuery = {}): RunPage {
  const limit = clampLimit(query.limit);
  const { key, desc } = parseSort(query.sort);
  const expr = SORT_EXPRESSIONS[key];
  const tag = `${desc ? '-' : ''}${key}`;
  const c = runFilters(query);
  if (c === null) return { runs: [], nextCursor: null };
  if (query.cursor) {
    const [, value, id] = decodeCursor(query.cursor, 3, tag);
    if (typeof value !== 'number' || typeof id !== 'string') throw new StoreError('invalid_argument', 'invalid cursor');
    c.add(`(${expr}, id) ${desc ? '<' : '>'} (?, ?)`, value, id);
  }

  const dir = desc ? 'DESC' : 'ASC';
  const sql = `SELECT *, ${expr} AS sort_value FROM runs${c.where()} ORDER BY ${expr} ${dir}, id ${dir} LIMIT ?`;
  const records = cache.get(sql).all(...c.params, limit + 1) as Record<string, unknown>[];
  const more = records.length > limit;
  const page = more ? records.slice(0, limit) : records;
  const last = page[page.length - 1];
  return {
    runs: page.map((r) => rowFromDb<RunRow>(RUNS, r)),
    nextCursor: more && last ? encodeCursor([tag, last.sort_value, last.id]) : null,
  };
}

export function getRunRow(cache: StatementCache, runId: string): RunRow | null {
  const record = cache.get('SELECT * FROM runs WHERE id = ?').get(runId) as Record<string, unknown> | undefined;
  return record ? rowFromDb<RunRow>(RUNS, record) : null;
}

export function getRun(cache: StatementCache, runId: string): RunDetail | null {
  const run = getRunRow(cache, runId);
  if (!run) return null;
  const all = (sql: string): Record<string, unknown>[] => cache.get(sql).all(runId) as Record<string, unknown>[];
  return {
    run,
    steps: all('SELECT * FROM steps WHERE run_id = ? ORDER BY step').map((r) => rowFromDb<StepRow>(STEPS, r)),
    tasks: all('SELECT * FROM tasks WHERE run_id = ? ORDER BY step, ordinal').map((r) => rowFromDb<TaskRow>(TASKS, r)),
    attempts: all('SELECT * FROM attempts WHERE run_id = ? ORDER BY step, ordinal, attempt').map((r) =>
      rowFromDb<AttemptRow>(ATTEMPTS, r),
    ),
    checkpoints: all('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY step').map((r) =>
      rowFromDb<CheckpointRow>(CHECKPOINTS, r),
    ),
  };
}

/**
 * The state after each checkpoint of a run, from its rows in step order: a whole-state row
 * replaces, a delta row is laid over the state before it. Reads old (whole) and new (delta)
 * rows alike.
 */
export function checkpointStates(rows: readonly CheckpointRow[]): { step: number; channels: Record<string, unknown> }[] {
  let state: Record<string, unknown> = {};
  return [...rows]
    .sort((a, b) => a.step - b.step)
    .map((row) => {
      state = row.delta ? { ...state, ...row.channels } : { ...row.channels };
      return { step: row.step, channels: state };
    });
}
