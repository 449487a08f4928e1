import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 29 (a run's open rows found without reading its closed ones): when a writer first
 * touches a run (the first event after `serve` started, say) it loads the run's state, which
 * includes the occurrences still `pending` (not yet settled as handled or unhandled) and, on
 * SQLite, the attempts still `running`. Both were a read of every row the run has, settled or
 * not, so a long run cost its writer in proportion to its history. Partial indexes hold only
 * the open rows, and the load reads those alone (SQLite's writer names them in its reads,
 * core/store/sqlite/journal-writer.ts, as its planner would otherwise keep to the table's key).
 * An agent session's occurrences stay pending while it runs, so for a session the load is still
 * as long as its errors (docs/benches.md, "The same screens under load").
 *
 * PostgreSQL gets the pending-occurrences index: its writer reads those the same way. Its writer
 * reads a run's attempts whole (one round trip, core/store/postgres/writer/run-states.ts), which
 * an index of running attempts would not serve, so that one is SQLite's alone.
 */
function openRowsSql(dialect: Dialect): string[] {
  const pending = "CREATE INDEX errors_pending ON errors (run_id, seq) WHERE disposition = 'pending'";
  return dialect === Dialect.sqlite ? [pending, "CREATE INDEX attempts_running ON attempts (run_id) WHERE status = 'running'"] : [pending];
}

function openRowsIndexed(db: Database.Database): void {
  for (const sql of openRowsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 29,
  name: "a run's open rows indexed: pending occurrences, running attempts",
  sqlite: openRowsIndexed,
  postgres: async (client) => {
    for (const sql of openRowsSql(Dialect.postgres)) await client.query(sql);
  },
};
