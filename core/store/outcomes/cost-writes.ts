import type { HivewatchEvent } from '../../base/events.js';
import { all, get, run, type Query } from '../queries/plan.js';
import { floorTo, DAY, HOUR } from '../rollups.js';
import type { RunRow } from '../schema.js';
import { costBucketOf, COST_GRAINS, COST_KEY, COST_SUMS, COST_TABLE, fateOf, sameFate, type CostGrain, type CostKeys, type CostOutcome } from './cost-keys.js';

/**
 * The cost rollups' writes for one batch (cost-keys.ts), the same for both engines' journal
 * writers: run after the batch's usage rows are written, as a query (queries/plan.ts) because
 * moving a run's spend reads its attempts. Each attempt the batch added goes to its bucket; a run
 * whose failure changed (it ended failed, or an external session came back) has every attempt of
 * its moved from the old bucket to the new one. The changes are summed per key and written in
 * key order, so hosts sharing a PostgreSQL database lock shared rows in one order.
 */

type FateSource = Pick<RunRow, 'status' | 'endingCode' | 'endingCategory' | 'endingOrigin' | 'endingMessage' | 'endingRootCode'>;

interface TrackedRun {
  run: FateSource;
  /** Attempts of this batch with usage, by `task\0attempt`. */
  added: Set<string>;
  /** The batch holds an event that may have made the run failed, or no longer failed. */
  fateMayChange: boolean;
}

interface AttemptRow {
  task_id: string;
  attempt: number | string;
  wall: number | string;
  flow: string;
  failed: number | string;
  err_category: string | null;
  err_origin: string | null;
  err_code: string | null;
  err_fingerprint: string | null;
  [sum: string]: unknown;
}

interface Delta {
  grain: CostGrain;
  bucket: number;
  flow: string;
  outcome: CostOutcome;
  keys: CostKeys;
  sums: number[];
}

const attemptKey = (taskId: string, attempt: number): string => `${taskId}\u0000${attempt}`;

/** The events after which a run may have entered or left `failed` (dispositions.ts settles the same ones). */
function mayChangeFate(event: HivewatchEvent): boolean {
  return event.type === 'runFailed' || event.type === 'externalRunReopened' || (event.type === 'externalRunIdle' && event.error !== undefined);
}

const FATE_COLUMNS = 'fate_category, fate_origin, fate_code, fate_root_code, fate_fingerprint';
const READ_ATTEMPTS = `SELECT task_id, attempt, wall, flow, failed, err_category, err_origin, err_code, err_fingerprint,
    1 AS attempts, COALESCE(input_tokens, 0) AS input_tokens, COALESCE(output_tokens, 0) AS output_tokens,
    COALESCE(cache_read_tokens, 0) AS cache_read_tokens, COALESCE(cache_write_tokens, 0) AS cache_write_tokens,
    COALESCE(cost_usd, 0) AS cost_usd, CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END AS unknown_cost_attempts
  FROM attempt_usage WHERE run_id = ? AND counted = 1`;

