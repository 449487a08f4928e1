import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 3: checkpoints hold what a step changed instead of the whole state. Rows
 * written before keep their whole state (delta = 0), as their journal's events do, so replay
 * parity holds and nothing old needs rewriting; `checkpointStates` reads both kinds.
 */
function checkpointDeltas(db: Database.Database): void {
  db.exec('ALTER TABLE checkpoints ADD COLUMN delta INTEGER NOT NULL DEFAULT 0');
}

export const migration: Migration = {
  version: 3,
  name: 'checkpoint deltas',
  sqlite: checkpointDeltas,
};
