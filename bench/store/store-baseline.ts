import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HivewatchEvent } from '../../core/base/events.js';
import { openDatabase } from '../../core/store/sqlite/database.js';
import { aggregateBatch } from '../../core/store/rollups/batch-aggregates.js';
import { FAILURE_KEY, FAILURE_ROLLUP_TABLE, failureParams } from '../../core/store/rollups/failure-rollups.js';
import { eventPayload } from '../../core/store/projection/journal-codec.js';
import { migrate } from '../../core/store/sqlite/migrate.js';
import { applyEvent } from '../../core/store/projection/projections.js';
import { emptyEmitted, NO_ROWS, stampedRun, type RunState } from '../../core/store/projection/run-state.js';
import { GRAINS, GROUP_TREND_GRAINS, GROUP_TREND_TABLE, ROLLUP_TABLE } from '../../core/store/rollups/rollups.js';
import { type AttemptRow, type StepRow, type TaskRow } from '../../core/store/projection/schema.js';
import { insertSql, rowParams, upsertSql } from '../../core/store/projection/row-codec.js';
import { ATTEMPTS, CHECKPOINTS, ERRORS, RUNS, STEPS, TASKS } from '../../core/store/projection/table-specs.js';
import { TERMINAL_RUN_STATUSES } from '../../core/common/run-statuses.js';

/** The raw better-sqlite3 baselines: the same rows the store writes, and helpers to compare files. */

export type Op = { s: Database.Statement; p: unknown[] };

const HOST = { pid: process.pid, hostname: hostname(), instance: 'bench-0000000000000000' };

const ROLLUP_UPSERT = (table: string): string =>
  `INSERT INTO ${table} (bucket, category, origin, code, flow, disposition, count) VALUES (?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (bucket, category, origin, code, flow, disposition) DO UPDATE SET count = count + excluded.count`;
const ROLLUP_DELETE_EMPTY = (table: string): string =>
  `DELETE FROM ${table} WHERE bucket = ? AND category = ? AND origin = ? AND code = ? AND flow = ? AND disposition = ? AND count <= 0`;

const TREND_UPSERT = (table: string): string =>
  `INSERT INTO ${table} (bucket, fingerprint, flow, disposition, count) VALUES (?, ?, ?, ?, ?)
   ON CONFLICT (fingerprint, bucket, flow, disposition) DO UPDATE SET count = count + excluded.count`;
const TREND_DELETE_EMPTY = (table: string): string =>
  `DELETE FROM ${table} WHERE bucket = ? AND fingerprint = ? AND flow = ? AND disposition = ? AND count <= 0`;

const FAILURE_UPSERT = (table: string): string =>
  `INSERT INTO ${table} (${FAILURE_KEY.join(', ')}, count) VALUES (?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT (${FAILURE_KEY.join(', ')}) DO UPDATE SET count = count + excluded.count`;

/**
 * Precomputes (untimed) what the store writes for each batch, as prepared statements and their
 * parameters, in the store's order: the journal rows, run-host claims / releases, then each
 * changed projection row once, error rows, checkpoints, rollup upserts (one per key and grain,
 * counts summed over the batch) and error-group upserts (one per fingerprint).
 */
export class SameRows {
  private readonly states = new Map<string, RunState>();
  private readonly s;
  /** The journal's commit positions, as the store hands them out on a fresh database (migration 5). */
  private commitSeq = 0;

