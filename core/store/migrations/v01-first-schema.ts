import type Database from 'better-sqlite3';
import { fingerprintOf } from '../projection/fingerprint.js';
import { STATUS_RANK_SQL } from '../schema-constants.js';

/**
 * The schema's first four versions (core/store/migrations.ts lists every version and runs them):
 * the journal and its projections, the rollup grains and groups, checkpoint deltas, wall times.
 * Released migrations: never edited, a change is a new version at the end.
 */

/** Version 1: the first schema (journal, projections, minute rollups). */
export function firstSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE events (
      run_id  TEXT    NOT NULL,
      seq     INTEGER NOT NULL,
      type    TEXT    NOT NULL,
      ts      INTEGER NOT NULL,
      payload TEXT    NOT NULL,
      PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;

    CREATE TABLE runs (
      id TEXT PRIMARY KEY,
      flow TEXT NOT NULL, flow_name TEXT NOT NULL, status TEXT NOT NULL,
      started_at INTEGER NOT NULL, ended_at INTEGER, duration_ms INTEGER,
      updated_at INTEGER NOT NULL, last_seq INTEGER NOT NULL,
      max_steps INTEGER, concurrency INTEGER, clock TEXT, default_agent TEXT,
      current_step INTEGER NOT NULL, steps INTEGER NOT NULL, last_checkpoint_step INTEGER NOT NULL,
      task_count INTEGER NOT NULL, attempt_count INTEGER NOT NULL, error_count INTEGER NOT NULL,
      resumed_from TEXT, retry_of TEXT, resume_step INTEGER NOT NULL,
      last_error_code TEXT, last_error_category TEXT, last_error_message TEXT,
      next_attempt_at INTEGER, cancel_command_id TEXT, cancel_reason TEXT,
      epoch INTEGER NOT NULL, error TEXT
    );
    CREATE INDEX runs_started ON runs (started_at, id);
    CREATE INDEX runs_status ON runs (status, started_at);
    CREATE INDEX runs_flow ON runs (flow, started_at);

    CREATE TABLE steps (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      step INTEGER NOT NULL, status TEXT NOT NULL,
      started_at INTEGER NOT NULL, ended_at INTEGER,
      task_count INTEGER NOT NULL, frontier TEXT NOT NULL, writes INTEGER NOT NULL, checkpointed INTEGER NOT NULL,
      PRIMARY KEY (run_id, step)
    ) WITHOUT ROWID;

    CREATE TABLE tasks (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      task_id TEXT NOT NULL, step INTEGER NOT NULL, ordinal INTEGER NOT NULL,
      name TEXT NOT NULL, agent TEXT, status TEXT NOT NULL,
      max_attempts INTEGER, attempts INTEGER NOT NULL,
      started_at INTEGER, ended_at INTEGER, output TEXT,
      error TEXT, error_code TEXT, next_attempt_at INTEGER, stale_receipts INTEGER NOT NULL,
      PRIMARY KEY (run_id, task_id)
    ) WITHOUT ROWID;

    CREATE TABLE attempts (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      task_id TEXT NOT NULL, attempt INTEGER NOT NULL, step INTEGER NOT NULL, ordinal INTEGER NOT NULL,
      status TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, duration_ms INTEGER,
      error TEXT, error_code TEXT, error_category TEXT,
      delay_ms INTEGER, strategy TEXT, next_attempt_at INTEGER, backoff_skipped_by TEXT,
      PRIMARY KEY (run_id, task_id, attempt)
    ) WITHOUT ROWID;

    CREATE TABLE errors (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      seq INTEGER NOT NULL, ts INTEGER NOT NULL,
      category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL, message TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      caught INTEGER NOT NULL, retrying INTEGER NOT NULL, recoverable INTEGER NOT NULL,
      recovery_hint TEXT, context TEXT NOT NULL, timestamp INTEGER NOT NULL,
      project TEXT, flow TEXT NOT NULL, step INTEGER, task_id TEXT, attempt INTEGER,
      PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX errors_ts ON errors (ts);

    CREATE TABLE checkpoints (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      step INTEGER NOT NULL, ts INTEGER NOT NULL, channels TEXT NOT NULL,
      PRIMARY KEY (run_id, step)
    ) WITHOUT ROWID;

    CREATE TABLE error_rollups (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow)
    ) WITHOUT ROWID;
  `);
}

/**
 * Version 2: coarser rollups (hour, day) so a long window reads few buckets, the error-group
 * table, run ownership for safe start-up recovery, and the indexes prune / groups / resume need.
 * Backfills everything from what version 1 stored.
 */
export function rollupGrainsGroupsAndOwners(db: Database.Database): void {
  const rollupTable = (name: string): string => `
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow)
    ) WITHOUT ROWID;`;
  const floor = (size: number): string => `bucket - (((bucket % ${size}) + ${size}) % ${size})`;
  db.exec(`
    ${rollupTable('error_rollups_hour')}
    ${rollupTable('error_rollups_day')}
    INSERT INTO error_rollups_hour (bucket, category, origin, code, flow, count)
      SELECT ${floor(3_600_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO error_rollups_day (bucket, category, origin, code, flow, count)
      SELECT ${floor(86_400_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;

    CREATE TABLE error_groups (
      fingerprint TEXT PRIMARY KEY,
      category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL,
      template TEXT NOT NULL, last_message TEXT NOT NULL,
      count INTEGER NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL
    );
    CREATE INDEX errors_fingerprint ON errors (fingerprint, ts);

    CREATE TABLE run_hosts (
      run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL, instance TEXT NOT NULL,
      claimed_at INTEGER NOT NULL
    );
    CREATE INDEX runs_ended ON runs (ended_at);
    CREATE INDEX runs_resumed_from ON runs (resumed_from) WHERE resumed_from IS NOT NULL;
  `);

  const groups = db.prepare(
    `SELECT fingerprint, category, code, origin, COUNT(*) AS count, MIN(ts) AS first_seen, MAX(ts) AS last_seen,
       (SELECT message FROM errors AS latest WHERE latest.fingerprint = e.fingerprint ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 1) AS last_message
     FROM errors AS e GROUP BY fingerprint`,
  );
  const insert = db.prepare(
    `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, first_seen, last_seen)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  type Group = {
    fingerprint: string;
    category: string;
    code: string;
    origin: string;
    last_message: string;
    count: number;
    first_seen: number;
    last_seen: number;
  };
  for (const g of groups.all() as Group[]) {
    const template = fingerprintOf(g.category, g.code, g.origin, g.last_message).template;
    insert.run(g.fingerprint, g.category, g.code, g.origin, template, g.last_message, g.count, g.first_seen, g.last_seen);
  }
}

/**
 * Version 3: checkpoints hold what a step changed instead of the whole state. Rows
 * written before keep their whole state (delta = 0), as their journal's events do, so replay
 * parity holds and nothing old needs rewriting; `checkpointStates` reads both kinds.
 */
export function checkpointDeltas(db: Database.Database): void {
  db.exec('ALTER TABLE checkpoints ADD COLUMN delta INTEGER NOT NULL DEFAULT 0');
}

/**
 * Version 4: wall-clock times, handled/unhandled errors, group trends, the run list's keyset
 * indexes, and a settings table.
 *
 * - `events.wall`: the wall-clock time an event was journaled at, NULL when it equals `ts` (a
 *   real clock). `runs.started_wall` / `ended_wall` carry it for the run; `errors.ts` becomes
 *   the wall time (windows, rollups and groups are real time). Journals written before this by
 *   virtual-clock runs have no real times: their times are kept, capped at the migration time,
 *   so nothing lies in the future.
 * - Rollups get a `handled` dimension (retried or caught = 1, unhandled = 0) and are rebuilt;
 *   groups count their unhandled members; `error_group_trend_{hour,day}` count each group per
 *   bucket and flow (every sparkline in one read).
 * - Indexes for each sort and filter of the run list (keyset pages: sort key, started_at, id).
 * - `settings`: small key/value facts of the database (the browser shell's token and port).
 */
export function wallClockHandledTrendsIndexesSettings(db: Database.Database): void {
  const now = Date.now();
  const virtualRuns = "run_id IN (SELECT id FROM runs WHERE clock = 'virtual')";
  db.exec(`
    ALTER TABLE events ADD COLUMN wall INTEGER;
    ALTER TABLE runs ADD COLUMN started_wall INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN ended_wall INTEGER;
  `);
  db.prepare(`UPDATE events SET wall = ? WHERE ts > ? AND ${virtualRuns}`).run(now, now);
  db.prepare(
    `UPDATE runs SET
       started_wall = CASE WHEN clock = 'virtual' THEN MIN(started_at, @now) ELSE started_at END,
       ended_wall = CASE WHEN ended_at IS NULL THEN NULL WHEN clock = 'virtual' THEN MIN(ended_at, @now) ELSE ended_at END`,
  ).run({ now });
  db.prepare(`UPDATE errors SET ts = ? WHERE ts > ? AND ${virtualRuns}`).run(now, now);

  const floor = (size: number): string => `ts - (((ts % ${size}) + ${size}) % ${size})`;
  const rollup = (name: string, size: number): string => `
    DROP TABLE IF EXISTS ${name};
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      handled INTEGER NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow, handled)
    ) WITHOUT ROWID;
    INSERT INTO ${name} (bucket, category, origin, code, flow, handled, count)
      SELECT ${floor(size)}, category, origin, code, flow, (caught OR retrying), COUNT(*) FROM errors GROUP BY 1, 2, 3, 4, 5, 6;`;
  const trend = (name: string, size: number): string => `
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, fingerprint TEXT NOT NULL, flow TEXT NOT NULL, handled INTEGER NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (fingerprint, bucket, flow, handled)
    ) WITHOUT ROWID;
    CREATE INDEX ${name}_bucket ON ${name} (bucket);
    INSERT INTO ${name} (bucket, fingerprint, flow, handled, count)
      SELECT ${floor(size)}, fingerprint, flow, (caught OR retrying), COUNT(*) FROM errors GROUP BY 1, 2, 3, 4;`;
  db.exec(`
    ${rollup('error_rollups', 60_000)}
    ${rollup('error_rollups_hour', 3_600_000)}
    ${rollup('error_rollups_day', 86_400_000)}
    ${trend('error_group_trend_hour', 3_600_000)}
    ${trend('error_group_trend_day', 86_400_000)}

    ALTER TABLE error_groups ADD COLUMN unhandled INTEGER NOT NULL DEFAULT 0;
    UPDATE error_groups SET (count, unhandled, first_seen, last_seen) = (
      SELECT COUNT(*), COALESCE(SUM(NOT (caught OR retrying)), 0), COALESCE(MIN(ts), error_groups.first_seen), COALESCE(MAX(ts), error_groups.last_seen)
      FROM errors WHERE errors.fingerprint = error_groups.fingerprint
    );

    CREATE INDEX runs_last_error_code ON runs (last_error_code, started_at, id) WHERE last_error_code IS NOT NULL;
    CREATE INDEX runs_last_error_category ON runs (last_error_category, started_at, id) WHERE last_error_category IS NOT NULL;
    CREATE INDEX runs_by_ended ON runs (COALESCE(ended_at, 9007199254740991), started_at, id);
    CREATE INDEX runs_by_duration ON runs (COALESCE(duration_ms, -1), started_at, id);
    CREATE INDEX runs_by_errors ON runs (error_count, started_at, id);
    CREATE INDEX runs_by_attempts ON runs (attempt_count, started_at, id);
    CREATE INDEX runs_by_step ON runs (current_step, started_at, id);
    CREATE INDEX runs_by_status ON runs (${STATUS_RANK_SQL}, (-started_at), id);
    CREATE INDEX runs_by_flow_name ON runs (flow_name, (-started_at), id);

    CREATE TABLE settings (
      key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL
    ) WITHOUT ROWID;
  `);
}
