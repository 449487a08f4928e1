import type { HivewatchEvent } from '../../base/events.js';
import type { TokenUsage } from '../../base/usage.js';
import {
  attemptErrorKeys,
  ATTEMPTS_WITH_FATE,
  COST_BUCKET_SQL,
  COST_GRAINS,
  COST_KEY,
  COST_SUMS,
  COST_TABLE,
  GROUPED_COST_SUMS,
  type CostKeys,
} from '../outcomes/cost-keys.js';
import { CostBatch, type AddedAttempt, type SqlWrite } from '../outcomes/cost-writes.js';
import type { Query } from '../queries/plan.js';
import { pruneSpawnsSql, spawnWriteOf } from '../queries/agent-tree.js';
import type { RunRow } from '../projection/schema.js';

/**
 * The writes that keep the usage tables (migrations/v10-v19/v16-usage-rollups.ts) for one batch, written once for both
 * engines (SQLite's JournalWriter and PostgreSQL's PostgresJournalWriter run them in the batch's
 * transaction). Each attempt that reported usage gets its `attempt_usage` row, and its run's and
 * its flow-day's sums are added from that row, so the three tables cannot disagree.
 *
 * Counted once (docs/presets.md "Tokens and cost"): a session whose telemetry a Hivewatch attempt
 * produced (`runStarted.external.parent`) keeps its own totals in `run_usage`, but its attempts
 * are not `counted` in the flow totals: the attempt that ran the CLI counts what it consumed.
 */

export const DAY_MS = 86_400_000;

interface AttemptUsage {
  runId: string;
  taskId: string;
  attempt: number;
  wall: number;
  flow: string;
  failed: boolean;
  usage: TokenUsage;
  /** A failed attempt's own error (what its spend is keyed by while its run has not failed). */
  error: CostKeys | null;
}

const LINK = `INSERT INTO run_usage (run_id, parent_run_id, parent_task_id, parent_attempt) VALUES (?, ?, ?, ?)
  ON CONFLICT (run_id) DO UPDATE SET parent_run_id = excluded.parent_run_id, parent_task_id = excluded.parent_task_id, parent_attempt = excluded.parent_attempt`;

