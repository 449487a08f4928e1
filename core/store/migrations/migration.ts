import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * One schema version on both engines: one number means one schema. SQLite walks every version's
 * `sqlite` part (sqlite/migrate.ts); PostgreSQL starts at its baseline, version 9, and walks the
 * `postgres` parts from there (postgres/migrate.ts). A landed version is never edited: a change
 * is a new version at the end (sql-digests.test.ts pins the SQL each one runs).
 */
export interface Migration {
  version: number;
  /** What the version adds, as an operator reads it (PostgreSQL records it in `schema_version`). */
  name: string;
  /** The name PostgreSQL's `schema_version` row records, where its step differs from SQLite's (its baseline at 9). */
  postgresName?: string;
  /** Runs inside the runner's IMMEDIATE transaction, with the `user_version` bump. */
  sqlite?: (db: Database.Database) => void;
  /** Runs inside the runner's transaction, under its advisory lock, before the `schema_version` row. */
  postgres?: (client: pg.PoolClient) => Promise<void>;
}
