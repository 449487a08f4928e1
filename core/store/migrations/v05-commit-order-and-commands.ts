import type Database from 'better-sqlite3';

/**
 * The schema's versions 5 to 9 and 11 (core/store/migrations.ts lists every version and runs
 * them; version 10 is migration-10.ts): commit order and commands, lineage and run-list indexes,
 * OpenTelemetry's tables, the task text index, host leases. Released migrations: never edited.
 */

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
export function commitOrderAndCommands(db: Database.Database): void {
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

/**
 * Version 6 (lineage both ways): the runs retried from a run are found through
 * an index, as the runs resumed from one already are (version 2).
 */
export function retryOfIndex(db: Database.Database): void {
  db.exec('CREATE INDEX runs_retry_of ON runs (retry_of, started_at, id) WHERE retry_of IS NOT NULL;');
}

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
export function runCountsAndTextIndex(db: Database.Database): void {
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

/**
 * Version 8: OpenTelemetry ingest: `otel_payloads` remembers the digest of every ingested OTLP request so an
 * exporter's retry of the same payload is not counted twice; `external_runs` is the bookkeeping
 * of each agent session seen through telemetry (its run, when it last sent something, whether it
 * went quiet, its open prompt task, and the Hivewatch attempt that ran it when there was one).
 */
export function otelIngest(db: Database.Database): void {
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

/**
 * Version 9 (text over prompts): a run is also found by the prompts of its
 * tasks. A task's name is its prompt as the flow wrote it (or its label), so `task_text` is a
 * trigram index (FTS5, contentless, case-insensitive) over task names, kept by triggers on
 * `tasks`, with our own document numbers (`task_text_docs`), as `run_text` has.
 */
export function taskTextIndex(db: Database.Database): void {
  const doc = (task: string): string => `(SELECT doc FROM task_text_docs WHERE run_id = ${task}.run_id AND task_id = ${task}.task_id)`;
  db.exec(`
    CREATE TABLE task_text_docs (
      run_id TEXT NOT NULL, task_id TEXT NOT NULL, doc INTEGER NOT NULL UNIQUE,
      PRIMARY KEY (run_id, task_id)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE task_text USING fts5(name, tokenize = 'trigram', content = '', contentless_delete = 1);
    INSERT INTO task_text_docs (run_id, task_id, doc) SELECT run_id, task_id, ROW_NUMBER() OVER (ORDER BY run_id, task_id) FROM tasks;
    INSERT INTO task_text (rowid, name)
      SELECT d.doc, t.name FROM tasks AS t JOIN task_text_docs AS d ON d.run_id = t.run_id AND d.task_id = t.task_id;
    CREATE TRIGGER task_text_insert AFTER INSERT ON tasks BEGIN
      INSERT INTO task_text_docs (run_id, task_id, doc) VALUES (new.run_id, new.task_id, COALESCE((SELECT MAX(doc) FROM task_text_docs), 0) + 1);
      INSERT INTO task_text (rowid, name) VALUES (${doc('new')}, new.name);
    END;
    CREATE TRIGGER task_text_delete AFTER DELETE ON tasks BEGIN
      DELETE FROM task_text WHERE rowid = ${doc('old')};
      DELETE FROM task_text_docs WHERE run_id = old.run_id AND task_id = old.task_id;
    END;
    CREATE TRIGGER task_text_update AFTER UPDATE OF name ON tasks WHEN old.name IS NOT new.name BEGIN
      DELETE FROM task_text WHERE rowid = ${doc('new')};
      INSERT INTO task_text (rowid, name) VALUES (${doc('new')}, new.name);
    END;
  `);
}

/**
 * Version 11 (dead hosts seen at once): every host keeps a lease in the
 * database, as PostgreSQL's have since its baseline: `hosts` with the heartbeat, and what tells
 * the host's process from a later one with its pid (`machine`: boot and pid namespace;
 * `start_time`: field 22 of /proc/<pid>/stat). See core/store/hosts/host-liveness.ts. Independent of
 * version 10 (another change landing beside it): it only adds a table.
 */
export function hostLeases(db: Database.Database): void {
  db.exec(`
    CREATE TABLE hosts (
      instance TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
      started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL, lease_ms INTEGER NOT NULL,
      machine TEXT, start_time TEXT
    ) WITHOUT ROWID;
  `);
}
