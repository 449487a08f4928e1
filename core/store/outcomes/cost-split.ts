import type { SpendFigures } from '../../common/usage-format.js';
import { all, type Dialect, type Query } from '../queries/plan.js';
import { flowFiles } from '../queries/runs.js';
import { Conditions, optionalText, optionalTime } from '../queries/sql.js';
import { ceilTo, DAY, floorTo, HOUR, planCoarseWindow } from '../rollups/rollups.js';
import { StoreError } from '../store-error.js';
import { ATTEMPTS_WITH_FATE, COST_BUCKET_SQL, COST_OUTCOMES, COST_SUMS, COST_TABLE, type CostGrain, type CostOutcome } from './cost-keys.js';

/**
 * What failure costs over a window (cost-keys.ts): the spend of runs that ended failed, of the
 * failed attempts of runs that did not, and of successful work, with each flow's split and a
 * trend. Whole days and hours come from the cost rollups, the partial hours at the window's two
 * edges from the attempts themselves, so any window is exact (the conformance suite compares it
 * with a plain GROUP BY over the attempts on both engines).
 */

type CostFigures = SpendFigures;

/** The three outcomes; they add up to everything the window's counted attempts spent. */
export interface CostSplit {
  failed: CostFigures;
  retried: CostFigures;
  succeeded: CostFigures;
}

interface CostTrendPoint {
  /** The bucket's start. */
  at: number;
  failed: number;
  retried: number;
  succeeded: number;
}

export interface CostSplitAnswer {
  total: CostSplit;
  /** Each flow with spend in the window, costliest first. */
  flows: { flow: string; split: CostSplit }[];
  /** Cost per bucket (hours for a window of two days or less, else days), every bucket of the window. */
  trend: { grain: CostGrain; points: CostTrendPoint[] };
}

export interface CostSplitQuery {
  /** Window on the attempt's end wall time: since ≤ ended < until. */
  since?: number;
  until?: number;
  /** The end of an open window, for the trend's last bucket (the caller's clock). */
  now?: number;
  /** A flow file or a flow name. */
  flow?: string;
  /** The error's keys: a failed run's ending error, a retried attempt's own. Successful work has none, so any of them leaves it out. */
  category?: string;
  origin?: string;
  /** The ending error's code or its root cause's code. */
  code?: string;
  /** Only these issues (error fingerprints); an empty list matches nothing. */
  fingerprints?: readonly string[];
  /** One run's attempts (read from its own rows, not the rollups). */
  runId?: string;
}

/** The most buckets a trend returns (the newest kept). */
const MAX_TREND_POINTS = 400;
const TWO_DAYS = 2 * DAY;

function emptyFigures(): CostFigures {
  return { attempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unknownCostAttempts: 0 };
}

export function emptySplit(): CostSplit {
  return { failed: emptyFigures(), retried: emptyFigures(), succeeded: emptyFigures() };
}

/** Cost rows summed per bucket (an hour's or a day's start), flow and outcome, COST_SUMS as columns. */
export type SumRow = Record<string, unknown> & { bucket: number | string; flow: string; outcome: string };

const FIELD: Record<(typeof COST_SUMS)[number], keyof CostFigures> = {
  attempts: 'attempts',
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_read_tokens: 'cacheReadTokens',
  cache_write_tokens: 'cacheWriteTokens',
  cost_usd: 'costUsd',
  unknown_cost_attempts: 'unknownCostAttempts',
};

function addRow(figures: CostFigures, row: SumRow): void {
  for (const column of COST_SUMS) figures[FIELD[column]] += Number(row[column] ?? 0);
}

/** The query's filters on a cost row's key columns (a rollup's, or a scan's named alike). */
export function* costKeyFilters(dialect: Dialect, query: CostSplitQuery): Query<Conditions> {
  const c = new Conditions();
  for (const key of ['category', 'origin'] as const) {
    const value = optionalText(key, query[key]);
    if (value !== undefined) c.add(`${key} = ?`, value);
  }
  const code = optionalText('code', query.code);
  if (code !== undefined) c.add('(code = ? OR root_code = ?)', code, code);
  const flow = optionalText('flow', query.flow);
  if (flow !== undefined) {
    const files = yield* flowFiles(dialect, flow);
    c.add(`flow IN (${files.map(() => '?').join(', ')})`, ...files);
  }
  if (query.fingerprints !== undefined) {
    if (!Array.isArray(query.fingerprints) || query.fingerprints.some((f) => typeof f !== 'string')) {
      throw new StoreError('invalid_argument', 'fingerprints must be a list of strings');
    }
    if (query.fingerprints.length > 10_000) throw new StoreError('invalid_argument', 'at most 10000 fingerprints');
    if (query.fingerprints.length === 0) c.add('1 = 0');
    else c.add(`fingerprint IN (${query.fingerprints.map(() => '?').join(', ')})`, ...query.fingerprints);
  }
  return c;
}

const SUMMED = COST_SUMS.map((c) => `SUM(${c}) AS ${c}`).join(', ');

/** The attempts of [from, to) (of one run: `oneRun`) as cost rows, their bucket computed as the rollups keep it: a window's edges. */
function edgeSql(size: number, oneRun = false): string {
  const columns = [
    `u.wall - (((u.wall % ${size}) + ${size}) % ${size}) AS bucket`,
    'u.flow AS flow',
    ...Object.entries(COST_BUCKET_SQL).map(([name, sql]) => `${sql} AS ${name}`),
    '1 AS attempts',
    'COALESCE(u.input_tokens, 0) AS input_tokens',
    'COALESCE(u.output_tokens, 0) AS output_tokens',
    'COALESCE(u.cache_read_tokens, 0) AS cache_read_tokens',
    'COALESCE(u.cache_write_tokens, 0) AS cache_write_tokens',
    'COALESCE(u.cost_usd, 0) AS cost_usd',
    'CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END AS unknown_cost_attempts',
  ];
  return `(SELECT ${columns.join(', ')} FROM ${ATTEMPTS_WITH_FATE} WHERE u.counted = 1 AND u.wall >= ? AND u.wall < ?${oneRun ? ' AND u.run_id = ?' : ''}) AS edge`;
}