  constructor(db: Database.Database) {
    this.s = {
      event: db.prepare('INSERT INTO events (run_id, seq, type, ts, payload, wall, commit_seq) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      head: db.prepare('UPDATE journal_head SET commit_seq = commit_seq + ? WHERE id = 1'),
      run: db.prepare(upsertSql(RUNS)),
      step: db.prepare(upsertSql(STEPS)),
      task: db.prepare(upsertSql(TASKS)),
      attempt: db.prepare(upsertSql(ATTEMPTS)),
      error: db.prepare(insertSql(ERRORS)),
      settled: db.prepare(upsertSql(ERRORS)),
      checkpoint: db.prepare(upsertSql(CHECKPOINTS)),
      claim: db.prepare(
        `INSERT INTO run_hosts (run_id, pid, hostname, instance, claimed_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (run_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
           instance = excluded.instance, claimed_at = excluded.claimed_at`,
      ),
      release: db.prepare('DELETE FROM run_hosts WHERE run_id = ?'),
      rollup: Object.fromEntries(GRAINS.map((g) => [g, db.prepare(ROLLUP_UPSERT(ROLLUP_TABLE[g]))])),
      rollupEmpty: Object.fromEntries(GRAINS.map((g) => [g, db.prepare(ROLLUP_DELETE_EMPTY(ROLLUP_TABLE[g]))])),
      trend: Object.fromEntries(GROUP_TREND_GRAINS.map((g) => [g, db.prepare(TREND_UPSERT(GROUP_TREND_TABLE[g]))])),
      trendEmpty: Object.fromEntries(GROUP_TREND_GRAINS.map((g) => [g, db.prepare(TREND_DELETE_EMPTY(GROUP_TREND_TABLE[g]))])),
      failure: Object.fromEntries(GRAINS.map((g) => [g, db.prepare(FAILURE_UPSERT(FAILURE_ROLLUP_TABLE[g]))])),
      group: db.prepare(
        `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, unhandled, first_seen, last_seen)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fingerprint) DO UPDATE SET
           count = count + excluded.count,
           unhandled = unhandled + excluded.unhandled,
           first_seen = MIN(first_seen, excluded.first_seen),
           last_message = CASE WHEN excluded.last_seen >= last_seen THEN excluded.last_message ELSE last_message END,
           last_seen = MAX(last_seen, excluded.last_seen)`,
      ),
    };
  }

  plan(batch: readonly HivewatchEvent[]): { all: Op[]; events: unknown[][] } {
    const all: Op[] = [];
    const events: unknown[][] = [];
    const touched = new Set<RunState>();
    const emitted = emptyEmitted();
    all.push({ s: this.s.head, p: [batch.length] });
    for (const event of batch) {
      // The bench's journals run on a real clock: no separate wall time (NULL), as the store writes.
      const p = [event.runId, event.seq, event.type, event.ts, eventPayload(event), null, ++this.commitSeq];
      all.push({ s: this.s.event, p });
      events.push(p);
    }
    for (const event of batch) {
      const state = applyEvent(this.states.get(event.runId), event, NO_ROWS, emitted);
      this.states.set(event.runId, state);
      touched.add(state);
      if (event.type === 'runStarted') {
        all.push({ s: this.s.claim, p: [event.runId, HOST.pid, HOST.hostname, HOST.instance, Date.now()] });
      } else if (TERMINAL_RUN_STATUSES.includes(state.run.status)) {
        all.push({ s: this.s.release, p: [event.runId] });
      }
    }
    for (const state of touched) {
      const d = state.dirty;
      if (d.run) all.push({ s: this.s.run, p: rowParams(RUNS, stampedRun(state)) });
      for (const k of d.steps) all.push({ s: this.s.step, p: rowParams(STEPS, state.steps.get(k) as StepRow) });
      for (const k of d.tasks) all.push({ s: this.s.task, p: rowParams(TASKS, state.tasks.get(k) as TaskRow) });
      for (const k of d.attempts) all.push({ s: this.s.attempt, p: rowParams(ATTEMPTS, state.attempts.get(k) as AttemptRow) });
      d.run = false;
      d.steps.clear();
      d.tasks.clear();
      d.attempts.clear();
      if (TERMINAL_RUN_STATUSES.includes(state.run.status)) this.states.delete(state.run.id);
    }
    for (const e of emitted.errors) all.push({ s: this.s.error, p: rowParams(ERRORS, e) });
    for (const { after } of emitted.settled) all.push({ s: this.s.settled, p: rowParams(ERRORS, after) });
    for (const c of emitted.checkpoints) all.push({ s: this.s.checkpoint, p: rowParams(CHECKPOINTS, c) });
    // What the rows add to the aggregates is summed untimed, as the store sums it (batch-aggregates.ts).
    const sums = aggregateBatch(emitted);
    for (const g of GRAINS) {
      for (const e of sums.rollups.entries(g)) {
        if (e.count === 0) continue;
        const key = [e.bucket, e.category, e.origin, e.code, e.flow, e.disposition];
        all.push({ s: this.s.rollup[g] as Database.Statement, p: [...key, e.count] });
        if (e.count < 0) all.push({ s: this.s.rollupEmpty[g] as Database.Statement, p: key });
      }
    }
    for (const g of GROUP_TREND_GRAINS) {
      for (const e of sums.rollups.trends(g)) {
        if (e.count === 0) continue;
        const key = [e.bucket, e.fingerprint, e.flow, e.disposition];
        all.push({ s: this.s.trend[g] as Database.Statement, p: [...key, e.count] });
        if (e.count < 0) all.push({ s: this.s.trendEmpty[g] as Database.Statement, p: key });
      }
    }
    for (const g of sums.groups.values()) {
      all.push({ s: this.s.group, p: [g.fingerprint, g.category, g.code, g.origin, g.template, g.lastMessage, g.count, g.unhandled, g.firstSeen, g.lastSeen] });
    }
    for (const g of GRAINS) for (const e of sums.failures.entries(g)) all.push({ s: this.s.failure[g] as Database.Statement, p: failureParams(e) });
    return { all, events };
  }
}

// ---- helpers -------------------------------------------------------------------------------

export function tempPath(name: string): string {
  return join(tmpdir(), `hivewatch-bench-${process.pid}-${name}.db`);
}

export function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** A fresh database with the store's schema and pragmas, for the raw baselines. */
export function rawDatabase(path: string): Database.Database {
  removeDb(path);
  const db = openDatabase({ path });
  migrate(db);
  return db;
}

/**
 * Tables the comparison leaves out or narrows, each for a reason: the rest of the schema is hashed
 * whole, so a table a later migration adds is compared without anyone remembering to list it.
 */
const NOT_COMPARED: Readonly<Record<string, string>> = {
  // Which process holds the lease and when it beat: the store's own identity, not rows of the journal.
  hosts: "the writer's host lease (pid, start time, heartbeat)",
};
/** Columns compared where a table mixes journal content with the writer's identity. */
const NARROWED: Readonly<Record<string, string>> = { run_hosts: 'run_id' };

/** Every ordinary table of the schema: FTS shadow tables included (they are content too), virtual tables themselves excluded. */
function comparedTables(db: Database.Database): string[] {
  const rows = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  return rows.filter((r) => !/^CREATE VIRTUAL TABLE/i.test(r.sql ?? '') && !(r.name in NOT_COMPARED)).map((r) => r.name);
}

/** Content hash of every compared table (its rows in a total order: every column sorted): equal hashes, same rows. */
export function contentHashes(db: Database.Database): Record<string, string> {
  const out: Record<string, string> = {};
  for (const table of comparedTables(db)) {
    const columns =
      NARROWED[table] ?? (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => `"${c.name}"`).join(', ');
    const hash = createHash('sha1');
    let n = 0;
    for (const row of db.prepare(`SELECT ${columns} FROM "${table}" ORDER BY ${columns}`).raw().iterate() as Iterable<unknown[]>) {
      hash.update(row.map((v) => (v === null ? '\u0002' : Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join('\u0001'));
      hash.update('\n');
      n += 1;
    }
    out[table] = `${n}:${hash.digest('hex').slice(0, 12)}`;
  }
  return out;
}
