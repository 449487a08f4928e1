import type { TokenUsage } from '../../base/usage.js';
import { DAY_MS } from '../rollups/usage-rollups.js';
import { costSplit, type CostSplitAnswer, type CostSplitQuery } from '../outcomes/cost-split.js';
import { flowHealth, type FlowHealth, type FlowHealthQuery } from '../outcomes/flow-health.js';
import { all, type Dialect, type Query } from './plan.js';
import { clampLimit, Conditions, optionalTime } from './sql.js';

/**
 * Tokens and cost (tables of migrations/v10-v19/v16-usage-rollups.ts), written once for both engines. A time
 * range is answered from whole UTC days of `usage_days` and, at its partial edges, from the
 * attempts themselves (`attempt_usage` by wall time), so any range is exact. Only attempts that
 * count are summed (not those of a session a Hivewatch attempt ran: that attempt counts them).
 */

interface UsageTotals {
  /** Attempts that reported usage. */
  attempts: number;
  failedAttempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The sum of the costs reported; a lower bound when `unknownCostAttempts` > 0. */
  costUsd: number;
  /** What attempts that failed cost. */
  failedCostUsd: number;
  /** Attempts that reported tokens but no cost: the total's cost is unknown in part. */
  unknownCostAttempts: number;
}

interface RunUsage extends UsageTotals {
  runId: string;
  /** For an external session a Hivewatch attempt ran: that attempt, which counts this usage. */
  countedIn: { runId: string; taskId: string; attempt: number } | null;
}

interface FlowUsage extends UsageTotals {
  flow: string;
}

interface UsageQuery {
  /** Window on the attempt's end wall time: since ≤ ended < until; absent bounds are open. */
  since?: number;
  until?: number;
  /** One flow (its key, the flow file or `external:<agent>`). */
  flow?: string;
}

const SUM_COLUMNS =
  'attempts, failed_attempts, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, failed_cost_usd, unknown_cost_attempts';

/** The sums of attempt_usage rows, as usage_days' columns. */
const ATTEMPT_SUMS = `COUNT(*) AS attempts, SUM(failed) AS failed_attempts, SUM(COALESCE(input_tokens, 0)) AS input_tokens,
  SUM(COALESCE(output_tokens, 0)) AS output_tokens, SUM(COALESCE(cache_read_tokens, 0)) AS cache_read_tokens,
  SUM(COALESCE(cache_write_tokens, 0)) AS cache_write_tokens, SUM(COALESCE(cost_usd, 0)) AS cost_usd,
  SUM(CASE WHEN failed = 1 THEN COALESCE(cost_usd, 0) ELSE 0 END) AS failed_cost_usd,
  SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END) AS unknown_cost_attempts`;

type SumRow = Record<string, unknown>;

/** PostgreSQL answers BIGINT sums as text: every sum is read as a number. */
function totalsOf(row: SumRow): UsageTotals {
  const n = (key: string): number => Number(row[key] ?? 0);
  return {
    attempts: n('attempts'),
    failedAttempts: n('failed_attempts'),
    inputTokens: n('input_tokens'),
    outputTokens: n('output_tokens'),
    cacheReadTokens: n('cache_read_tokens'),
    cacheWriteTokens: n('cache_write_tokens'),
    costUsd: n('cost_usd'),
    failedCostUsd: n('failed_cost_usd'),
    unknownCostAttempts: n('unknown_cost_attempts'),
  };
}

function emptyTotals(): UsageTotals {
  return totalsOf({});
}

function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const sum = emptyTotals();
  for (const key of Object.keys(sum) as (keyof UsageTotals)[]) sum[key] = a[key] + b[key];
  return sum;
}

/** The usage of these runs (runs without any are absent). */
function* runUsage(runIds: readonly string[]): Query<Map<string, RunUsage>> {
  const found = new Map<string, RunUsage>();
  if (runIds.length === 0) return found;
  const rows = yield* all<SumRow>(
    `SELECT run_id, parent_run_id, parent_task_id, parent_attempt, ${SUM_COLUMNS} FROM run_usage WHERE run_id IN (${runIds.map(() => '?').join(', ')})`,
    runIds,
  );
  for (const row of rows) {
    const parent =
      row.parent_run_id === null || row.parent_run_id === undefined
        ? null
        : { runId: String(row.parent_run_id), taskId: String(row.parent_task_id), attempt: Number(row.parent_attempt) };
    found.set(String(row.run_id), { runId: String(row.run_id), countedIn: parent, ...totalsOf(row) });
  }
  return found;
}

const ceilDay = (t: number): number => Math.ceil(t / DAY_MS) * DAY_MS;
const floorDay = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS;

/** Per flow, what its counted attempts used in the window, largest cost first. */
function* flowUsage(query: UsageQuery = {}): Query<FlowUsage[]> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const byFlow = new Map<string, UsageTotals>();
  const add = (rows: SumRow[]): void => {
    for (const row of rows) {
      const flow = String(row.flow);
      byFlow.set(flow, addTotals(byFlow.get(flow) ?? emptyTotals(), totalsOf(row)));
    }
  };
  const wholeFrom = since === undefined ? null : ceilDay(since);
  const wholeTo = until === undefined ? null : floorDay(until);
  if (wholeFrom !== null && wholeTo !== null && wholeFrom >= wholeTo) {
    add(yield* attemptSums(query.flow, since, until));
  } else {
    const days = new Conditions();
    if (wholeFrom !== null) days.add('day >= ?', wholeFrom);
    if (wholeTo !== null) days.add('day < ?', wholeTo);
    if (query.flow !== undefined) days.add('flow = ?', query.flow);
    const sums = SUM_COLUMNS.split(', ')
      .map((c) => `SUM(${c}) AS ${c}`)
      .join(', ');
    add(yield* all<SumRow>(`SELECT flow, ${sums} FROM usage_days${days.where()} GROUP BY flow`, days.params));
    if (since !== undefined && wholeFrom !== null && since < wholeFrom) add(yield* attemptSums(query.flow, since, wholeFrom));
    if (until !== undefined && wholeTo !== null && wholeTo < until) add(yield* attemptSums(query.flow, wholeTo, until));
  }
  return [...byFlow].map(([flow, totals]) => ({ flow, ...totals })).sort((a, b) => b.costUsd - a.costUsd || (a.flow < b.flow ? -1 : 1));
}

