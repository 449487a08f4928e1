import type Database from 'better-sqlite3';
import { all, Dialect, run, runAsync, runSync, type Query } from '../../queries/plan.js';
import { StatementCache } from '../../queries/sql.js';
import { DAY_MS } from '../../rollups/usage-rollups.js';
import {
  attemptErrorKeys,
  ATTEMPTS_WITH_FATE,
  COST_BUCKET_SQL,
  COST_GRAINS,
  COST_KEY,
  COST_SUMS,
  COST_TABLE,
  fateOf,
  GROUPED_COST_SUMS,
} from '../../outcomes/cost-keys.js';
import { runOutcomesTriggersSql, RUN_OUTCOME_GRAINS, RUN_OUTCOME_TABLE, runOutcomeBackfillSql } from '../../outcomes/run-outcomes-sql.js';
import { executorOf } from '../../postgres/connection/execution.js';
import type { Migration } from '../migration.js';

/**
 * Version 21 (what failure costs, and each flow's health, answered from rollups):
 *
 * - `attempt_usage.err_*`: a failed attempt's own error (category, origin, code, fingerprint);
 *   `run_usage.fate_*`: the run's ending error while it is failed (cost-keys.ts), so a failed
 *   run's spend can be moved out of `failed` again when an external session comes back.
 * - `cost_rollups_{hour,day}`: (bucket of the attempt's end, flow, outcome, category, origin,
 *   code, root code, fingerprint) → attempts, tokens, cost, attempts of unknown cost. Kept by the
 *   journal writers (cost-writes.ts); a window reads whole days and hours here and its edges
 *   under an hour from the attempts.
 * - `run_outcomes_{hour,day}`: (bucket of the run's end wall time, flow, status, duration bucket)
 *   → runs, kept by triggers on `runs` (like `run_counts_hourly`), for every run that ended;
 *   `runs_ended_wall` answers a window's edges without touching the rows.
 * - An attempt that reported only zeros (Claude Code's result after a refused request: no tokens,
 *   `total_cost_usd` 0) reported no usage: such rows are removed and the run and flow-day sums
 *   recomputed from the attempts that remain, as the writers now keep them.
 *
 * The PostgreSQL part (below) runs the same statements.
 */

function ddl(dialect: Dialect): string[] {
  const pg = dialect === Dialect.postgres;
  const text = pg ? 'TEXT COLLATE "C"' : 'TEXT';
  const int = pg ? 'BIGINT' : 'INTEGER';
  const real = pg ? 'DOUBLE PRECISION' : 'REAL';
  const withoutRowid = pg ? '' : ' WITHOUT ROWID';
  const added = [
    ...['err_category', 'err_origin', 'err_code', 'err_fingerprint'].map((c) => `ALTER TABLE attempt_usage ADD COLUMN ${c} ${text}`),
    ...['fate_category', 'fate_origin', 'fate_code', 'fate_root_code', 'fate_fingerprint'].map((c) => `ALTER TABLE run_usage ADD COLUMN ${c} ${text}`),
  ];
  const sums = COST_SUMS.map((c) => `${c} ${c === 'cost_usd' ? real : int} NOT NULL`).join(', ');
  const costKey = COST_KEY.map((c) => `${c} ${c === 'bucket' ? int : text} NOT NULL`).join(', ');
  const cost = COST_GRAINS.map((g) => `CREATE TABLE ${COST_TABLE[g]} (${costKey}, ${sums}, PRIMARY KEY (${COST_KEY.join(', ')}))${withoutRowid}`);
  const outcomes = RUN_OUTCOME_GRAINS.map(
    (g) => `CREATE TABLE ${RUN_OUTCOME_TABLE[g]} (bucket ${int} NOT NULL, flow ${text} NOT NULL, status ${text} NOT NULL, duration_bucket ${int} NOT NULL,
      runs ${int} NOT NULL, PRIMARY KEY (bucket, flow, status, duration_bucket))${withoutRowid}`,
  );
  return [
    ...added,
    ...cost,
    // An issue's cost reads its fingerprint across every day.
    `CREATE INDEX cost_rollups_day_fingerprint ON ${COST_TABLE.day} (fingerprint, bucket)`,
    ...outcomes,
    'CREATE INDEX runs_ended_wall ON runs (ended_wall, flow, status, duration_ms) WHERE ended_wall IS NOT NULL',
  ];
}

