import type Database from 'better-sqlite3';
import { fingerprintOf } from './fingerprint.js';
import { StoreError } from './store-error.js';

/**
 * The schema's history, one function per version (`PRAGMA user_version` is the number applied).
 * A migration is never edited once released: a change is a new migration at the end. Each runs
 * in its own transaction together with its user_version bump, so a crash leaves the database at
 * the previous version, never between two.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Version 1: the first schema (journal, projections, minute rollups). */
function firstSchema(db: Database.Database): void {
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
function rollupGrainsGroupsAndOwners(db: Database.Database): void {
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
    fingerprint: string; category: string; code: string; origin: string; last_message: string;
    count: number; first_seen: number; last_seen: number;
  };
  for (const g of groups.all() as Group[]) {
    const template = fingerprintOf(g.category, g.code, g.origin, g.last_message).template;
    insert.run(g.fingerprint, g.category, g.code, g.origin, template, g.last_message, g.count, g.first_seen, g.last_seen);
  }
}

/**
 * Version 3: checkpoints hold what a step changed instead of the whole state (issue #9). Rows
 * written before keep their whole state (delta = 0), as their journal's events do, so replay
 * parity holds and nothing old needs rewriting; `checkpointStates` reads both kinds.
 */
function checkpointDeltas(db: Database.Database): void {
  db.exec('ALTER TABLE checkpoints ADD COLUMN delta INTEGER NOT NULL DEFAULT 0');
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'first schema: journal, projections, minute rollups', up: firstSchema },
  { version: 2, name: 'hour/day rollups, error groups, run owners, indexes', up: rollupGrainsGroupsAndOwners },
  { version: 3, name: 'checkpoint deltas', up: checkpointDeltas },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration after the database's version, up to `target`. Returns the versions applied. */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): number[] {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      'corrupt',
      `database schema version ${current} is newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  }
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    // The version is read again under the write lock: another process may have migrated meanwhile.
    const ran = db
      .transaction(() => {
        if (schemaVersion(db) >= migration.version) return false;
        migration.up(db);
        db.pragma(`user_version = ${migration.version}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}