function* attemptSums(flow: string | undefined, from: number | undefined, to: number | undefined): Query<SumRow[]> {
  const c = new Conditions().add('counted = 1');
  if (from !== undefined) c.add('wall >= ?', from);
  if (to !== undefined) c.add('wall < ?', to);
  if (flow !== undefined) c.add('flow = ?', flow);
  return yield* all<SumRow>(`SELECT flow, ${ATTEMPT_SUMS} FROM attempt_usage${c.where()} GROUP BY flow`, c.params);
}

type CostlyRun = RunUsage & { flow: string; startedAt: number; status: string };

/**
 * The usage reads of the store's contract (`HivewatchStore.usage`), one method for all of them:
 * what runs, attempts and flows spent, what failure costs (`costSplit`, outcomes/cost-split.ts)
 * and each flow's health with its spend (`flowHealth`, outcomes/flow-health.ts).
 */
export type UsageRead =
  | { kind: 'runs'; runIds: readonly string[] }
  | { kind: 'flows'; query?: UsageQuery }
  | { kind: 'costliestRuns'; query?: UsageQuery & { limit?: number } }
  | { kind: 'attempts'; runId: string }
  | { kind: 'costSplit'; query?: CostSplitQuery }
  | { kind: 'flowHealth'; query?: FlowHealthQuery };

interface UsageAnswers {
  runs: Map<string, RunUsage>;
  flows: FlowUsage[];
  costliestRuns: CostlyRun[];
  attempts: AttemptUsage[];
  costSplit: CostSplitAnswer;
  flowHealth: FlowHealth[];
}

/** One attempt's usage as its end event reported it. */
interface AttemptUsage {
  taskId: string;
  attempt: number;
  usage: TokenUsage;
}

export type UsageAnswer<R extends UsageRead> = UsageAnswers[R['kind']];

export function usageQuery<R extends UsageRead>(dialect: Dialect, read: R): Query<UsageAnswer<R>> {
  switch (read.kind) {
    case 'costSplit':
      return costSplit(dialect, read.query) as Query<UsageAnswer<R>>;
    case 'flowHealth':
      return flowHealth(dialect, read.query) as Query<UsageAnswer<R>>;
    case 'runs':
      return runUsage(read.runIds) as Query<UsageAnswer<R>>;
    case 'flows':
      return flowUsage(read.query) as Query<UsageAnswer<R>>;
    case 'costliestRuns':
      return costliestRuns(read.query) as Query<UsageAnswer<R>>;
    default:
      return attemptUsage(read.runId) as Query<UsageAnswer<R>>;
  }
}

function* attemptUsage(runId: string): Query<AttemptUsage[]> {
  const rows = yield* all<SumRow>(
    'SELECT task_id, attempt, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, source FROM attempt_usage WHERE run_id = ? ORDER BY task_id, attempt',
    [runId],
  );
  return rows.map((row) => {
    const usage: TokenUsage = { source: row.source === 'telemetry' ? 'telemetry' : 'result' };
    const set = (field: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costUsd', value: unknown): void => {
      if (value !== null && value !== undefined) usage[field] = Number(value);
    };
    set('inputTokens', row.input_tokens);
    set('outputTokens', row.output_tokens);
    set('cacheReadTokens', row.cache_read_tokens);
    set('cacheWriteTokens', row.cache_write_tokens);
    set('costUsd', row.cost_usd);
    return { taskId: String(row.task_id), attempt: Number(row.attempt), usage };
  });
}

/** Runs by what they cost (runs started in the window), most first; `limit` default 20. */
function* costliestRuns(query: UsageQuery & { limit?: number } = {}): Query<CostlyRun[]> {
  const c = new Conditions();
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  if (since !== undefined) c.add('r.started_at >= ?', since);
  if (until !== undefined) c.add('r.started_at < ?', until);
  if (query.flow !== undefined) c.add('r.flow = ?', query.flow);
  const columns = SUM_COLUMNS.split(', ')
    .map((col) => `u.${col}`)
    .join(', ');
  const rows = yield* all<SumRow>(
    `SELECT u.run_id, r.flow, r.started_at, r.status, u.parent_run_id, u.parent_task_id, u.parent_attempt, ${columns}
       FROM run_usage AS u JOIN runs AS r ON r.id = u.run_id${c.where()}
      ORDER BY u.cost_usd DESC, u.run_id LIMIT ?`,
    [...c.params, clampLimit(query.limit, 20)],
  );
  return rows.map((row) => ({
    runId: String(row.run_id),
    flow: String(row.flow),
    startedAt: Number(row.started_at),
    status: String(row.status),
    countedIn:
      row.parent_run_id === null ? null : { runId: String(row.parent_run_id), taskId: String(row.parent_task_id), attempt: Number(row.parent_attempt) },
    ...totalsOf(row),
  }));
}
