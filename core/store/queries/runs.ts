import type { RunStatus } from '../../base/events.js';
import { type AttemptRow, type CheckpointRow, type RunRow, type StepRow, type TaskRow } from '../projection/schema.js';
import { rowFromDb } from '../projection/row-codec.js';
import { ATTEMPTS, CHECKPOINTS, RUNS, STEPS, TASKS } from '../projection/table-specs.js';
import { STATUS_RANK_SQL, TEXT_INDEX_MIN_CHARS } from '../schema-constants.js';
import { StoreError } from '../store-error.js';
import { clampLimit, Conditions, decodeCursor, encodeCursor, likeContains, optionalText, optionalTime } from './sql.js';
import { all, Dialect, get, type Query } from './plan.js';
import { hinted, likeOperator } from './dialect-sql.js';
import type { RunListStatus } from '../../base/run-list-status.js';
import { addStatusesWithDerived, isRunListStatus, splitDerived } from './waiting-limit.js';
import { addErrorFilters, type RunErrorFilters } from './run-error-filters.js';
import { RUN_SORT_KEYS, RUN_SORT_TIES, type RunSortKey } from '../../common/run-filter.js';

export type RunSort = RunSortKey | `-${RunSortKey}`;

/** What every run list and count filters by (the error filters: run-error-filters.ts). */
export interface RunFilters extends RunErrorFilters {
  /** Run statuses, and the derived `waiting-limit` and `waiting-approval` (core/base/run-list-status.ts). */
  status?: RunListStatus | readonly RunListStatus[];
  /** The flow file or the flow's name. */
  flow?: string;
  /** Substring (case-insensitive) of the run id, flow, flow name or last error message (codes have `code`). */
  text?: string;
  /** Window on the start time: since ≤ startedAt < until. */
  since?: number;
  until?: number;
}

