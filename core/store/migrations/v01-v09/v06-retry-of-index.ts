import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 6 (lineage both ways): the runs retried from a run are found through
 * an index, as the runs resumed from one already are (version 2).
 */
function retryOfIndex(db: Database.Database): void {
  db.exec('CREATE INDEX runs_retry_of ON runs (retry_of, started_at, id) WHERE retry_of IS NOT NULL;');
}

export const migration: Migration = {
  version: 6,
  name: 'index of runs by the run they retry',
  sqlite: retryOfIndex,
};