const upsertSql = (grain: CostGrain): string => {
  const table = COST_TABLE[grain];
  const columns = [...COST_KEY, ...COST_SUMS];
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
    ON CONFLICT (${COST_KEY.join(', ')}) DO UPDATE SET ${COST_SUMS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')}`;
};
const UPSERT: Record<CostGrain, string> = { hour: upsertSql('hour'), day: upsertSql('day') };
const DROP_EMPTY: Record<CostGrain, string> = {
  hour: `DELETE FROM ${COST_TABLE.hour} WHERE ${COST_KEY.map((c) => `${c} = ?`).join(' AND ')} AND attempts <= 0`,
  day: `DELETE FROM ${COST_TABLE.day} WHERE ${COST_KEY.map((c) => `${c} = ?`).join(' AND ')} AND attempts <= 0`,
};
const GRAIN_MS: Record<CostGrain, number> = { hour: HOUR, day: DAY };

function errorKeysOf(row: AttemptRow): CostKeys | null {
  if (row.err_code === null) return null;
  return { category: row.err_category ?? '', origin: row.err_origin ?? '', code: row.err_code, rootCode: row.err_code, fingerprint: row.err_fingerprint ?? '' };
}

function storedFate(row: Record<string, unknown>): CostKeys | null {
  if (row.fate_fingerprint === null || row.fate_fingerprint === undefined) return null;
  const text = (key: string): string => String(row[key] ?? '');
  return { category: text('fate_category'), origin: text('fate_origin'), code: text('fate_code'), rootCode: text('fate_root_code'), fingerprint: text('fate_fingerprint') };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareDeltas(a: Delta, b: Delta): number {
  return (
    compareText(a.grain, b.grain) || a.bucket - b.bucket || compareText(a.flow, b.flow) || compareText(a.outcome, b.outcome) ||
    compareText(a.keys.category, b.keys.category) || compareText(a.keys.origin, b.keys.origin) || compareText(a.keys.code, b.keys.code) ||
    compareText(a.keys.rootCode, b.keys.rootCode) || compareText(a.keys.fingerprint, b.keys.fingerprint)
  );
}

const keyParams = (d: Delta): unknown[] => [d.bucket, d.flow, d.outcome, d.keys.category, d.keys.origin, d.keys.code, d.keys.rootCode, d.keys.fingerprint];

export class CostBatch {
  private readonly runs = new Map<string, TrackedRun>();

  get size(): number {
    return this.runs.size;
  }

  /** Every reduced event of the batch, with its run after it; `addedAttempt`: its attempt's usage is written in this batch. */
  track(event: HivewatchEvent, run: FateSource, addedAttempt: { taskId: string; attempt: number } | null): void {
    let tracked = this.runs.get(event.runId);
    const changes = mayChangeFate(event);
    if (tracked === undefined) {
      if (addedAttempt === null && !changes) return;
      tracked = { run, added: new Set(), fateMayChange: false };
      this.runs.set(event.runId, tracked);
    }
    tracked.run = run;
    if (addedAttempt !== null) tracked.added.add(attemptKey(addedAttempt.taskId, addedAttempt.attempt));
    if (changes) tracked.fateMayChange = true;
  }

  /** The batch's cost rollup changes, read and written after its usage rows. */
  *writes(): Query<void> {
    if (this.runs.size === 0) return;
    const deltas = new Map<string, Delta>();
    for (const runId of [...this.runs.keys()].sort(compareText)) yield* this.runChanges(runId, this.runs.get(runId) as TrackedRun, deltas);
    const sorted = [...deltas.values()].filter((d) => d.sums.some((v) => v !== 0)).sort(compareDeltas);
    for (const d of sorted) yield* run(UPSERT[d.grain], [...keyParams(d), ...d.sums]);
    for (const d of sorted) if ((d.sums[0] as number) < 0) yield* run(DROP_EMPTY[d.grain], keyParams(d));
  }

  private *runChanges(runId: string, tracked: TrackedRun, deltas: Map<string, Delta>): Query<void> {
    const after = fateOf(tracked.run);
    let before = after;
    if (tracked.fateMayChange) {
      const stored = yield* get<Record<string, unknown>>(`SELECT ${FATE_COLUMNS} FROM run_usage WHERE run_id = ?`, [runId]);
      // No usage row: the run has no spend to move (an attempt of this batch would have made one).
      if (stored === undefined) return;
      before = storedFate(stored);
    }
    const moved = !sameFate(before, after);
    if (!moved && tracked.added.size === 0) return;
    const rows = yield* all<AttemptRow>(READ_ATTEMPTS, [runId]);
    for (const row of rows) {
      const isNew = tracked.added.has(attemptKey(row.task_id, Number(row.attempt)));
      if (!isNew && !moved) continue;
      const attempt = { failed: Number(row.failed) === 1, error: errorKeysOf(row) };
      if (!isNew) addDelta(deltas, row, costBucketOf(before, attempt), -1);
      addDelta(deltas, row, costBucketOf(after, attempt), 1);
    }
    if (moved || after !== null) {
      yield* run(`UPDATE run_usage SET fate_category = ?, fate_origin = ?, fate_code = ?, fate_root_code = ?, fate_fingerprint = ? WHERE run_id = ?`, [
        after?.category ?? null, after?.origin ?? null, after?.code ?? null, after?.rootCode ?? null, after?.fingerprint ?? null, runId,
      ]);
    }
  }
}

function addDelta(deltas: Map<string, Delta>, row: AttemptRow, bucket: { outcome: CostOutcome; keys: CostKeys }, sign: 1 | -1): void {
  const wall = Number(row.wall);
  for (const grain of COST_GRAINS) {
    const start = floorTo(wall, GRAIN_MS[grain]);
    const k = bucket.keys;
    const id = [grain, start, row.flow, bucket.outcome, k.category, k.origin, k.code, k.rootCode, k.fingerprint].join('\u0000');
    let delta = deltas.get(id);
    if (delta === undefined) {
      delta = { grain, bucket: start, flow: row.flow, outcome: bucket.outcome, keys: k, sums: COST_SUMS.map(() => 0) };
      deltas.set(id, delta);
    }
    COST_SUMS.forEach((column, i) => {
      (delta as Delta).sums[i] = ((delta as Delta).sums[i] as number) + sign * Number(row[column] ?? 0);
    });
  }
}