export interface ListRunsQuery extends RunFilters {
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

export interface RunCounts {
  /** Runs matching every filter. */
  total: number;
  /** Per status, under every filter but the status one (what status chips show); `waiting-limit` counts runs also counted in their status. */
  byStatus: Partial<Record<RunListStatus, number>>;
  /** Per flow file, under every filter but the flow one, largest first (the flow picker). */
  byFlow: { flow: string; flowName: string; count: number }[];
  /**
   * Set when counting stopped at the cap (queries/run-counts.ts): more runs match than were
   * counted, and `total`, `byStatus` and `byFlow` are lower bounds.
   */
  atLeast?: true;
  /** With `atLeast`: `total` was counted again under every filter and is exact (byStatus and byFlow stay lower bounds). */
  totalExact?: true;
}

export interface RunDetail {
  run: RunRow;
  steps: StepRow[];
  tasks: TaskRow[];
  /** Every attempt of every task, by (step, ordinal, attempt), each with its scheduled delay. */
  attempts: AttemptRow[];
  checkpoints: CheckpointRow[];
}

const STATUSES = new Set<string>(['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted']);

export function statusList(status: RunFilters['status']): readonly string[] | undefined {
  if (status === undefined) return undefined;
  const statuses: readonly string[] = typeof status === 'string' ? [status] : status;
  for (const s of statuses) if (!isRunListStatus(s, STATUSES)) throw new StoreError('invalid_argument', `unknown run status "${String(s)}"`);
  return statuses;
}

/**
 * The flow files a `flow` filter means: the value itself when some run has that file, otherwise
 * the files of the runs whose flow is named so, otherwise the value (matching nothing).
 */
export function* flowFiles(_dialect: Dialect, flow: string): Query<string[]> {
  if (yield* get('SELECT 1 FROM runs WHERE flow = ? LIMIT 1', [flow])) return [flow];
  const named = yield* all<{ flow: string }>('SELECT DISTINCT flow FROM runs WHERE flow_name = ?', [flow]);
  return named.length > 0 ? named.map((r) => r.flow) : [flow];
}

/** The page size the index choices of a list are made for (the window's; clampLimit's default may differ). */
const PAGE_HINT_LIMIT = 100;

/** A status or flow filter matching at least this share of the runs is dense. */
const DENSE_SHARE = 0.05;

/**
 * Whether a status or flow filter matches so many runs (from `run_counts`) that a page is found
 * sooner walking the sort's index and skipping the few rows that do not match than reading every
 * match through the filter's own index and sorting them all. A dense filter is written `+column`
 * so SQLite does not pick the filter's index. PostgreSQL has no such hint (its planner weighs the
 * filter by its statistics), so there the question is not asked.
 */
function* dense(dialect: Dialect, column: 'status' | 'flow', values: readonly string[]): Query<boolean> {
  if (values.length === 0 || dialect === Dialect.postgres) return false;
  const row = (yield* get<{ hits: number | null; total: number | null }>(
    `SELECT SUM(CASE WHEN ${column} IN (SELECT value FROM json_each(?)) THEN count ELSE 0 END) AS hits, SUM(count) AS total FROM run_counts`,
    [JSON.stringify(values)],
  )) ?? { hits: null, total: null };
  return (row.total ?? 0) > 0 && (row.hits ?? 0) >= DENSE_SHARE * (row.total ?? 0);
}

/**
 * A text search's count stops at this many runs (run-counts.ts): each hit costs three index
 * lookups (trigram document, its run id, the run), so it stops sooner than other counts.
 */
export const TEXT_COUNT_CAP = 2_000;

/** Above this many index hits a text is common: a LIKE filter along the sort's index finds a page sooner. */
const COMMON_TEXT_HITS = 2_000;

/**
 * Whether a text matches so many runs that reading its hits from the trigram index (all of them,
 * before sorting) costs more than scanning rows in sort order until a page is full. SQLite only:
 * PostgreSQL has no FTS5 tables and always takes the ILIKE path (its pg_trgm indexes serve it).
 */
function* commonText(_dialect: Dialect, phrase: string): Query<boolean> {
  const row = yield* get<{ n: number }>(
    'SELECT (SELECT COUNT(*) FROM (SELECT rowid FROM run_text WHERE run_text MATCH ? LIMIT ?))' +
      ' + (SELECT COUNT(*) FROM (SELECT rowid FROM task_text WHERE task_text MATCH ? LIMIT ?)) AS n',
    [phrase, COMMON_TEXT_HITS, phrase, COMMON_TEXT_HITS],
  );
  return (row?.n ?? 0) >= COMMON_TEXT_HITS;
}

/**
 * The filters of a run list as conditions; null when they can match nothing (an empty status
 * list). `omit` leaves one filter out (the counts of that filter's own choices).
 */
export function* runFilters(
  dialect: Dialect,
  query: RunFilters,
  omit?: 'status' | 'flow',
  purpose: 'page' | 'count' = 'page',
  sortKey: RunSortKey = 'started',
): Query<Conditions | null> {
  const c = new Conditions();
  const statuses = statusList(query.status);
  if (statuses !== undefined && omit !== 'status') {
    if (statuses.length === 0) return null;
    const split = splitDerived(statuses);
    if (split.derived.length > 0) addStatusesWithDerived(c, split.statuses, split.derived);
    else c.add(`${hinted(dialect, 'status', yield* dense(dialect, 'status', statuses))} IN (${statuses.map(() => '?').join(', ')})`, ...statuses);
  }
  const flow = optionalText('flow', query.flow);
  if (flow !== undefined && flow !== '' && omit !== 'flow') {
    const files = yield* flowFiles(dialect, flow);
    // Sorted by flow name, a flow filter is one range of runs_flow_by_name (migration 19): walking
    // the flow-name index instead would skip every run of the flows named before it.
    const walkSort = sortKey !== 'flow' && (yield* dense(dialect, 'flow', files));
    c.add(`${hinted(dialect, 'flow', walkSort)} IN (${files.map(() => '?').join(', ')})`, ...files);
  }
  yield* addErrorFilters(
    dialect,
    c,
    query,
    purpose === 'page' ? { page: true, sortedByStart: sortKey === 'started', limit: PAGE_HINT_LIMIT } : { page: false },
  );
  const text = optionalText('text', query.text)?.trim();
  const indexed = dialect === Dialect.sqlite && text !== undefined && [...text].length >= TEXT_INDEX_MIN_CHARS;
  const phrase = indexed ? `"${text.replace(/"/g, '""')}"` : null;
  // A count reads every hit anyway: from the index, whatever their number.
  if (phrase !== null && (purpose === 'count' || !(yield* commonText(dialect, phrase)))) {
    // The trigram indexes: the phrase is a case-insensitive substring of one of the four columns
    // or of one of the run's task prompts (names).
    // A count stops at TEXT_COUNT_CAP runs (run-counts.ts): it needs no more hits than that from
    // either index (every hit would be looked up before the count's own LIMIT applies).
    const hits = purpose === 'count' ? ` LIMIT ${TEXT_COUNT_CAP + 1}` : '';
    c.add(
      `(id IN (SELECT d.id FROM run_text_docs AS d WHERE d.doc IN (SELECT rowid FROM run_text WHERE run_text MATCH ?${hits}))` +
        ` OR id IN (SELECT d.run_id FROM task_text_docs AS d WHERE d.doc IN (SELECT rowid FROM task_text WHERE task_text MATCH ?${hits})))`,
      phrase,
      phrase,
    );
  } else if (text !== undefined && text !== '' && dialect === Dialect.postgres) {
    // Each column's trigram index answers its ILIKE (a miss reads no row), but not under an OR
    // with a subquery on another table: the matching ids are gathered per table, each through its
    // indexes (a BitmapOr), then the runs are walked in the sort's order against that set.
    const pattern = likeContains(text);
    c.add(
      "id IN (SELECT r.id FROM runs AS r WHERE r.id ILIKE ? ESCAPE '\\' OR r.flow_name ILIKE ? ESCAPE '\\' OR r.flow ILIKE ? ESCAPE '\\'" +
        " OR r.last_error_message ILIKE ? ESCAPE '\\' UNION SELECT t.run_id FROM tasks AS t WHERE t.name ILIKE ? ESCAPE '\\')",
      pattern,
      pattern,
      pattern,
      pattern,
      pattern,
    );
  } else if (text !== undefined && text !== '') {
    const pattern = likeContains(text);
    const like = likeOperator(dialect);
    c.add(
      `(id ${like} ? ESCAPE '\\' OR flow_name ${like} ? ESCAPE '\\' OR flow ${like} ? ESCAPE '\\' OR last_error_message ${like} ? ESCAPE '\\'` +
        // The run's own prompts, looked up per run: rows are read in the sort's order until a page is
        // full, so a common text stops early instead of reading every task of the history first.
        ` OR EXISTS (SELECT 1 FROM tasks AS t WHERE t.run_id = runs.id AND t.name ${like} ? ESCAPE '\\'))`,
      pattern,
      pattern,
      pattern,
      pattern,
      pattern,
    );
  }
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since !== undefined) c.add('started_at >= ?', since);
  if (until !== undefined) c.add('started_at < ?', until);
  return c;
}

