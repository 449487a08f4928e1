import type Database from 'better-sqlite3';
import { STATUS_RANK_SQL } from '../../schema-constants.js';
import type { Migration } from '../migration.js';

/**
 * Version 9 (text over prompts): a run is also found by the prompts of its
 * tasks. A task's name is its prompt as the flow wrote it (or its label), so `task_text` is a
 * trigram index (FTS5, contentless, case-insensitive) over task names, kept by triggers on
 * `tasks`, with our own document numbers (`task_text_docs`), as `run_text` has.
 */
function taskTextIndex(db: Database.Database): void {
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
 * PostgreSQL's baseline schema: what SQLite's migrations 1-9 leave behind, created in one step.
 * Same tables, columns and meanings (the shared queries run on both engines); types follow
 * one rule: BIGINT for every count, sequence number, step, attempt and millisecond time,
 * INTEGER for 0/1 flags (and pids), DOUBLE PRECISION for reals, TEXT for the rest.
 *
 * What SQLite does with engine-only features is done here with PostgreSQL's own:
 * - run counts: the same `run_counts` table, kept by one plpgsql trigger function;
 * - text search: no FTS5 tables (`run_text`, `task_text` and their doc maps); the text
 *   columns get GIN trigram indexes instead (`TEXT_INDEX_SQL`, optional: pg_trgm may be
 *   unavailable), so `ILIKE '%needle%'` over them reads an index;
 * - `run_commands.id`: an identity column, the order commands were enqueued in (SQLite's rowid);
 * - `hosts`: each open store's lease (PostgreSQL is shared by several machines, where SQLite's
 *   pid check cannot reach).
 */
const BASELINE_SQL = `
  CREATE TABLE events (
    run_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, ts BIGINT NOT NULL, payload TEXT NOT NULL,
    wall BIGINT, commit_seq BIGINT,
    PRIMARY KEY (run_id, seq)
  );
  CREATE UNIQUE INDEX events_by_commit ON events (commit_seq);

  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    flow TEXT NOT NULL, flow_name TEXT NOT NULL, status TEXT NOT NULL,
    started_at BIGINT NOT NULL, ended_at BIGINT, duration_ms BIGINT,
    updated_at BIGINT NOT NULL, last_seq BIGINT NOT NULL,
    max_steps BIGINT, concurrency BIGINT, clock TEXT, default_agent TEXT,
    current_step BIGINT NOT NULL, steps BIGINT NOT NULL, last_checkpoint_step BIGINT NOT NULL,
    task_count BIGINT NOT NULL, attempt_count BIGINT NOT NULL, error_count BIGINT NOT NULL,
    resumed_from TEXT, retry_of TEXT, resume_step BIGINT NOT NULL,
    last_error_code TEXT, last_error_category TEXT, last_error_message TEXT,
    next_attempt_at BIGINT, cancel_command_id TEXT, cancel_reason TEXT,
    epoch BIGINT NOT NULL, error TEXT,
    started_wall BIGINT NOT NULL DEFAULT 0, ended_wall BIGINT
  );
  CREATE INDEX runs_started ON runs (started_at, id);
  CREATE INDEX runs_status ON runs (status, started_at);
  CREATE INDEX runs_flow ON runs (flow, started_at);
  CREATE INDEX runs_ended ON runs (ended_at);
  CREATE INDEX runs_resumed_from ON runs (resumed_from) WHERE resumed_from IS NOT NULL;
  CREATE INDEX runs_retry_of ON runs (retry_of, started_at, id) WHERE retry_of IS NOT NULL;
  CREATE INDEX runs_last_error_code ON runs (last_error_code, started_at, id) WHERE last_error_code IS NOT NULL;
  CREATE INDEX runs_last_error_category ON runs (last_error_category, started_at, id) WHERE last_error_category IS NOT NULL;
  CREATE INDEX runs_by_ended ON runs ((COALESCE(ended_at, 9007199254740991)), started_at, id);
  CREATE INDEX runs_by_duration ON runs ((COALESCE(duration_ms, -1)), started_at, id);
  CREATE INDEX runs_by_errors ON runs (error_count, started_at, id);
  CREATE INDEX runs_by_attempts ON runs (attempt_count, started_at, id);
  CREATE INDEX runs_by_step ON runs (current_step, started_at, id);
  CREATE INDEX runs_by_status ON runs (${STATUS_RANK_SQL}, (-started_at), id);
  CREATE INDEX runs_by_flow_name ON runs (flow_name, (-started_at), id);
  CREATE INDEX runs_started_counts ON runs (started_at, flow, status);

  CREATE TABLE steps (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    step BIGINT NOT NULL, status TEXT NOT NULL,
    started_at BIGINT NOT NULL, ended_at BIGINT,
    task_count BIGINT NOT NULL, frontier TEXT NOT NULL, writes BIGINT NOT NULL, checkpointed INTEGER NOT NULL,
    PRIMARY KEY (run_id, step)
  );

  CREATE TABLE tasks (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    task_id TEXT NOT NULL, step BIGINT NOT NULL, ordinal BIGINT NOT NULL,
    name TEXT NOT NULL, agent TEXT, status TEXT NOT NULL,
    max_attempts BIGINT, attempts BIGINT NOT NULL,
    started_at BIGINT, ended_at BIGINT, output TEXT,
    error TEXT, error_code TEXT, next_attempt_at BIGINT, stale_receipts BIGINT NOT NULL,
    PRIMARY KEY (run_id, task_id)
  );

  CREATE TABLE attempts (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    task_id TEXT NOT NULL, attempt BIGINT NOT NULL, step BIGINT NOT NULL, ordinal BIGINT NOT NULL,
    status TEXT NOT NULL, started_at BIGINT NOT NULL, ended_at BIGINT, duration_ms BIGINT,
    error TEXT, error_code TEXT, error_category TEXT,
    delay_ms BIGINT, strategy TEXT, next_attempt_at BIGINT, backoff_skipped_by TEXT,
    PRIMARY KEY (run_id, task_id, attempt)
  );

  CREATE TABLE errors (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    seq BIGINT NOT NULL, ts BIGINT NOT NULL,
    category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL, message TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    caught INTEGER NOT NULL, retrying INTEGER NOT NULL, recoverable INTEGER NOT NULL,
    recovery_hint TEXT, context TEXT NOT NULL, timestamp BIGINT NOT NULL,
    project TEXT, flow TEXT NOT NULL, step BIGINT, task_id TEXT, attempt BIGINT,
    PRIMARY KEY (run_id, seq)
  );
  CREATE INDEX errors_ts ON errors (ts);
  CREATE INDEX errors_fingerprint ON errors (fingerprint, ts);

  CREATE TABLE checkpoints (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    step BIGINT NOT NULL, ts BIGINT NOT NULL, channels TEXT NOT NULL, delta INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, step)
  );

  ${['error_rollups', 'error_rollups_hour', 'error_rollups_day']
    .map(
      (name) => `
  CREATE TABLE ${name} (
    bucket BIGINT NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
    handled INTEGER NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (bucket, category, origin, code, flow, handled)
  );`,
    )
    .join('')}

  ${['error_group_trend_hour', 'error_group_trend_day']
    .map(
      (name) => `
  CREATE TABLE ${name} (
    bucket BIGINT NOT NULL, fingerprint TEXT NOT NULL, flow TEXT NOT NULL, handled INTEGER NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (fingerprint, bucket, flow, handled)
  );
  CREATE INDEX ${name}_bucket ON ${name} (bucket);`,
    )
    .join('')}

  CREATE TABLE error_groups (
    fingerprint TEXT PRIMARY KEY,
    category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL,
    template TEXT NOT NULL, last_message TEXT NOT NULL,
    count BIGINT NOT NULL, first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL,
    unhandled BIGINT NOT NULL DEFAULT 0
  );

  CREATE TABLE run_hosts (
    run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL, instance TEXT NOT NULL,
    claimed_at BIGINT NOT NULL
  );

  CREATE TABLE hosts (
    instance TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
    started_at BIGINT NOT NULL, heartbeat_at BIGINT NOT NULL, lease_ms BIGINT NOT NULL
  );

  CREATE TABLE settings (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at BIGINT NOT NULL
  );

  CREATE TABLE journal_head (
    id INTEGER PRIMARY KEY CHECK (id = 1), commit_seq BIGINT NOT NULL
  );
  INSERT INTO journal_head (id, commit_seq) VALUES (1, 0);

  CREATE TABLE run_commands (
    id BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    command_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id TEXT,
    reason TEXT,
    created_at BIGINT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    accepted INTEGER,
    message TEXT,
    done_at BIGINT
  );
  CREATE INDEX run_commands_pending ON run_commands (run_id) WHERE state = 'pending';

  CREATE TABLE run_counts (
    flow TEXT NOT NULL, status TEXT NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (flow, status)
  );
  CREATE FUNCTION hivewatch_run_counts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      INSERT INTO run_counts (flow, status, count) VALUES (OLD.flow, OLD.status, -1)
        ON CONFLICT (flow, status) DO UPDATE SET count = run_counts.count - 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO run_counts (flow, status, count) VALUES (NEW.flow, NEW.status, 1)
        ON CONFLICT (flow, status) DO UPDATE SET count = run_counts.count + 1;
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER run_counts_insert AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_counts();
  CREATE TRIGGER run_counts_delete AFTER DELETE ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_counts();
  CREATE TRIGGER run_counts_update AFTER UPDATE OF flow, status ON runs FOR EACH ROW
    WHEN (OLD.flow IS DISTINCT FROM NEW.flow OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION hivewatch_run_counts();

  CREATE TABLE otel_payloads (
    digest TEXT PRIMARY KEY, received_at BIGINT NOT NULL, records BIGINT NOT NULL
  );
  CREATE TABLE external_runs (
    session_key TEXT PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    session_id TEXT NOT NULL,
    parent_run_id TEXT, parent_task_id TEXT, parent_attempt BIGINT,
    last_event_at BIGINT NOT NULL,
    idle INTEGER NOT NULL DEFAULT 0,
    open_task TEXT,
    open_task_attempts BIGINT NOT NULL DEFAULT 0,
    task_count BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX external_runs_quiet ON external_runs (idle, last_event_at);
  CREATE INDEX external_runs_parent ON external_runs (parent_run_id, parent_task_id, parent_attempt) WHERE parent_run_id IS NOT NULL;
`;

export const migration: Migration = {
  version: 9,
  name: 'trigram text index of task prompts',
  postgresName: 'baseline: the schema of SQLite version 9 (journal, projections, rollups, groups, commands, otel, hosts)',
  sqlite: taskTextIndex,
  postgres: async (client) => {
    await client.query(BASELINE_SQL);
  },
};
