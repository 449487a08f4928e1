import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 5: the journal's order of commit and cross-process run commands.
 *
 * `events.commit_seq` numbers every event in the order its transaction committed. It is taken
 * from the one-row `journal_head` counter inside the writer's IMMEDIATE transaction (SQLite has
 * one writer at a time, so counter order is commit order), never from MAX(commit_seq): prune may
 * delete the newest rows and a reused number would be missed by a tail. Existing rows (the table
 * has no rowid) are numbered by wall time, then run and seq.
 *
 * `run_commands` holds cancel / skipBackoff commands for a run another process hosts: the host
 * picks up its pending ones and records the outcome; the journal acknowledges the command id.
 */
function commitOrderAndCommands(db: Database.Database): void {
  db.exec(`
    ALTER TABLE events ADD COLUMN commit_seq INTEGER;
    CREATE TEMP TABLE commit_order AS
      SELECT run_id, seq, ROW_NUMBER() OVER (ORDER BY COALESCE(wall, ts), run_id, seq) AS n FROM events;
    UPDATE events SET commit_seq = o.n FROM temp.commit_order AS o WHERE o.run_id = events.run_id AND o.seq = events.seq;
    DROP TABLE temp.commit_order;
    CREATE UNIQUE INDEX events_by_commit ON events (commit_seq);
    CREATE TABLE journal_head (
      id INTEGER PRIMARY KEY CHECK (id = 1), commit_seq INTEGER NOT NULL
    );
    INSERT INTO journal_head (id, commit_seq) SELECT 1, COALESCE(MAX(commit_seq), 0) FROM events;

    CREATE TABLE run_commands (
      command_id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      task_id TEXT,
      reason TEXT,
      created_at INTEGER NOT NULL,
      state TEXT NOT NULL DEFAULT 'pending',
      accepted INTEGER,
      message TEXT,
      done_at INTEGER
    );
    CREATE INDEX run_commands_pending ON run_commands (run_id) WHERE state = 'pending';
  `);
}

export const migration: Migration = {
  version: 5,
  name: 'commit order of the journal, cross-process run commands',
  sqlite: commitOrderAndCommands,
};
