import type { Correlation } from '../../base/errors/envelope.js';
import { GRAIN_MS, floorTo, planWindow, ROLLUP_DIMENSIONS, ROLLUP_TABLE, type Grain, type RollupDimension } from '../rollups/rollups.js';
import { DISPOSITIONS, type ErrorDisposition, type ErrorRow } from '../projection/schema.js';
import { rowFromDb } from '../projection/row-codec.js';
import { ERRORS } from '../projection/table-specs.js';
import { flowFiles } from './runs.js';
import { StoreError } from '../store-error.js';
import { clampLimit, Conditions, decodeCursor, encodeCursor, optionalText, optionalTime } from './sql.js';
import { all, get, type Dialect, type Query } from './plan.js';
import { scopedErrorCounts, scopedErrorSeries, type ScopedFilters } from './issue-scoped.js';

/** `fingerprint IN (…)` of an issue filter on the errors table (aliased by `prefix`). */
function addFingerprints(c: Conditions, fingerprints: readonly string[] | undefined, prefix: string): void {
  if (fingerprints === undefined) return;
  if (fingerprints.length === 0) c.add('1 = 0');
  else c.add(`${prefix}fingerprint IN (${fingerprints.map(() => '?').join(', ')})`, ...fingerprints);
}

/** The filters of a view narrowed to issues, as issue-scoped.ts reads them. */
function scoped(filters: ErrorFilters & { fingerprints: readonly string[] }): ScopedFilters {
  const out: ScopedFilters = { fingerprints: filters.fingerprints };
  for (const key of ['flow', 'category', 'origin', 'code'] as const) {
    const value = optionalText(key, filters[key]);
    if (value !== undefined) out[key] = value;
  }
  const disposition = dispositionFilter(filters.disposition);
  if (disposition !== undefined) out.disposition = disposition;
  return out;
}

/** Filters every error query accepts; each is an exact match. */
export interface ErrorFilters {
  /** A flow file, or a flow name (matching the files of the runs so named). */
  flow?: string;
  category?: string;
  origin?: string;
  code?: string;
  /** Only occurrences of this disposition (pending, handled, unhandled: docs/semantics.md F3). */
  disposition?: ErrorDisposition;
  /**
   * Only occurrences of these issues (an issue-status filter, resolved to fingerprints by the
   * service): counts and series then read the group rollups (issue-scoped.ts).
   */
  fingerprints?: readonly string[];
}

/** `handled` counts are by disposition: the keys HANDLED_KEY / UNHANDLED_KEY and `pending`. */
export type ErrorDimension = RollupDimension | 'handled' | 'run' | 'task';
export const HANDLED_KEY = 'handled';
export const UNHANDLED_KEY = 'unhandled';
export interface ErrorCountsQuery extends ErrorFilters {
  by: ErrorDimension;
  /** Window on the error's journal time: since ≤ ts < until (either side open when absent). */
  since?: number;
  until?: number;
  /** At most this many keys, largest counts first (default 100). */
  limit?: number;
}

export interface ErrorCount {
  /** The dimension's value; for `task` it is `<runId>/<taskId>`. */
  key: string;
  count: number;
  /** For `flow`: the flow's latest name; for `run` / `task`: the run's flow name. */
  label: string | null;
  runId?: string;
  taskId?: string;
}

export interface ErrorSeriesQuery extends ErrorFilters {
  bucket: Grain;
  stackBy: RollupDimension;
  since: number;
  until: number;
}

export interface ErrorSeries {
  bucket: Grain;
  bucketMs: number;
  /** Every bucket start from floor(since) up to until, dense (zeros included). */
  buckets: number[];
  /** One series per key of the stack dimension, largest total first; counts align with `buckets`. */
  series: { key: string; total: number; counts: number[] }[];
}

export interface ListErrorsQuery extends ErrorFilters {
  fingerprint?: string;
  runId?: string;
  taskId?: string;
  since?: number;
  until?: number;
  limit?: number;
  cursor?: string | null;
}

export interface ErrorOccurrence extends ErrorRow {
  flowName: string | null;
  correlation: Correlation;
}

export interface ErrorPage {
  errors: ErrorOccurrence[];
  nextCursor: string | null;
}

const MAX_SERIES_BUCKETS = 10_000;

function isRollupDimension(value: string): value is RollupDimension {
  return (ROLLUP_DIMENSIONS as readonly string[]).includes(value);
}

/** The flow paths a `flow` filter means (see `flowFiles`). */
export const resolveFlows = flowFiles;

/** A `disposition` filter checked: one of DISPOSITIONS, or absent. */
export function dispositionFilter(value: unknown): ErrorDisposition | undefined {
  if (value === undefined || value === null) return undefined;
  if (!(DISPOSITIONS as readonly unknown[]).includes(value)) {
    throw new StoreError('invalid_argument', `disposition must be one of ${DISPOSITIONS.join(', ')}`);
  }
  return value as ErrorDisposition;
}

/**
 * Adds the exact-match filters, on a rollup table or on the errors table (aliased by `prefix`):
 * both have the dimension columns and `disposition`.
 */
