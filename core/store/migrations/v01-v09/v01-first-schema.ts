import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

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

export const migration: Migration = {
  version: 1,
  name: 'first schema: journal, projections, minute rollups',
  sqlite: firstSchema,
};
