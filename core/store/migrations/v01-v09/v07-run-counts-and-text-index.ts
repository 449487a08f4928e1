import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 7: what the run list needs over a whole history.
 *
 * - `run_counts`: runs per (flow, status), kept by triggers on `runs`: the status chips and the
 *   flow picker read it instead of counting the table when only status and flow are filtered;
 *   `runs_started_counts` covers the counts of a start-time window (an index-only range).
 * - `run_text`: a trigram full-text index (FTS5, contentless, case-insensitive) over each run's
 *   id, flow file, flow name and last error message: a text search reads the index instead of
 *   scanning every row with LIKE. Its rowids are our own (`run_text_docs`), not the rowids of
 *   `runs`, which VACUUM may renumber.
 */
function runCountsAndTextIndex(db: Database.Database): void {
  const bump = (flow: string, status: string, by: number): string =>
    `INSERT INTO run_counts (flow, status, count) VALUES (${flow}, ${status}, ${by})
       ON CONFLICT (flow, status) DO UPDATE SET count = count + ${by};`;
  const doc = (run: string): string => `(SELECT doc FROM run_text_docs WHERE id = ${run}.id)`;
  const index = (run: string): string =>
    `INSERT INTO run_text (rowid, id, flow, flow_name, message)
       VALUES (${doc(run)}, ${run}.id, ${run}.flow, ${run}.flow_name, COALESCE(${run}.last_error_message, ''));`;
  db.exec(`
    CREATE TABLE run_counts (
      flow TEXT NOT NULL, status TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (flow, status)
    ) WITHOUT ROWID;
    INSERT INTO run_counts (flow, status, count) SELECT flow, status, COUNT(*) FROM runs GROUP BY flow, status;
    CREATE INDEX runs_started_counts ON runs (started_at, flow, status);
    CREATE TRIGGER run_counts_insert AFTER INSERT ON runs BEGIN
      ${bump('new.flow', 'new.status', 1)}
    END;
    CREATE TRIGGER run_counts_delete AFTER DELETE ON runs BEGIN
      ${bump('old.flow', 'old.status', -1)}
    END;
    CREATE TRIGGER run_counts_update AFTER UPDATE OF flow, status ON runs
      WHEN old.flow IS NOT new.flow OR old.status IS NOT new.status BEGIN
      ${bump('old.flow', 'old.status', -1)}
      ${bump('new.flow', 'new.status', 1)}
    END;

    CREATE TABLE run_text_docs (id TEXT PRIMARY KEY, doc INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
    CREATE VIRTUAL TABLE run_text USING fts5(id, flow, flow_name, message, tokenize = 'trigram', content = '', contentless_delete = 1);
    INSERT INTO run_text_docs (id, doc) SELECT id, ROW_NUMBER() OVER (ORDER BY started_at, id) FROM runs;
    INSERT INTO run_text (rowid, id, flow, flow_name, message)
      SELECT d.doc, r.id, r.flow, r.flow_name, COALESCE(r.last_error_message, '') FROM runs AS r JOIN run_text_docs AS d ON d.id = r.id;
    CREATE TRIGGER run_text_insert AFTER INSERT ON runs BEGIN
      INSERT INTO run_text_docs (id, doc) VALUES (new.id, COALESCE((SELECT MAX(doc) FROM run_text_docs), 0) + 1);
      ${index('new')}
    END;
    CREATE TRIGGER run_text_delete AFTER DELETE ON runs BEGIN
      DELETE FROM run_text WHERE rowid = ${doc('old')};
      DELETE FROM run_text_docs WHERE id = old.id;
    END;
    CREATE TRIGGER run_text_update AFTER UPDATE OF flow, flow_name, last_error_message ON runs
      WHEN old.flow IS NOT new.flow OR old.flow_name IS NOT new.flow_name OR old.last_error_message IS NOT new.last_error_message BEGIN
      DELETE FROM run_text WHERE rowid = ${doc('new')};
      ${index('new')}
    END;
  `);
}

export const migration: Migration = {
  version: 7,
  name: 'run counts per flow and status, trigram text index of runs',
  sqlite: runCountsAndTextIndex,
};
