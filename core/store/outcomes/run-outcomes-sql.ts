import { Dialect } from '../queries/plan.js';
import { durationBucketSql } from './durations.js';

/**
 * The runs that ended, per (bucket of their end wall time, flow, status, duration bucket)
 * (migration 21): a flow's runs, failures, success rate and median duration in any window without
 * reading its runs. Kept by triggers on `runs`, like `run_counts_hourly` (migration 19), so every
 * writer of a run row (both engines' journal writers, recovery, prune, the bench's bulk seed)
 * keeps them without knowing them. A run counts once it has an end wall time and an ended
 * status; a session that comes back (ended → running) leaves its bucket again.
 */

export const RUN_OUTCOME_GRAINS = ['hour', 'day'] as const;
export type RunOutcomeGrain = (typeof RUN_OUTCOME_GRAINS)[number];
export const RUN_OUTCOME_TABLE: Record<RunOutcomeGrain, string> = { hour: 'run_outcomes_hour', day: 'run_outcomes_day' };
const GRAIN_SIZE: Record<RunOutcomeGrain, number> = { hour: 3_600_000, day: 86_400_000 };

export const ENDED_STATUSES = ['completed', 'failed', 'cancelled', 'interrupted'] as const;
const ENDED_LIST = ENDED_STATUSES.map((s) => `'${s}'`).join(', ');

/** SQL: this row (`old`, `new`, or a table alias) counts as an ended run; `status` may be the column written so it uses no index. */
export function endedSql(row: string, status = `${row}.status`): string {
  return `${row}.ended_wall IS NOT NULL AND ${status} IN (${ENDED_LIST})`;
}

/** The floor of `wall` to a bucket of `size` ms (integer arithmetic, both engines). */
function bucketSql(wall: string, size: number): string {
  return `(${wall} - (((${wall} % ${size}) + ${size}) % ${size}))`;
}

/** The rollups of every run that has ended, from the runs themselves. */
export function runOutcomeBackfillSql(): string[] {
  return RUN_OUTCOME_GRAINS.map((grain) => {
    const bucket = bucketSql('r.ended_wall', GRAIN_SIZE[grain]);
    const duration = durationBucketSql('r.duration_ms');
    return `INSERT INTO ${RUN_OUTCOME_TABLE[grain]} (bucket, flow, status, duration_bucket, runs)
      SELECT ${bucket}, r.flow, r.status, ${duration}, COUNT(*) FROM runs AS r WHERE ${endedSql('r')}
       GROUP BY ${bucket}, r.flow, r.status, ${duration}`;
  });
}

/** Adds `sign` for the run row `row` (old / new) to both grains, then drops a row that became 0. */
function bumps(dialect: Dialect, row: string, sign: 1 | -1): string {
  return RUN_OUTCOME_GRAINS.map((grain) => {
    const table = RUN_OUTCOME_TABLE[grain];
    const bucket = bucketSql(`${row}.ended_wall`, GRAIN_SIZE[grain]);
    const duration = durationBucketSql(`${row}.duration_ms`);
    // SQLite refuses a qualified column in a trigger's upsert; plpgsql needs one (migrations/v20-v29/v20-group-counts.ts).
    const stored = dialect === Dialect.postgres ? `${table}.runs` : 'runs';
    return `INSERT INTO ${table} (bucket, flow, status, duration_bucket, runs) VALUES (${bucket}, ${row}.flow, ${row}.status, ${duration}, ${sign})
        ON CONFLICT (bucket, flow, status, duration_bucket) DO UPDATE SET runs = ${stored} + excluded.runs;
      DELETE FROM ${table} WHERE bucket = ${bucket} AND flow = ${row}.flow AND status = ${row}.status AND duration_bucket = ${duration} AND runs = 0;`;
  }).join('\n');
}

const WATCHED = ['flow', 'status', 'ended_wall', 'duration_ms'] as const;

function changed(dialect: Dialect): string {
  const [o, n] = dialect === Dialect.postgres ? ['OLD', 'NEW'] : ['old', 'new'];
  const differs = dialect === Dialect.postgres ? 'IS DISTINCT FROM' : 'IS NOT';
  return WATCHED.map((c) => `${o}.${c} ${differs} ${n}.${c}`).join(' OR ');
}

function sqliteTriggers(): string[] {
  const on = `AFTER UPDATE OF ${WATCHED.join(', ')} ON runs`;
  return [
    `CREATE TRIGGER run_outcomes_insert AFTER INSERT ON runs WHEN ${endedSql('new')} BEGIN
      ${bumps(Dialect.sqlite, 'new', 1)}
    END`,
    `CREATE TRIGGER run_outcomes_delete AFTER DELETE ON runs WHEN ${endedSql('old')} BEGIN
      ${bumps(Dialect.sqlite, 'old', -1)}
    END`,
    `CREATE TRIGGER run_outcomes_update_old ${on} WHEN (${changed(Dialect.sqlite)}) AND ${endedSql('old')} BEGIN
      ${bumps(Dialect.sqlite, 'old', -1)}
    END`,
    `CREATE TRIGGER run_outcomes_update_new ${on} WHEN (${changed(Dialect.sqlite)}) AND ${endedSql('new')} BEGIN
      ${bumps(Dialect.sqlite, 'new', 1)}
    END`,
  ];
}

function postgresTriggers(): string[] {
  return [
    `CREATE FUNCTION hivewatch_run_outcomes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Nested: OLD has no fields on an INSERT, NEW none on a DELETE.
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF ${endedSql('OLD')} THEN
          ${bumps(Dialect.postgres, 'OLD', -1)}
        END IF;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        IF ${endedSql('NEW')} THEN
          ${bumps(Dialect.postgres, 'NEW', 1)}
        END IF;
      END IF;
      RETURN NULL;
    END
    $$`,
    'CREATE TRIGGER run_outcomes_insert AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_outcomes()',
    'CREATE TRIGGER run_outcomes_delete AFTER DELETE ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_outcomes()',
    `CREATE TRIGGER run_outcomes_update AFTER UPDATE OF ${WATCHED.join(', ')} ON runs FOR EACH ROW
      WHEN (${changed(Dialect.postgres)}) EXECUTE FUNCTION hivewatch_run_outcomes()`,
  ];
}

export function runOutcomesTriggersSql(dialect: Dialect): string[] {
  return dialect === Dialect.postgres ? postgresTriggers() : sqliteTriggers();
}
