import type Database from 'better-sqlite3';
import { STATUS_RANK_SQL } from '../../schema-constants.js';
import type { Migration } from '../migration.js';

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
function wallClockHandledTrendsIndexesSettings(db: Database.Database): void {
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

export const migration: Migration = {
  version: 4,
  name: 'wall-clock times, handled errors, group trends, run list indexes, settings',
  sqlite: wallClockHandledTrendsIndexesSettings,
};