/** The rows of one window, grouped by bucket (at `grain` or finer), flow and outcome. */
function* windowRows(dialect: Dialect, query: CostSplitQuery, grain: CostGrain): Query<SumRow[]> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const filters = yield* costKeyFilters(dialect, query);
  const rows: SumRow[] = [];
  const runId = optionalText('runId', query.runId);
  if (runId !== undefined) {
    return yield* all<SumRow>(`SELECT bucket, flow, outcome, ${SUMMED} FROM ${edgeSql(HOUR, true)}${filters.where()} GROUP BY bucket, flow, outcome`, [
      since ?? Number.MIN_SAFE_INTEGER,
      until ?? Number.MAX_SAFE_INTEGER,
      runId,
      ...filters.params,
    ]);
  }
  const read = function* (table: string, from: number, to: number): Query<void> {
    if (to <= from) return;
    rows.push(
      ...(yield* all<SumRow>(
        `SELECT bucket, flow, outcome, ${SUMMED} FROM ${table} WHERE bucket >= ? AND bucket < ?${filters.and()} GROUP BY bucket, flow, outcome`,
        [from, to, ...filters.params],
      )),
    );
  };
  let edges: { from: number; to: number }[];
  if (grain === 'hour' && since !== undefined) {
    const hi = until ?? Number.MAX_SAFE_INTEGER;
    const a = ceilTo(since, HOUR);
    const b = floorTo(hi, HOUR);
    if (a >= b) edges = [{ from: since, to: hi }];
    else {
      yield* read(COST_TABLE.hour, a, b);
      edges = [
        { from: since, to: a },
        { from: b, to: hi },
      ];
    }
  } else {
    const plan = planCoarseWindow(since, until);
    yield* read(COST_TABLE.day, plan.days.from, plan.days.to);
    for (const hours of plan.hours) yield* read(COST_TABLE.hour, hours.from, hours.to);
    edges = plan.edges;
  }
  for (const edge of edges) {
    if (edge.to <= edge.from) continue;
    rows.push(
      ...(yield* all<SumRow>(`SELECT bucket, flow, outcome, ${SUMMED} FROM ${edgeSql(HOUR)}${filters.where()} GROUP BY bucket, flow, outcome`, [
        edge.from,
        edge.to,
        ...filters.params,
      ])),
    );
  }
  return rows;
}

function trendPoints(rows: readonly SumRow[], grain: CostGrain, since: number | undefined, end: number | undefined): CostTrendPoint[] {
  const size = grain === 'hour' ? HOUR : DAY;
  const byBucket = new Map<number, CostTrendPoint>();
  for (const row of rows) {
    const at = floorTo(Number(row.bucket), size);
    const point = byBucket.get(at) ?? { at, failed: 0, retried: 0, succeeded: 0 };
    point[row.outcome as CostOutcome] += Number(row.cost_usd ?? 0);
    byBucket.set(at, point);
  }
  const known = [...byBucket.keys()];
  const first = since !== undefined ? floorTo(since, size) : known.length > 0 ? Math.min(...known) : null;
  const last = end !== undefined ? floorTo(end - 1, size) : known.length > 0 ? Math.max(...known) : null;
  if (first === null || last === null || last < first) return [];
  const from = Math.max(first, last - (MAX_TREND_POINTS - 1) * size);
  const points: CostTrendPoint[] = [];
  for (let at = from; at <= last; at += size) points.push(byBucket.get(at) ?? { at, failed: 0, retried: 0, succeeded: 0 });
  return points;
}

/** The trend's grain for a window: hours for two days or less, else days (an open window without a clock: days). */
export function splitGrain(since: number | undefined, until: number | undefined, now: number | undefined): CostGrain {
  const end = until ?? now;
  return since !== undefined && end !== undefined && end - since <= TWO_DAYS ? 'hour' : 'day';
}

/** The answer from cost rows of the window, however they were read. */
export function assembleSplit(rows: readonly SumRow[], grain: CostGrain, since: number | undefined, end: number | undefined): CostSplitAnswer {
  const total = emptySplit();
  const flows = new Map<string, CostSplit>();
  for (const row of rows) {
    if (!(COST_OUTCOMES as readonly string[]).includes(row.outcome)) continue;
    const outcome = row.outcome as CostOutcome;
    addRow(total[outcome], row);
    const split = flows.get(row.flow) ?? emptySplit();
    addRow(split[outcome], row);
    flows.set(row.flow, split);
  }
  const cost = (s: CostSplit): number => s.failed.costUsd + s.retried.costUsd + s.succeeded.costUsd;
  return {
    total,
    flows: [...flows].map(([flow, split]) => ({ flow, split })).sort((a, b) => cost(b.split) - cost(a.split) || (a.flow < b.flow ? -1 : 1)),
    trend: { grain, points: trendPoints(rows, grain, since, end) },
  };
}

export function* costSplit(dialect: Dialect, query: CostSplitQuery = {}): Query<CostSplitAnswer> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const now = optionalTime('now', query.now);
  const grain = splitGrain(since, until, now);
  const rows = yield* windowRows(dialect, query, grain);
  return assembleSplit(rows, grain, since, until ?? now);
}
