import type Database from 'better-sqlite3';
import { fingerprintOf } from './fingerprint.js';
import { failureModel } from './migration-10.js';
import { StoreError } from './store-error.js';

/**
 * The schema's history, one function per version (`PRAGMA user_version` is the number applied).
 * A migration is never edited once released: a change is a new migration at the end. Each runs
 * in its own transaction together with its user_version bump, so a crash leaves the database at
 * the previous version, never between two.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

/** Version 1: the first schema (journal, projections, minute rollups). */
function firstSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE events (
      run_id  TEXT    NOT NULL,
      seq     INTEGER NOT NULL,
      type    TEXT    NOT NULL,
      ts      INTEGER NOT NULL,
      payload TEXT    NOT NULL,
      PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;

    CREATE TABLE runs (
      id TEXT PRIMARY KEY,
      flow TEXT NOT NULL, flow_name TEXT NOT NULL, status TEXT NOT NULL,
      started_at INTEGER NOT NULL, ended_at INTEGER, duration_ms INTEGER,
      updated_at INTEGER NOT NULL, last_seq INTEGER NOT NULL,
      max_steps INTEGER, concurrency INTEGER, clock TEXT, default_agent TEXT,
      current_step INTEGER NOT NULL, steps INTEGER NOT NULL, last_checkpoint_step INTEGER NOT NULL,
      task_count INTEGER NOT NULL, attempt_count INTEGER NOT NULL, error_count INTEGER NOT NULL,
      resumed_from TEXT, retry_of TEXT, resume_step INTEGER NOT NULL,
      last_error_code TEXT, last_error_category TEXT, last_error_message TEXT,
      next_attempt_at INTEGER, cancel_command_id TEXT, cancel_reason TEXT,
      epoch INTEGER NOT NULL, error TEXT
    );
    CREATE INDEX runs_started ON runs (started_at, id);
    CREATE INDEX runs_status ON runs (status, started_at);
    CREATE INDEX runs_flow ON runs (flow, started_at);

    CREATE TABLE steps (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      step INTEGER NOT NULL, status TEXT NOT NULL,
      started_at INTEGER NOT NULL, ended_at INTEGER,
      task_count INTEGER NOT NULL, frontier TEXT NOT NULL, writes INTEGER NOT NULL, checkpointed INTEGER NOT NULL,
      PRIMARY KEY (run_id, step)
    ) WITHOUT ROWID;

    CREATE TABLE tasks (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      task_id TEXT NOT NULL, step INTEGER NOT NULL, ordinal INTEGER NOT NULL,
      name TEXT NOT NULL, agent TEXT, status TEXT NOT NULL,
      max_attempts INTEGER, attempts INTEGER NOT NULL,
      started_at INTEGER, ended_at INTEGER, output TEXT,
      error TEXT, error_code TEXT, next_attempt_at INTEGER, stale_receipts INTEGER NOT NULL,
      PRIMARY KEY (run_id, task_id)
    ) WITHOUT ROWID;

    CREATE TABLE attempts (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      task_id TEXT NOT NULL, attempt INTEGER NOT NULL, step INTEGER NOT NULL, ordinal INTEGER NOT NULL,
      status TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, duration_ms INTEGER,
      error TEXT, error_code TEXT, error_category TEXT,
      delay_ms INTEGER, strategy TEXT, next_attempt_at INTEGER, backoff_skipped_by TEXT,
      PRIMARY KEY (run_id, task_id, attempt)
    ) WITHOUT ROWID;

    CREATE TABLE errors (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      seq INTEGER NOT NULL, ts INTEGER NOT NULL,
      category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL, message TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      caught INTEGER NOT NULL, retrying INTEGER NOT NULL, recoverable INTEGER NOT NULL,
      recovery_hint TEXT, context TEXT NOT NULL, timestamp INTEGER NOT NULL,
      project TEXT, flow TEXT NOT NULL, step INTEGER, task_id TEXT, attempt INTEGER,
      PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX errors_ts ON errors (ts);

    CREATE TABLE checkpoints (
      run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
      step INTEGER NOT NULL, ts INTEGER NOT NULL, channels TEXT NOT NULL,
      PRIMARY KEY (run_id, step)
    ) WITHOUT ROWID;

    CREATE TABLE error_rollups (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow)
    ) WITHOUT ROWID;
  `);
}

/**
 * Version 2: coarser rollups (hour, day) so a long window reads few buckets, the error-group
 * table, run ownership for safe start-up recovery, and the indexes prune / groups / resume need.
 * Backfills everything from what version 1 stored.
 */
function rollupGrainsGroupsAndOwners(db: Database.Database): void {
  const rollupTable = (name: string): string => `
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow)
    ) WITHOUT ROWID;`;
  const floor = (size: number): string => `bucket - (((bucket % ${size}) + ${size}) % ${size})`;
  db.exec(`
    ${rollupTable('error_rollups_hour')}
    ${rollupTable('error_rollups_day')}
    INSERT INTO error_rollups_hour (bucket, category, origin, code, flow, count)
      SELECT ${floor(3_600_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO error_rollups_day (bucket, category, origin, code, flow, count)
      SELECT ${floor(86_400_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;

    CREATE TABLE error_groups (
      fingerprint TEXT PRIMARY KEY,
      category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL,
      template TEXT NOT NULL, last_message TEXT NOT NULL,
      count INTEGER NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL
    );
    CREATE INDEX errors_fingerprint ON errors (fingerprint, ts);

    CREATE TABLE run_hosts (
      run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL, instance TEXT NOT NULL,
      claimed_at INTEGER NOT NULL
    );
    CREATE INDEX runs_ended ON runs (ended_at);
    CREATE INDEX runs_resumed_from ON runs (resumed_from) WHERE resumed_from IS NOT NULL;
  `);

  const groups = db.prepare(
    `SELECT fingerprint, category, code, origin, COUNT(*) AS count, MIN(ts) AS first_seen, MAX(ts) AS last_seen,
       (SELECT message FROM errors AS latest WHERE latest.fingerprint = e.fingerprint ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 1) AS last_message
     FROM errors AS e GROUP BY fingerprint`,
  );
  const insert = db.prepare(
    `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, first_seen, last_seen)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  type Group = {
    fingerprint: string; category: string; code: string; origin: string; last_message: string;
    count: number; first_seen: number; last_seen: number;
  };
  for (const g of groups.all() as Group[]) {
    const template = fingerprintOf(g.category, g.code, g.origin, g.last_message).template;
    insert.run(g.fingerprint, g.category, g.code, g.origin, template, g.last_message, g.count, g.first_seen, g.last_seen);
  }
}

/**
 * Version 3: checkpoints hold what a step changed instead of the whole state (issue #9). Rows
 * written before keep their whole state (delta = 0), as their journal's events do, so replay
 * parity holds and nothing old needs rewriting; `checkpointStates` reads both kinds.
 */
function checkpointDeltas(db: Database.Database): void {
  db.exec('ALTER TABLE checkpoints ADD COLUMN delta INTEGER NOT NULL DEFAULT 0');
}

/** The run list's status order (active first), shared by the sort and its index. */
export const STATUS_RANK_SQL =
  "(CASE status WHEN 'running' THEN 0 WHEN 'cancelling' THEN 1 WHEN 'queued' THEN 2 WHEN 'failed' THEN 3 " +
  "WHEN 'interrupted' THEN 4 WHEN 'cancelled' THEN 5 ELSE 6 END)";

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

/**
 * Issue #11: the journal's order of commit and cross-process run commands.
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

/**
 * Version 6 (issue #12 part 3, lineage both ways): the runs retried from a run are found through
 * an index, as the runs resumed from one already are (version 2).
 */
function retryOfIndex(db: Database.Database): void {
  db.exec('CREATE INDEX runs_retry_of ON runs (retry_of, started_at, id) WHERE retry_of IS NOT NULL;');
}

/** The smallest text the trigram index can answer (shorter needles scan with LIKE). */
export const TEXT_INDEX_MIN_CHARS = 3;

/**
 * Version 7 (issue #12 part 1): what the run list needs over a whole history.
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

/**
 * Version 8: OpenTelemetry ingest (issue #11 part 4): `otel_payloads` remembers the digest of every ingested OTLP request so an
 * exporter's retry of the same payload is not counted twice; `external_runs` is the bookkeeping
 * of each agent session seen through telemetry (its run, when it last sent something, whether it
 * went quiet, its open prompt task, and the Hivewatch attempt that ran it when there was one).
 */
function otelIngest(db: Database.Database): void {
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
 * Version 9 (issue #12 part 1, text over prompts): a run is also found by the prompts of its
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
 * Version 11 (issue #19 part 4, dead hosts seen at once): every host keeps a lease in the
 * database, as PostgreSQL's have since its baseline: `hosts` with the heartbeat, and what tells
 * the host's process from a later one with its pid (`machine`: boot and pid namespace;
 * `start_time`: field 22 of /proc/<pid>/stat). See core/store/host-liveness.ts. Independent of
 * version 10 (another change landing beside it): it only adds a table.
 */
function hostLeases(db: Database.Database): void {
  db.exec(`
    CREATE TABLE hosts (
      instance TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
      started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL, lease_ms INTEGER NOT NULL,
      machine TEXT, start_time TEXT
    ) WITHOUT ROWID;
  `);
}

/**
 * Version 12 (issue #21 part 2): what an external session's open prompt has come to, as JSON
 * (core/otel/session-state.ts): the attempt a request opened and nothing ended yet, the prompt's
 * last outcome and the failure that ended it, so the quiet period ends the session with the
 * status its last prompt had. NULL for a session ingested before: nothing known, as before.
 */
function externalPromptState(db: Database.Database): void {
  db.exec('ALTER TABLE external_runs ADD COLUMN prompt_state TEXT');
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'first schema: journal, projections, minute rollups', up: firstSchema },
  { version: 2, name: 'hour/day rollups, error groups, run owners, indexes', up: rollupGrainsGroupsAndOwners },
  { version: 3, name: 'checkpoint deltas', up: checkpointDeltas },
  {
    version: 4,
    name: 'wall-clock times, handled errors, group trends, run list indexes, settings',
    up: wallClockHandledTrendsIndexesSettings,
  },
  { version: 5, name: 'commit order of the journal, cross-process run commands', up: commitOrderAndCommands },
  { version: 6, name: 'index of runs by the run they retry', up: retryOfIndex },
  { version: 7, name: 'run counts per flow and status, trigram text index of runs', up: runCountsAndTextIndex },
  { version: 8, name: 'OpenTelemetry ingest: payload digests, external runs', up: otelIngest },
  { version: 9, name: 'trigram text index of task prompts', up: taskTextIndex },
  { version: 10, name: 'failure model: error dispositions, ending errors, failure rollups', up: failureModel },
  { version: 11, name: 'host leases: heartbeat, machine and process start time of every host', up: hostLeases },
  { version: 12, name: "external sessions: the open prompt's attempt and outcome", up: externalPromptState },
];

/** The newest version (the last migration's: versions increase but a branch may land after a later one). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration after the database's version, up to `target`. Returns the versions applied. */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): number[] {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      'corrupt',
      `database schema version ${current} is newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  }
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    // The version is read again under the write lock: another process may have migrated meanwhile.
    const ran = db
      .transaction(() => {
        if (schemaVersion(db) >= migration.version) return false;
        migration.up(db);
        db.pragma(`user_version = ${migration.version}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}
