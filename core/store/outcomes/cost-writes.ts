import type { HivewatchEvent } from '../../base/events.js';
import { all, type Query } from '../queries/plan.js';
import { floorTo, DAY, HOUR } from '../rollups/rollups.js';
import type { RunRow } from '../projection/schema.js';
import { costBucketOf, COST_GRAINS, COST_KEY, COST_SUMS, COST_TABLE, fateOf, sameFate, type CostGrain, type CostKeys, type CostOutcome } from './cost-keys.js';

/**
 * The cost rollups' writes for one batch (cost-keys.ts), the same for both engines' journal
 * writers. Reading comes first (`reads`, before the batch's writes: PostgreSQL sends those in
 * one round trip, where nothing can be read back), then the writes are plain statements:
 *
 * - each attempt the batch added goes to its bucket straight from its new `attempt_usage` row
 *   (which says whether it counts), its keys known here;
 * - a run whose failure changed (it ended failed, or an external session came back) has every
 *   earlier attempt moved from the bucket its stored fate put it in to the new one, from the
 *   rows `reads` found.
 *
 * The changes are written in key order, so hosts sharing a PostgreSQL database lock shared rows
 * in one order.
 */

type FateSource = Pick<RunRow, 'status' | 'endingCode' | 'endingCategory' | 'endingOrigin' | 'endingMessage' | 'endingRootCode'>;

/** An attempt the batch added, as the usage writes insert it. */
export interface AddedAttempt {
  flow: string;
  taskId: string;
  attempt: number;
  wall: number;
  failed: boolean;
  error: CostKeys | null;
}

interface TrackedRun {
  run: FateSource;
  added: AddedAttempt[];
  /** The batch holds an event that may have made the run failed, or no longer failed. */
  fateMayChange: boolean;
  /** The batch starts the run: nothing of it is stored yet, so there is nothing to read or move. */
  startsHere: boolean;
}

