import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 8: OpenTelemetry ingest: `otel_payloads` remembers the digest of every ingested OTLP request so an
 * exporter's retry of the same payload is not counted twice; `external_runs` is the bookkeeping
 * of each agent session seen through telemetry (its run, when it last sent something, whether it
 * went quiet, its open prompt task, and the Hivewatch attempt that ran it when there was one).
 */
function otelIngest(db: Database.Database): void {
  db.exec(`
    CREATE TABLE otel_payloads (
      digest TEXT PRIMARY KEY, received_at INTEGER NOT NULL, records INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE external_runs (
      session_key TEXT PRIMARY KEY,
      run_id TEXT NOT NULL UNIQUE,
      origin TEXT NOT NULL,
      session_id TEXT NOT NULL,
      parent_run_id TEXT, parent_task_id TEXT, parent_attempt INTEGER,
      last_event_at INTEGER NOT NULL,
      idle INTEGER NOT NULL DEFAULT 0,
      open_task TEXT,
      open_task_attempts INTEGER NOT NULL DEFAULT 0,
      task_count INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    CREATE INDEX external_runs_quiet ON external_runs (idle, last_event_at);
    CREATE INDEX external_runs_parent ON external_runs (parent_run_id, parent_task_id, parent_attempt) WHERE parent_run_id IS NOT NULL;
  `);
}

export const migration: Migration = {
  version: 8,
  name: 'OpenTelemetry ingest: payload digests, external runs',
  sqlite: otelIngest,
};
