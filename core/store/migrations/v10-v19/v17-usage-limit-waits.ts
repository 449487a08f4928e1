import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 17 (usage limits you can see): `waiting_until` on tasks and runs,
 * the reset a task's backoff waits out after a subscription usage limit and the earliest such
 * among a run's tasks (core/store/projection/projections.ts). NULL for every row before: a run migrated
 * while it waited shows the plain "retrying" until its next retryScheduled. The partial index
 * serves the `waiting-limit` filter and its count without touching the runs that do not wait.
 * The PostgreSQL part below runs the same SQL (the index too).
 */
const USAGE_LIMIT_WAIT_SQL = [
  'ALTER TABLE tasks ADD COLUMN waiting_until BIGINT',
  'ALTER TABLE runs ADD COLUMN waiting_until BIGINT',
  'CREATE INDEX runs_waiting_until ON runs (waiting_until) WHERE waiting_until IS NOT NULL',
] as const;

function usageLimitWaits(db: Database.Database): void {
  for (const sql of USAGE_LIMIT_WAIT_SQL) db.exec(sql.replace('BIGINT', 'INTEGER'));
}

export const migration: Migration = {
  version: 17,
  name: 'usage-limit waits: the reset a task and its run wait for',
  sqlite: usageLimitWaits,
  postgres: async (client) => {
    for (const sql of USAGE_LIMIT_WAIT_SQL) await client.query(sql);
  },
};