function* addFilters(dialect: Dialect, c: Conditions, filters: ErrorFilters, prefix = ''): Query<Conditions> {
  for (const dim of ROLLUP_DIMENSIONS) {
    const value = optionalText(dim, filters[dim]);
    if (value === undefined) continue;
    if (dim === 'flow') {
      const flows = yield* resolveFlows(dialect, value);
      c.add(`${prefix}flow IN (${flows.map(() => '?').join(', ')})`, ...flows);
    } else {
      c.add(`${prefix}${dim} = ?`, value);
    }
  }
  const disposition = dispositionFilter(filters.disposition);
  if (disposition !== undefined) c.add(`${prefix}disposition = ?`, disposition);
  return c;
}

function* flowLabel(_dialect: Dialect, flow: string): Query<string | null> {
  const row = yield* get<{ flow_name: string }>('SELECT flow_name FROM runs WHERE flow = ? ORDER BY started_at DESC LIMIT 1', [flow]);
  return row ? row.flow_name : null;
}

/**
 * Error counts by a dimension over a window. category / origin / code / flow come from the
 * rollups (whole days, hours, minutes) plus the two partial edge minutes from the ts index;
 * run / task group the errors table over its ts index.
 */
export function* errorCounts(dialect: Dialect, query: ErrorCountsQuery): Query<ErrorCount[]> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const limit = clampLimit(query.limit, 100, 10_000);
  if (isRollupDimension(query.by) || query.by === 'handled') return yield* rollupCounts(dialect, query.by, query, since, until, limit);
  if (query.by !== 'run' && query.by !== 'task') {
    throw new StoreError('invalid_argument', `unknown dimension "${String(query.by)}"; use category, origin, code, flow, handled, run or task`);
  }
  const c = yield* addFilters(dialect, new Conditions(), query, 'e.');
  addFingerprints(c, query.fingerprints, 'e.');
  if (since !== undefined) c.add('e.ts >= ?', since);
  if (until !== undefined) c.add('e.ts < ?', until);
  if (query.by === 'task') c.add('e.task_id IS NOT NULL');
  const group = query.by === 'run' ? 'e.run_id' : 'e.run_id, e.task_id';
  const sql = `SELECT e.run_id AS run_id, ${query.by === 'task' ? 'e.task_id' : 'NULL'} AS task_id, COUNT(*) AS n,
      (SELECT flow_name FROM runs WHERE runs.id = e.run_id) AS label
    FROM errors AS e${c.where()} GROUP BY ${group} ORDER BY n DESC, e.run_id, task_id LIMIT ?`;
  const rows = yield* all<{ run_id: string; task_id: string | null; n: number; label: string | null }>(sql, [...c.params, limit]);
  return rows.map((r) =>
    query.by === 'run'
      ? { key: r.run_id, count: r.n, label: r.label, runId: r.run_id }
      : { key: `${r.run_id}/${r.task_id ?? ''}`, count: r.n, label: r.label, runId: r.run_id, taskId: r.task_id ?? '' },
  );
}

function* rollupCounts(
  dialect: Dialect,
  dim: RollupDimension | 'handled',
  filters: ErrorFilters,
  since: number | undefined,
  until: number | undefined,
  limit: number,
): Query<ErrorCount[]> {
  const { fingerprints } = filters;
  if (fingerprints !== undefined) {
    const rows = yield* scopedErrorCounts(dialect, scoped({ ...filters, fingerprints }), dim, since, until, limit);
    const counts: ErrorCount[] = [];
    for (const r of rows) counts.push({ key: r.k, count: r.n, label: dim === 'flow' ? yield* flowLabel(dialect, r.k) : null });
    return counts;
  }
  const plan = planWindow(since, until);
  const filter = yield* addFilters(dialect, new Conditions(), filters);
  const parts: string[] = [];
  const params: unknown[] = [];
  // The keys of `handled` are the dispositions themselves (HANDLED_KEY, UNHANDLED_KEY, PENDING_KEY).
  const key = dim === 'handled' ? 'disposition' : dim;
  for (const range of plan.ranges) {
    parts.push(`SELECT ${key} AS k, SUM(count) AS n FROM ${ROLLUP_TABLE[range.grain]} WHERE bucket >= ? AND bucket < ?${filter.and()} GROUP BY k`);
    params.push(range.from, range.to, ...filter.params);
  }
  for (const edge of plan.edges) {
    parts.push(`SELECT ${key} AS k, COUNT(*) AS n FROM errors WHERE ts >= ? AND ts < ?${filter.and()} GROUP BY k`);
    params.push(edge.from, edge.to, ...filter.params);
  }
  // The subquery is named: PostgreSQL (before 16) requires it.
  const sql = `SELECT k, SUM(n) AS n FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY k HAVING SUM(n) > 0 ORDER BY n DESC, k LIMIT ?`;
  const rows = yield* all<{ k: string; n: number }>(sql, [...params, limit]);
  const counts: ErrorCount[] = [];
  for (const r of rows) counts.push({ key: r.k, count: r.n, label: dim === 'flow' ? yield* flowLabel(dialect, r.k) : null });
  return counts;
}