/**
 * Sort keys → non-null SQL expressions, each with an index (migration 3) over (expression,
 * started_at, id): a page is a range scan whatever the history's size. Ties follow the shared
 * rule (core/common/run-filter.ts `RUN_SORT_TIES`, which the window orders live rows by): along
 * the sort's direction, except for status and flow, whose ties are newest first when ascending
 * (their natural direction) through the `-started_at` of their index.
 */
const SORT_EXPRESSIONS: Record<RunSortKey, string> = {
  started: 'started_at',
  ended: 'COALESCE(ended_at, 9007199254740991)',
  duration: 'COALESCE(duration_ms, -1)',
  errors: 'error_count',
  attempts: 'attempt_count',
  step: 'current_step',
  status: STATUS_RANK_SQL,
  flow: 'flow_name',
};

function sortOf(key: RunSortKey): { expr: string; ties: 'along' | 'newest' | 'id' } {
  return { expr: SORT_EXPRESSIONS[key], ties: RUN_SORT_TIES[key] };
}

function parseSort(sort: RunSort | undefined): { key: RunSortKey; desc: boolean } {
  const text = sort ?? '-started';
  const desc = text.startsWith('-');
  const key = (desc ? text.slice(1) : text) as RunSortKey;
  if (!Object.prototype.hasOwnProperty.call(SORT_EXPRESSIONS, key)) {
    throw new StoreError('invalid_argument', `unknown sort "${String(sort)}"; use one of ${RUN_SORT_KEYS.join(', ')} (prefix - for descending)`);
  }
  return { key, desc };
}