interface StoredAttempt {
  run_id: string;
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

/** One statement of the batch's cost writes, with the key it writes (for the order). */
interface KeyedWrite extends SqlWrite {
  key: CostRowKey;
}

interface CostRowKey {
  grain: CostGrain;
  bucket: number;
  flow: string;
  outcome: CostOutcome;
  keys: CostKeys;
}

interface Delta extends CostRowKey {
  sums: number[];
}

export interface SqlWrite {
  sql: string;
  params: unknown[];
}

const attemptKey = (taskId: string, attempt: number): string => `${taskId}\u0000${attempt}`;

/** The events after which a run may have entered or left `failed` (dispositions.ts settles the same ones). */
function mayChangeFate(event: HivewatchEvent): boolean {
  return event.type === 'runFailed' || event.type === 'externalRunReopened' || (event.type === 'externalRunIdle' && event.error !== undefined);
}

const COLUMNS = [...COST_KEY, ...COST_SUMS];
const conflict = (table: string): string =>
  `ON CONFLICT (${COST_KEY.join(', ')}) DO UPDATE SET ${COST_SUMS.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')}`;

/** A delta's row, upserted. */
const UPSERT: Record<CostGrain, string> = {
  hour: `INSERT INTO ${COST_TABLE.hour} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ${conflict(COST_TABLE.hour)}`,
  day: `INSERT INTO ${COST_TABLE.day} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ${conflict(COST_TABLE.day)}`,
};

/** An attempt's new row added to its bucket, if it counts (its key given, its figures read from the row). */
const ROW_FIGURES = `1, COALESCE(u.input_tokens, 0), COALESCE(u.output_tokens, 0), COALESCE(u.cache_read_tokens, 0), COALESCE(u.cache_write_tokens, 0),
  COALESCE(u.cost_usd, 0), CASE WHEN u.cost_usd IS NULL THEN 1 ELSE 0 END`;
const addRowSql = (grain: CostGrain): string =>
  `INSERT INTO ${COST_TABLE[grain]} (${COLUMNS.join(', ')})
   SELECT CAST(? AS BIGINT), u.flow, ?, ?, ?, ?, ?, ?, ${ROW_FIGURES} FROM attempt_usage AS u
    WHERE u.run_id = ? AND u.task_id = ? AND u.attempt = ? AND u.counted = 1 ${conflict(COST_TABLE[grain])}`;
const ADD_ROW: Record<CostGrain, string> = { hour: addRowSql('hour'), day: addRowSql('day') };

const DROP_EMPTY: Record<CostGrain, string> = {
  hour: `DELETE FROM ${COST_TABLE.hour} WHERE ${COST_KEY.map((c) => `${c} = ?`).join(' AND ')} AND attempts <= 0`,
  day: `DELETE FROM ${COST_TABLE.day} WHERE ${COST_KEY.map((c) => `${c} = ?`).join(' AND ')} AND attempts <= 0`,
};
const GRAIN_MS: Record<CostGrain, number> = { hour: HOUR, day: DAY };

const SET_FATE = 'UPDATE run_usage SET fate_category = ?, fate_origin = ?, fate_code = ?, fate_root_code = ?, fate_fingerprint = ? WHERE run_id = ?';

function errorKeysOf(row: StoredAttempt): CostKeys | null {
  if (row.err_code === null) return null;
  return { category: row.err_category ?? '', origin: row.err_origin ?? '', code: row.err_code, rootCode: row.err_code, fingerprint: row.err_fingerprint ?? '' };
}

function storedFate(row: Record<string, unknown>): CostKeys | null {
  if (row.fate_fingerprint === null || row.fate_fingerprint === undefined) return null;
  const text = (key: string): string => String(row[key] ?? '');
  return {
    category: text('fate_category'),
    origin: text('fate_origin'),
    code: text('fate_code'),
    rootCode: text('fate_root_code'),
    fingerprint: text('fate_fingerprint'),
  };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareKeys(a: CostRowKey, b: CostRowKey): number {
  return (
    compareText(a.grain, b.grain) ||
    a.bucket - b.bucket ||
    compareText(a.flow, b.flow) ||
    compareText(a.outcome, b.outcome) ||
    compareText(a.keys.category, b.keys.category) ||
    compareText(a.keys.origin, b.keys.origin) ||
    compareText(a.keys.code, b.keys.code) ||
    compareText(a.keys.rootCode, b.keys.rootCode) ||
    compareText(a.keys.fingerprint, b.keys.fingerprint)
  );
}

const keyParams = (d: CostRowKey): unknown[] => [d.bucket, d.flow, d.outcome, d.keys.category, d.keys.origin, d.keys.code, d.keys.rootCode, d.keys.fingerprint];
const inList = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

export class CostBatch {
  private readonly runs = new Map<string, TrackedRun>();

  get size(): number {
    return this.runs.size;
  }
  /** Runs the batch starts (their first event is in it). */
  private readonly startedHere = new Set<string>();
  /** What `reads` found for the runs whose failure may have changed: their stored fate and their earlier counted attempts. */
  private readonly stored = new Map<string, { fate: CostKeys | null; attempts: StoredAttempt[] }>();

  /** Every reduced event of the batch, with its run after it and the attempt whose usage it adds (if any). */
  track(event: HivewatchEvent, run: FateSource, added: AddedAttempt | null): void {
    let tracked = this.runs.get(event.runId);
    const changes = mayChangeFate(event);
    if (tracked === undefined) {
      if (event.type === 'runStarted') {
        this.startedHere.add(event.runId);
        return;
      }
      if (added === null && !changes) return;
      tracked = { run, added: [], fateMayChange: false, startsHere: this.startedHere.has(event.runId) };
      this.runs.set(event.runId, tracked);
    }
    tracked.run = run;
    if (added !== null) tracked.added.push(added);
    if (changes) tracked.fateMayChange = true;
  }

  /** Reads what moving spend needs, before the batch's writes (a run's attempts of this batch are told apart by key). */
  *reads(): Query<void> {
    const ids = [...this.runs]
      .filter(([, t]) => t.fateMayChange && !t.startsHere)
      .map(([id]) => id)
      .sort(compareText);
    if (ids.length === 0) return;
    const fates = yield* all<Record<string, unknown>>(
      `SELECT run_id, fate_category, fate_origin, fate_code, fate_root_code, fate_fingerprint FROM run_usage WHERE run_id IN (${inList(ids.length)})`,
      ids,
    );
    for (const row of fates) this.stored.set(String(row.run_id), { fate: storedFate(row), attempts: [] });
    const attempts = yield* all<StoredAttempt>(
      `SELECT run_id, task_id, attempt, wall, flow, failed, err_category, err_origin, err_code, err_fingerprint,
          1 AS attempts, COALESCE(input_tokens, 0) AS input_tokens, COALESCE(output_tokens, 0) AS output_tokens,
          COALESCE(cache_read_tokens, 0) AS cache_read_tokens, COALESCE(cache_write_tokens, 0) AS cache_write_tokens,
          COALESCE(cost_usd, 0) AS cost_usd, CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END AS unknown_cost_attempts
        FROM attempt_usage WHERE run_id IN (${inList(ids.length)}) AND counted = 1`,
      ids,
    );
    for (const row of attempts) this.stored.get(row.run_id)?.attempts.push(row);
  }

  /** The batch's cost writes, after its usage rows are written (`reads` ran first). */
  writes(): SqlWrite[] {
    const keyed: KeyedWrite[] = [];
    const deltas = new Map<string, Delta>();
    const fates: SqlWrite[] = [];
    for (const runId of [...this.runs.keys()].sort(compareText)) {
      const tracked = this.runs.get(runId) as TrackedRun;
      const after = fateOf(tracked.run);
      const stored = tracked.fateMayChange ? this.stored.get(runId) : undefined;
      if (stored !== undefined && !sameFate(stored.fate, after)) {
        const fresh = new Set(tracked.added.map((a) => attemptKey(a.taskId, a.attempt)));
        for (const row of stored.attempts) {
          if (fresh.has(attemptKey(row.task_id, Number(row.attempt)))) continue;
          const attempt = { failed: Number(row.failed) === 1, error: errorKeysOf(row) };
          addDelta(deltas, row, costBucketOf(stored.fate, attempt), -1);
          addDelta(deltas, row, costBucketOf(after, attempt), 1);
        }
      }
      for (const added of tracked.added) {
        const bucket = costBucketOf(after, added);
        for (const grain of COST_GRAINS) {
          const key: CostRowKey = { grain, bucket: floorTo(added.wall, GRAIN_MS[grain]), flow: added.flow, outcome: bucket.outcome, keys: bucket.keys };
          const k = bucket.keys;
          keyed.push({
            key,
            sql: ADD_ROW[grain],
            params: [key.bucket, bucket.outcome, k.category, k.origin, k.code, k.rootCode, k.fingerprint, runId, added.taskId, added.attempt],
          });
        }
      }
      if ((stored !== undefined && !sameFate(stored.fate, after)) || (after !== null && tracked.added.length > 0)) {
        fates.push({
          sql: SET_FATE,
          params: [after?.category ?? null, after?.origin ?? null, after?.code ?? null, after?.rootCode ?? null, after?.fingerprint ?? null, runId],
        });
      }
    }
    const moved = [...deltas.values()].filter((d) => d.sums.some((v) => v !== 0));
    for (const d of moved) keyed.push({ key: d, sql: UPSERT[d.grain], params: [...keyParams(d), ...d.sums] });
    keyed.sort((a, b) => compareKeys(a.key, b.key));
    const emptied = moved
      .filter((d) => (d.sums[0] as number) < 0)
      .sort(compareKeys)
      .map((d) => ({ sql: DROP_EMPTY[d.grain], params: keyParams(d) }));
    return [...keyed.map(({ sql, params }) => ({ sql, params })), ...emptied, ...fates];
  }
}

function addDelta(deltas: Map<string, Delta>, row: StoredAttempt, bucket: { outcome: CostOutcome; keys: CostKeys }, sign: 1 | -1): void {
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
    const sums = delta.sums;
    COST_SUMS.forEach((column, i) => {
      sums[i] = (sums[i] as number) + sign * Number(row[column] ?? 0);
    });
  }
}