/** Counts per bucket of one grain, stacked by a dimension, from that grain's rollup table. */
export function* errorSeries(dialect: Dialect, query: ErrorSeriesQuery): Query<ErrorSeries> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since === undefined || until === undefined) throw new StoreError('invalid_argument', 'errorSeries needs since and until');
  if (!Object.prototype.hasOwnProperty.call(GRAIN_MS, query.bucket)) {
    throw new StoreError('invalid_argument', `unknown bucket "${String(query.bucket)}"; use minute, hour or day`);
  }
  if (!isRollupDimension(query.stackBy)) {
    throw new StoreError('invalid_argument', `unknown stackBy "${String(query.stackBy)}"; use category, origin, code or flow`);
  }
  const size = GRAIN_MS[query.bucket];
  const first = floorTo(since, size);
  const count = until > first ? Math.ceil((until - first) / size) : 0;
  if (count > MAX_SERIES_BUCKETS) {
    throw new StoreError('invalid_argument', `${count} ${query.bucket} buckets requested; at most ${MAX_SERIES_BUCKETS} (use a coarser bucket)`);
  }
  const buckets = Array.from({ length: count }, (_, i) => first + i * size);
  const { fingerprints } = query;
  let rows: { bucket: number; k: string; n: number }[];
  if (fingerprints !== undefined) {
    rows = yield* scopedErrorSeries(dialect, scoped({ ...query, fingerprints }), query.bucket, query.stackBy, first, until);
  } else {
    const c = new Conditions().add('bucket >= ?', first).add('bucket < ?', until);
    yield* addFilters(dialect, c, query);
    const sql = `SELECT bucket, ${query.stackBy} AS k, SUM(count) AS n FROM ${ROLLUP_TABLE[query.bucket]}${c.where()} GROUP BY bucket, k`;
    rows = yield* all<{ bucket: number; k: string; n: number }>(sql, c.params);
  }
  const byKey = new Map<string, { key: string; total: number; counts: number[] }>();
  for (const r of rows) {
    let s = byKey.get(r.k);
    if (!s) {
      s = { key: r.k, total: 0, counts: new Array<number>(count).fill(0) };
      byKey.set(r.k, s);
    }
    const index = Math.round((r.bucket - first) / size);
    s.counts[index] = (s.counts[index] ?? 0) + r.n;
    s.total += r.n;
  }
  const series = [...byKey.values()].sort((a, b) => b.total - a.total || (a.key < b.key ? -1 : 1));
  return { bucket: query.bucket, bucketMs: size, buckets, series };
}

/** Occurrences, newest first, with every correlation id. */
export function* listErrors(dialect: Dialect, query: ListErrorsQuery = {}): Query<ErrorPage> {
  const limit = clampLimit(query.limit);
  const c = yield* addFilters(dialect, new Conditions(), query, 'e.');
  addFingerprints(c, query.fingerprints, 'e.');
  const fingerprint = optionalText('fingerprint', query.fingerprint);
  const runId = optionalText('runId', query.runId);
  const taskId = optionalText('taskId', query.taskId);
  if (fingerprint !== undefined) c.add('e.fingerprint = ?', fingerprint);
  if (runId !== undefined) c.add('e.run_id = ?', runId);
  if (taskId !== undefined) c.add('e.task_id = ?', taskId);
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since !== undefined) c.add('e.ts >= ?', since);
  if (until !== undefined) c.add('e.ts < ?', until);
  if (query.cursor) {
    const [, ts, run, seq] = decodeCursor(query.cursor, 4, 'errors');
    if (typeof ts !== 'number' || typeof run !== 'string' || typeof seq !== 'number') throw new StoreError('invalid_argument', 'invalid cursor');
    c.add('(e.ts, e.run_id, e.seq) < (?, ?, ?)', ts, run, seq);
  }
  const sql = `SELECT e.*, (SELECT flow_name FROM runs WHERE runs.id = e.run_id) AS flow_name
    FROM errors AS e${c.where()} ORDER BY e.ts DESC, e.run_id DESC, e.seq DESC LIMIT ?`;
  const records = yield* all<Record<string, unknown>>(sql, [...c.params, limit + 1]);
  const more = records.length > limit;
  const page = more ? records.slice(0, limit) : records;
  const errors = page.map((r): ErrorOccurrence => {
    const row = rowFromDb<ErrorRow>(ERRORS, r);
    return {
      ...row,
      flowName: (r.flow_name as string | null) ?? null,
      correlation: {
        project: row.project,
        flow: row.flow === '' ? null : row.flow,
        run: row.runId,
        step: row.step,
        task: row.taskId,
        attempt: row.attempt,
      },
    };
  });
  const last = errors[errors.length - 1];
  return { errors, nextCursor: more && last ? encodeCursor(['errors', last.ts, last.runId, last.seq]) : null };
}