/** The ORDER BY of a sort (its index has the same terms, so a page never sorts the table). */
export function runOrderSql(sort: RunSort | undefined): string {
  const { key, desc } = parseSort(sort);
  const { expr, ties } = sortOf(key);
  const dir = desc ? 'DESC' : 'ASC';
  if (ties === 'id') return `${expr} ${dir}, id ${dir}`;
  if (ties === 'along') return `${expr} ${dir}, started_at ${dir}, id ${dir}`;
  return `${expr} ${dir}, -started_at ${dir}, id ${dir}`;
}

export function* listRuns(dialect: Dialect, query: ListRunsQuery = {}): Query<RunPage> {
  const limit = clampLimit(query.limit);
  const { key, desc } = parseSort(query.sort);
  const { expr, ties } = sortOf(key);
  const tag = `${desc ? '-' : ''}${key}`;
  const c = yield* runFilters(dialect, query, undefined, 'page', key);
  if (c === null) return { runs: [], nextCursor: null };
  const tuple = ties === 'id' ? `(${expr}, id)` : ties === 'along' ? `(${expr}, started_at, id)` : `(${expr}, -started_at, id)`;
  const width = ties === 'id' ? 2 : 3;
  if (query.cursor) {
    const position = decodeCursor(query.cursor, width + 1, tag).slice(1);
    const valid = position.every((v, i) => (i === width - 1 ? typeof v === 'string' : typeof v === 'number' || typeof v === 'string'));
    if (!valid) throw new StoreError('invalid_argument', 'invalid cursor');
    c.add(`${tuple} ${desc ? '<' : '>'} (${position.map(() => '?').join(', ')})`, ...position);
  }
  const sql = `SELECT *, ${expr} AS sort_value FROM runs${c.where()} ORDER BY ${runOrderSql(query.sort)} LIMIT ?`;
  const records = yield* all<Record<string, unknown>>(sql, [...c.params, limit + 1]);
  const more = records.length > limit;
  const page = more ? records.slice(0, limit) : records;
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (more && last) {
    const startedAt = last.started_at as number;
    const position = ties === 'id' ? [last.sort_value, last.id] : [last.sort_value, ties === 'along' ? startedAt : -startedAt, last.id];
    nextCursor = encodeCursor([tag, ...position]);
  }
  return { runs: page.map((r) => rowFromDb<RunRow>(RUNS, r)), nextCursor };
}

export function* getRunRow(_dialect: Dialect, runId: string): Query<RunRow | null> {
  const record = yield* get<Record<string, unknown>>('SELECT * FROM runs WHERE id = ?', [runId]);
  return record ? rowFromDb<RunRow>(RUNS, record) : null;
}

/**
 * Which of `runIds` are in `status` now: one statement however many ids (the host watch asks
 * about every run its host executes, each second). The ids travel as one JSON
 * array, so the statement's text is the same for any number of them.
 */
export function* runsInStatus(dialect: Dialect, runIds: readonly string[], status: RunStatus): Query<string[]> {
  if (runIds.length === 0) return [];
  const ids = dialect === Dialect.postgres ? 'SELECT jsonb_array_elements_text(?::jsonb)' : 'SELECT value FROM json_each(?)';
  const rows = yield* all<{ id: string }>(`SELECT id FROM runs WHERE status = ? AND id IN (${ids})`, [status, JSON.stringify(runIds)]);
  return rows.map((row) => row.id);
}

export function* getRun(dialect: Dialect, runId: string): Query<RunDetail | null> {
  const run = yield* getRunRow(dialect, runId);
  if (!run) return null;
  const rows = (sql: string): Query<Record<string, unknown>[]> => all<Record<string, unknown>>(sql, [runId]);
  const steps = yield* rows('SELECT * FROM steps WHERE run_id = ? ORDER BY step');
  const tasks = yield* rows('SELECT * FROM tasks WHERE run_id = ? ORDER BY step, ordinal');
  const attempts = yield* rows('SELECT * FROM attempts WHERE run_id = ? ORDER BY step, ordinal, attempt');
  const checkpoints = yield* rows('SELECT * FROM checkpoints WHERE run_id = ? ORDER BY step');
  return {
    run,
    steps: steps.map((r) => rowFromDb<StepRow>(STEPS, r)),
    tasks: tasks.map((r) => rowFromDb<TaskRow>(TASKS, r)),
    attempts: attempts.map((r) => rowFromDb<AttemptRow>(ATTEMPTS, r)),
    checkpoints: checkpoints.map((r) => rowFromDb<CheckpointRow>(CHECKPOINTS, r)),
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