const USAGE_SUMS = [
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
const PER_ATTEMPT: Record<(typeof USAGE_SUMS)[number], string> = {
  attempts: 'COUNT(*)',
  failed_attempts: 'SUM(failed)',
  input_tokens: 'SUM(COALESCE(input_tokens, 0))',
  output_tokens: 'SUM(COALESCE(output_tokens, 0))',
  cache_read_tokens: 'SUM(COALESCE(cache_read_tokens, 0))',
  cache_write_tokens: 'SUM(COALESCE(cache_write_tokens, 0))',
  cost_usd: 'SUM(COALESCE(cost_usd, 0))',
  failed_cost_usd: 'SUM(CASE WHEN failed = 1 THEN COALESCE(cost_usd, 0) ELSE 0 END)',
  unknown_cost_attempts: 'SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END)',
};

/** Removes attempts that reported only zeros and recomputes the sums the writers keep from the rest. */
const EMPTY_REPORTS = [
  `DELETE FROM attempt_usage WHERE COALESCE(input_tokens, 0) = 0 AND COALESCE(output_tokens, 0) = 0
     AND COALESCE(cache_read_tokens, 0) = 0 AND COALESCE(cache_write_tokens, 0) = 0 AND COALESCE(cost_usd, 0) = 0`,
  `UPDATE run_usage SET ${USAGE_SUMS.map((c) => `${c} = COALESCE((SELECT ${PER_ATTEMPT[c]} FROM attempt_usage WHERE attempt_usage.run_id = run_usage.run_id), 0)`).join(', ')}`,
  'DELETE FROM run_usage WHERE attempts = 0 AND parent_run_id IS NULL',
  'DELETE FROM usage_days',
  `INSERT INTO usage_days (flow, day, ${USAGE_SUMS.join(', ')})
     SELECT flow, (wall / ${DAY_MS}) * ${DAY_MS}, ${USAGE_SUMS.map((c) => PER_ATTEMPT[c]).join(', ')}
       FROM attempt_usage WHERE counted = 1 GROUP BY flow, (wall / ${DAY_MS}) * ${DAY_MS}`,
];

/** The error keys of the failed attempts and the fate of the failed runs stored so far (fingerprints are computed here, not in SQL). */
function* backfillKeys(): Query<void> {
  const attempts = yield* all<{ run_id: string; task_id: string; attempt: number; error: string | null }>(
    `SELECT u.run_id, u.task_id, u.attempt, a.error FROM attempt_usage AS u
       JOIN attempts AS a ON a.run_id = u.run_id AND a.task_id = u.task_id AND a.attempt = u.attempt
      WHERE u.failed = 1 AND a.error IS NOT NULL`,
  );
  for (const row of attempts) {
    const error = parseEnvelope(row.error);
    if (error === null) continue;
    const keys = attemptErrorKeys(error);
    yield* run(
      'UPDATE attempt_usage SET err_category = ?, err_origin = ?, err_code = ?, err_fingerprint = ? WHERE run_id = ? AND task_id = ? AND attempt = ?',
      [keys.category, keys.origin, keys.code, keys.fingerprint, row.run_id, row.task_id, Number(row.attempt)],
    );
  }
  const failed = yield* all<{
    id: string;
    ending_code: string | null;
    ending_category: string | null;
    ending_origin: string | null;
    ending_message: string | null;
    ending_root_code: string | null;
  }>(
    `SELECT r.id, r.ending_code, r.ending_category, r.ending_origin, r.ending_message, r.ending_root_code
       FROM run_usage AS ru JOIN runs AS r ON r.id = ru.run_id WHERE r.status = 'failed'`,
  );
  for (const row of failed) {
    const fate = fateOf({
      status: 'failed',
      endingCode: row.ending_code,
      endingCategory: row.ending_category,
      endingOrigin: row.ending_origin,
      endingMessage: row.ending_message,
      endingRootCode: row.ending_root_code,
    });
    if (fate === null) continue;
    yield* run('UPDATE run_usage SET fate_category = ?, fate_origin = ?, fate_code = ?, fate_root_code = ?, fate_fingerprint = ? WHERE run_id = ?', [
      fate.category,
      fate.origin,
      fate.code,
      fate.rootCode,
      fate.fingerprint,
      row.id,
    ]);
  }
}

function parseEnvelope(text: string | null): { category: string; code: string; origin: string; message: string } | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { category?: unknown; code?: unknown; origin?: unknown; message?: unknown } | null;
    if (value === null || typeof value.code !== 'string') return null;
    return { category: String(value.category ?? ''), code: value.code, origin: String(value.origin ?? ''), message: String(value.message ?? '') };
  } catch {
    return null;
  }
}

/** The cost rollups of every counted attempt stored so far (after the keys are backfilled); the bench's bulk seed writes its own this way too. */
export function costBackfillSql(): string[] {
  return COST_GRAINS.map((grain) => {
    const size = grain === 'day' ? DAY_MS : 3_600_000;
    const bucket = `(u.wall / ${size}) * ${size}`;
    const keys = [
      COST_BUCKET_SQL.outcome,
      COST_BUCKET_SQL.category,
      COST_BUCKET_SQL.origin,
      COST_BUCKET_SQL.code,
      COST_BUCKET_SQL.root_code,
      COST_BUCKET_SQL.fingerprint,
    ];
    return `INSERT INTO ${COST_TABLE[grain]} (${COST_KEY.join(', ')}, ${COST_SUMS.join(', ')})
      SELECT ${bucket}, u.flow, ${keys.join(', ')}, ${GROUPED_COST_SUMS}
        FROM ${ATTEMPTS_WITH_FATE} WHERE u.counted = 1
       GROUP BY ${bucket}, u.flow, ${keys.join(', ')}`;
  });
}

/** Migration 21's statements before and after the key backfill, for one engine. */
function outcomesMigrationSql(dialect: Dialect): { before: string[]; after: string[] } {
  return {
    before: [...ddl(dialect), ...EMPTY_REPORTS],
    after: [...costBackfillSql(), ...runOutcomeBackfillSql(), ...runOutcomesTriggersSql(dialect)],
  };
}

/** The key backfill as an engine-neutral query (run with runSync here, runAsync on PostgreSQL). */
function outcomesKeyBackfill(): Query<void> {
  return backfillKeys();
}

function runOutcomesAndCost(db: Database.Database): void {
  const sql = outcomesMigrationSql(Dialect.sqlite);
  for (const statement of sql.before) db.exec(statement);
  runSync(new StatementCache(db), backfillKeys());
  for (const statement of sql.after) db.exec(statement);
}

export const migration: Migration = {
  version: 21,
  name: 'what failure costs and how each flow fares: cost by outcome, runs ended per flow, status and duration',
  sqlite: runOutcomesAndCost,
  // On PostgreSQL: the same statements and key backfill, plpgsql triggers.
  postgres: async (client) => {
    const sql = outcomesMigrationSql(Dialect.postgres);
    for (const statement of sql.before) await client.query(statement);
    await runAsync(executorOf(client), outcomesKeyBackfill());
    for (const statement of sql.after) await client.query(statement);
  },
};