const INSERT_ATTEMPT = `INSERT INTO attempt_usage (run_id, task_id, attempt, wall, flow, failed, counted,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, source, err_category, err_origin, err_code, err_fingerprint)
  VALUES (?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM run_usage WHERE run_id = ? AND parent_run_id IS NOT NULL) THEN 0 ELSE 1 END,
    ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * An attempt whose report is all zeros reported nothing (Claude Code's result after a refused
 * request: no tokens, \`total_cost_usd\` 0): it is not usage, so no run shows "$0.00" for it.
 */
function reportedNothing(usage: TokenUsage): boolean {
  return (
    (usage.inputTokens ?? 0) === 0 &&
    (usage.outputTokens ?? 0) === 0 &&
    (usage.cacheReadTokens ?? 0) === 0 &&
    (usage.cacheWriteTokens ?? 0) === 0 &&
    (usage.costUsd ?? 0) === 0
  );
}

const SUM_COLUMNS = [
  'attempts',
  'failed_attempts',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'failed_cost_usd',
  'unknown_cost_attempts',
] as const;

/** One attempt_usage row as the sums' columns (SUM_COLUMNS' order). */
const ROW_SUMS = `1, u.failed, COALESCE(u.input_tokens, 0), COALESCE(u.output_tokens, 0), COALESCE(u.cache_read_tokens, 0),
  COALESCE(u.cache_write_tokens, 0), COALESCE(u.cost_usd, 0), CASE WHEN u.failed = 1 THEN COALESCE(u.cost_usd, 0) ELSE 0 END,
  CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END`;

const addTo = (table: string): string => SUM_COLUMNS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');
const THE_ROW = 'u.run_id = ? AND u.task_id = ? AND u.attempt = ?';

const ADD_TO_RUN = `INSERT INTO run_usage (run_id, ${SUM_COLUMNS.join(', ')})
  SELECT u.run_id, ${ROW_SUMS} FROM attempt_usage AS u WHERE ${THE_ROW}
  ON CONFLICT (run_id) DO UPDATE SET ${addTo('run_usage')}`;

const ADD_TO_DAY = `INSERT INTO usage_days (flow, day, ${SUM_COLUMNS.join(', ')})
  SELECT u.flow, CAST(? AS BIGINT), ${ROW_SUMS} FROM attempt_usage AS u WHERE ${THE_ROW} AND u.counted = 1
  ON CONFLICT (flow, day) DO UPDATE SET ${addTo('usage_days')}`;

/** A batch's usage, collected while its events are reduced (`add`), written after its projections (`writes`). */
export class UsageBatch {
  private readonly links: SqlWrite[] = [];
  private readonly ended: AttemptUsage[] = [];
  private readonly cost = new CostBatch();

  /** How many things the batch writes for usage and cost (0: nothing to read or write). */
  get size(): number {
    return this.links.length + this.ended.length + this.cost.size;
  }

  /** One reduced event of `run` (the run after it), journaled at `wall`. */
  add(event: HivewatchEvent, run: RunRow, wall: number): void {
    let added: AddedAttempt | null = null;
    const spawn = spawnWriteOf(event);
    if (spawn !== null) this.links.push(spawn);
    if (event.type === 'runStarted' && event.external?.parent) {
      const p = event.external.parent;
      this.links.push({ sql: LINK, params: [event.runId, p.runId, p.taskId, p.attempt] });
    } else if ((event.type === 'attemptSucceeded' || event.type === 'attemptFailed') && event.usage && !reportedNothing(event.usage)) {
      const { runId, taskId, attempt, usage } = event;
      const error = event.type === 'attemptFailed' ? attemptErrorKeys(event.error) : null;
      this.ended.push({ runId, taskId, attempt, wall, flow: run.flow, failed: event.type === 'attemptFailed', usage, error });
      added = { flow: run.flow, taskId, attempt, wall, failed: event.type === 'attemptFailed', error };
    }
    this.cost.track(event, run, added);
  }

  /** What the cost rollups' writes read first (outcomes/cost-writes.ts): run before `writes()`, in the batch's transaction. */
  costReads(): Query<void> {
    return this.cost.reads();
  }

  /**
   * The batch's writes: links first (an attempt of the same batch reads them), then each
   * attempt's row and its run's sums, then the flow-day sums in key order (hosts writing the same
   * days lock them in one order), then the cost rollups' (`costReads` ran first).
   */
  writes(): SqlWrite[] {
    const writes = [...this.links];
    for (const a of this.ended) {
      const u = a.usage;
      writes.push({
        sql: INSERT_ATTEMPT,
        params: [
          a.runId,
          a.taskId,
          a.attempt,
          a.wall,
          a.flow,
          a.failed ? 1 : 0,
          a.runId,
          u.inputTokens ?? null,
          u.outputTokens ?? null,
          u.cacheReadTokens ?? null,
          u.cacheWriteTokens ?? null,
          u.costUsd ?? null,
          u.source,
          a.error?.category ?? null,
          a.error?.origin ?? null,
          a.error?.code ?? null,
          a.error?.fingerprint ?? null,
        ],
      });
      writes.push({ sql: ADD_TO_RUN, params: [a.runId, a.taskId, a.attempt] });
    }
    const byDay = [...this.ended].sort((x, y) => compare(x.flow, y.flow) || dayOf(x.wall) - dayOf(y.wall) || compare(x.runId, y.runId));
    for (const a of byDay) writes.push({ sql: ADD_TO_DAY, params: [dayOf(a.wall), a.runId, a.taskId, a.attempt] });
    writes.push(...this.cost.writes());
    return writes;
  }
}

/** The UTC day (its first millisecond) a wall time falls in. */
function dayOf(wall: number): number {
  return Math.floor(wall / DAY_MS) * DAY_MS;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** What an attempt_usage row adds to a sum, as SUM_COLUMNS (for a GROUP BY over attempt_usage). */
const GROUPED_SUMS = `COUNT(*) AS attempts, SUM(failed) AS failed_attempts, SUM(COALESCE(input_tokens, 0)) AS input_tokens,
  SUM(COALESCE(output_tokens, 0)) AS output_tokens, SUM(COALESCE(cache_read_tokens, 0)) AS cache_read_tokens,
  SUM(COALESCE(cache_write_tokens, 0)) AS cache_write_tokens, SUM(COALESCE(cost_usd, 0)) AS cost_usd,
  SUM(CASE WHEN failed = 1 THEN COALESCE(cost_usd, 0) ELSE 0 END) AS failed_cost_usd,
  SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END) AS unknown_cost_attempts`;

/**
 * Prune (both engines): the pruned runs' counted attempts leave their flow-days, and their usage
 * rows go with them, as their failures leave the failure rollups. `inPruned` is the engine's
 * predicate on `run_id` (a temp table on SQLite, an array parameter on PostgreSQL).
 */
export function pruneUsageSql(inPruned: string): string[] {
  const day = `(wall / ${DAY_MS}) * ${DAY_MS}`;
  const subtract = SUM_COLUMNS.map((c) => `${c} = usage_days.${c} - s.${c}`).join(', ');
  return [
    ...pruneCostSql(inPruned),
    `UPDATE usage_days SET ${subtract}
       FROM (SELECT flow, ${day} AS day, ${GROUPED_SUMS} FROM attempt_usage WHERE counted = 1 AND ${inPruned} GROUP BY flow, ${day}) AS s
      WHERE usage_days.flow = s.flow AND usage_days.day = s.day`,
    'DELETE FROM usage_days WHERE attempts <= 0',
    `DELETE FROM attempt_usage WHERE ${inPruned}`,
    `DELETE FROM run_usage WHERE ${inPruned}`,
    pruneSpawnsSql(inPruned),
  ];
}

/**
 * Prune's part of the cost rollups (outcomes/cost-keys.ts): the pruned runs' counted attempts
 * leave the buckets they are in (their run's fate as stored), before their usage rows go.
 */
function pruneCostSql(inPruned: string): string[] {
  const keys = [
    COST_BUCKET_SQL.outcome,
    COST_BUCKET_SQL.category,
    COST_BUCKET_SQL.origin,
    COST_BUCKET_SQL.code,
    COST_BUCKET_SQL.root_code,
    COST_BUCKET_SQL.fingerprint,
  ];
  return COST_GRAINS.flatMap((grain) => {
    const table = COST_TABLE[grain];
    const size = grain === 'day' ? DAY_MS : 3_600_000;
    const bucket = `(u.wall / ${size}) * ${size}`;
    const names = COST_KEY.slice(2);
    const match = ['bucket', 'flow', ...names].map((c) => `${table}.${c} = s.${c}`).join(' AND ');
    return [
      `UPDATE ${table} SET ${COST_SUMS.map((c) => `${c} = ${table}.${c} - s.${c}`).join(', ')}
         FROM (SELECT ${bucket} AS bucket, u.flow AS flow, ${keys.map((k, i) => `${k} AS ${names[i] as string}`).join(', ')}, ${GROUPED_COST_SUMS}
                 FROM ${ATTEMPTS_WITH_FATE} WHERE u.counted = 1 AND u.${inPruned}
                GROUP BY ${bucket}, u.flow, ${keys.join(', ')}) AS s
        WHERE ${match}`,
      `DELETE FROM ${table} WHERE attempts <= 0`,
    ];
  });
}
