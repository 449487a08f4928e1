import type Database from 'better-sqlite3';
import type { HivewatchEvent } from '../../base/events.js';
import type { RunOwner } from '../hosts/hosts.js';
import { aggregateBatch } from '../rollups/batch-aggregates.js';
import {
  attemptKey,
  emptyEmitted,
  newRunState,
  releaseStoredPending,
  stampedRun,
  type Emitted,
  type RowLoader,
  type RunState,
} from '../projection/run-state.js';
import { RollupWriter } from '../rollups/rollup-writer.js';
import { OPEN_TASK_STATUSES, type AttemptRow, type ErrorRow, type RunRow, type StepRow, type TaskRow } from '../projection/schema.js';
import { insertSql, rowFromDb, rowParams, upsertSql } from '../projection/row-codec.js';
import { ATTEMPTS, CHECKPOINTS, ERRORS, RUNS, STEPS, TASKS } from '../projection/table-specs.js';
import { isTerminal } from '../../common/run-statuses.js';
import { checkImportedWalls, validateEvent } from '../projection/event-checks.js';
import { DEFAULT_CACHED_RUNS, reduceBatch, type BatchRuns } from '../projection/batch-reducer.js';
import { eventPayload } from '../projection/journal-codec.js';
import { WriteQueue } from './write-queue.js';
import { UsageBatch } from '../rollups/usage-rollups.js';
import { SqliteUsageWriter } from '../rollups/usage-writer.js';

type Row = Record<string, unknown>;
type Db = Database.Database;
type Stmt = Database.Statement;

/**
 * The open rows of a run the writer loads with its state (stateOf), and its pending occurrences,
 * read at the event that settles them (storedPending). The attempts' and the
 * occurrences' reads use the partial indexes of the open rows alone (migration 29), so a long
 * run's closed rows are never read for them. They are named (INDEXED BY): without statistics
 * SQLite takes a WITHOUT ROWID table's own key, which covers every column, over a partial index
 * on the same `run_id`, and so would read every row of the run (journal-writer.test.ts pins it).
 */
export const OPEN_ROWS_SQL = {
  steps: "SELECT * FROM steps WHERE run_id = ? AND status = 'running'",
  tasks: `SELECT * FROM tasks WHERE run_id = ? AND status IN (${OPEN_TASK_STATUSES.map((s) => `'${s}'`).join(', ')})`,
  attempts: "SELECT * FROM attempts INDEXED BY attempts_running WHERE run_id = ? AND status = 'running'",
  pendingErrors: "SELECT * FROM errors INDEXED BY errors_pending WHERE run_id = ? AND disposition = 'pending' ORDER BY seq",
} as const;

/**
 * The ingest path: one IMMEDIATE transaction per batch inserts the events, reduces them into the
 * runs they belong to, and writes each changed projection row once (a storm of events on one
 * task is one task upsert per batch), the new error rows, and rollup / group deltas summed over
 * the batch. Runs being written stay in memory between batches (only their open rows: terminal
 * ones are dropped after commit and read back on the rare event that still touches them; pending
 * occurrences are read back at the event that settles them).
 */
export class JournalWriter {
  private readonly cache = new Map<string, RunState>();
  /** States of the runs the current batch touched (LRU order is updated once per run and batch). */
  private readonly batchStates = new Map<string, RunState>();
  /** The writes of the batch being written, run after it is reduced (see `write`). */
  private readonly queue: WriteQueue;
  private readonly insertEvent: Stmt;
  private readonly upsertRun: Stmt;
  private readonly upsertStep: Stmt;
  private readonly upsertTask: Stmt;
  private readonly upsertAttempt: Stmt;
  private readonly insertError: Stmt;
  private readonly settleError: Stmt;
  private readonly settleEndingError: Stmt;
  private readonly upsertCheckpoint: Stmt;
  private readonly claimHost: Stmt;
  private readonly releaseHost: Stmt;
  private readonly rollups: RollupWriter;
  private readonly usageWriter: SqliteUsageWriter;
  /** The usage of the batch being written (tokens and cost). */
  private batchUsage = new UsageBatch();
  private readonly loader: RowLoader;
  private readonly loadRun: Stmt;
  private readonly maxTaskStep: Stmt;
  private readonly loadOpen: { steps: Stmt; tasks: Stmt; attempts: Stmt; pendingErrors: Stmt };
  /** What the batch being written emitted so far (a run reloaded mid-batch takes its pending errors from it). */
  private batchEmitted: Emitted = emptyEmitted();
  private readonly transaction: (events: readonly HivewatchEvent[], importedWalls: readonly number[] | undefined) => Set<RunState>;
  /** The wall time of each event of the batch being written (what listeners are told). */
  private batchWalls: number[] = [];
  private committedWalls: readonly number[] = [];
  private committedSeqs: readonly number[] = [];

  constructor(
    private readonly db: Db,
    private readonly owner: RunOwner,
    private readonly now: () => number,
    private readonly cachedRuns = DEFAULT_CACHED_RUNS,
  ) {
    this.insertEvent = db.prepare('INSERT INTO events (run_id, seq, type, ts, payload, wall, commit_seq) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.queue = new WriteQueue(this.insertEvent, db.prepare('UPDATE journal_head SET commit_seq = commit_seq + ? WHERE id = 1 RETURNING commit_seq'));
    this.upsertRun = db.prepare(upsertSql(RUNS));
    this.upsertStep = db.prepare(upsertSql(STEPS));
    this.upsertTask = db.prepare(upsertSql(TASKS));
    this.upsertAttempt = db.prepare(upsertSql(ATTEMPTS));
    this.insertError = db.prepare(insertSql(ERRORS));
    this.settleError = db.prepare('UPDATE errors SET disposition = ? WHERE run_id = ? AND seq = ?');
    this.settleEndingError = db.prepare('UPDATE errors SET disposition = ?, ending = 1 WHERE run_id = ? AND seq = ?');
    this.upsertCheckpoint = db.prepare(upsertSql(CHECKPOINTS));
    this.claimHost = db.prepare(
      `INSERT INTO run_hosts (run_id, pid, hostname, instance, claimed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
         instance = excluded.instance, claimed_at = excluded.claimed_at`,
    );
    this.releaseHost = db.prepare('DELETE FROM run_hosts WHERE run_id = ?');
    this.rollups = new RollupWriter(db);
    this.usageWriter = new SqliteUsageWriter(db);

    this.loadRun = db.prepare('SELECT * FROM runs WHERE id = ?');
    this.maxTaskStep = db.prepare('SELECT MAX(step) AS step FROM tasks WHERE run_id = ?');
    this.loadOpen = {
      steps: db.prepare(OPEN_ROWS_SQL.steps),
      tasks: db.prepare(OPEN_ROWS_SQL.tasks),
      attempts: db.prepare(OPEN_ROWS_SQL.attempts),
      pendingErrors: db.prepare(OPEN_ROWS_SQL.pendingErrors),
    };
    const oneStep = db.prepare('SELECT * FROM steps WHERE run_id = ? AND step = ?');
    const oneTask = db.prepare('SELECT * FROM tasks WHERE run_id = ? AND task_id = ?');
    const oneAttempt = db.prepare('SELECT * FROM attempts WHERE run_id = ? AND task_id = ? AND attempt = ?');
    this.loader = {
      step: (runId, step) => {
        const r = oneStep.get(runId, step) as Row | undefined;
        return r && rowFromDb<StepRow>(STEPS, r);
      },
      task: (runId, taskId) => {
        const r = oneTask.get(runId, taskId) as Row | undefined;
        return r && rowFromDb<TaskRow>(TASKS, r);
      },
      attempt: (runId, taskId, attempt) => {
        const r = oneAttempt.get(runId, taskId, attempt) as Row | undefined;
        return r && rowFromDb<AttemptRow>(ATTEMPTS, r);
      },
      pendingErrors: (runId) => this.storedPending(runId),
    };
    const tx = db.transaction((events: readonly HivewatchEvent[], importedWalls: readonly number[] | undefined) => this.write(events, importedWalls));
    this.transaction = (events, importedWalls) => tx.immediate(events, importedWalls);
  }

  /**
   * Appends a batch atomically and returns each event's journaled wall time. Throws (and writes
   * nothing) on a gap or duplicate seq. `importedWalls` (contract.ts AppendOptions): the walls
   * another database journaled, kept instead of stamping new ones.
   */
  append(events: readonly HivewatchEvent[], importedWalls?: readonly number[]): number[] {
    this.committedWalls = [];
    this.committedSeqs = [];
    if (events.length === 0) return [];
    let touched: Set<RunState>;
    this.queue.commitSeqs = [];
    try {
      touched = this.transaction(events, importedWalls);
    } catch (error) {
      this.queue.clear();
      this.queue.commitSeqs = [];
      // The in-memory states may hold changes the rollback undid: read them again next time.
      for (const event of events) this.cache.delete(event.runId);
      throw error;
    }
    for (const state of touched) this.settle(state);
    const walls = this.batchWalls;
    this.batchWalls = [];
    this.committedWalls = walls;
    this.committedSeqs = this.queue.commitSeqs;
    this.queue.commitSeqs = [];
    return walls;
  }

  /** The commit sequence numbers of the last batch `append` committed (`seqs[i]` for `events[i]`). */
  lastCommittedSeqs(): readonly number[] {
    return this.committedSeqs;
  }

  /** The wall times of the last batch `append` committed (for callers that append indirectly). */
  lastCommittedWalls(): readonly number[] {
    return this.committedWalls;
  }

  /** How many pending occurrences the run states in memory hold between batches (tests check it is none). */
  get heldPendingErrors(): number {
    let held = 0;
    for (const state of this.cache.values()) held += state.pendingErrors.length;
    return held;
  }

  /** Forgets cached runs (another connection changed them, or memory is wanted back). */
  forget(runId?: string): void {
    if (runId === undefined) this.cache.clear();
    else this.cache.delete(runId);
  }

  private stateOf(runId: string): RunState | undefined {
    const cached = this.cache.get(runId);
    if (cached) {
      this.cache.delete(runId);
      this.cache.set(runId, cached);
      return cached;
    }
    const record = this.loadRun.get(runId) as Row | undefined;
    if (!record) return undefined;
    const state = newRunState(rowFromDb<RunRow>(RUNS, record));
    state.maxTaskStep = (this.maxTaskStep.get(runId) as { step: number | null }).step ?? 0;
    for (const r of this.loadOpen.steps.all(runId) as Row[]) {
      const step = rowFromDb<StepRow>(STEPS, r);
      state.steps.set(step.step, step);
    }
    for (const r of this.loadOpen.tasks.all(runId) as Row[]) {
      const task = rowFromDb<TaskRow>(TASKS, r);
      state.tasks.set(task.taskId, task);
      if (task.status === 'backoff' && task.nextAttemptAt !== null) state.backoff.set(task.taskId, task.nextAttemptAt);
    }
    for (const r of this.loadOpen.attempts.all(runId) as Row[]) {
      const attempt = rowFromDb<AttemptRow>(ATTEMPTS, r);
      state.attempts.set(attemptKey(attempt.taskId, attempt.attempt), attempt);
    }
    // Its stored pending occurrences are read at the event that settles them (loader.pendingErrors).
    state.pendingStored = true;
    // A run evicted earlier in this batch: its errors of this batch are not written yet (they go after the loop).
    for (const e of this.batchEmitted.errors) if (e.runId === runId && e.disposition === 'pending') state.pendingErrors.push(e);
    this.remember(state);
    return state;
  }

  /**
   * The run's occurrences stored pending. The batch's own error rows and settled ones are written
   * after its loop, so the database still holds the batch's start: an occurrence this batch
   * already settled (the run settled, was evicted and reloaded, and settles again) is left out.
   */
  private storedPending(runId: string): ErrorRow[] {
    const rows = (this.loadOpen.pendingErrors.all(runId) as Row[]).map((r) => rowFromDb<ErrorRow>(ERRORS, r));
    const settled = this.batchEmitted.settled.filter((s) => s.before.runId === runId);
    if (settled.length === 0) return rows;
    const done = new Set(settled.map((s) => s.before.seq));
    return rows.filter((row) => !done.has(row.seq));
  }

  private remember(state: RunState): void {
    this.cache.set(state.run.id, state);
    if (this.cache.size > this.cachedRuns) this.evictOldest();
  }

  /**
   * One batch, in two phases: first everything JavaScript does (validation, serialising the
   * journal rows, reducing, the parameters of every row to write), queued; then the queue runs
   * in one tight loop. Interleaving the two ran both slower (each evicted the other's data from
   * the CPU caches: the reducers ran 2-4× slower than alone, the whole batch ~8% slower). The
   * journal rows are written first, then the other rows in the order they were produced. Reads
   * (a run or a row not in memory) see everything they need: the queue only holds rows of runs
   * in memory, and evicting a run from memory runs the queue first.
   */
  private write(events: readonly HivewatchEvent[], importedWalls: readonly number[] | undefined): Set<RunState> {
    const emitted = emptyEmitted();
    this.batchEmitted = emitted;
    const batchStates = this.batchStates;
    const queue = this.queue;
    batchStates.clear();
    queue.clear();
    this.batchUsage = new UsageBatch();
    for (const event of events) validateEvent(event);
    checkImportedWalls(events, importedWalls);
    const batchNow = this.now();
    const { walls, touched } = reduceBatch(events, importedWalls, batchNow, {
      runs: this.batchRuns(queue, batchNow),
      loader: this.loader,
      emitted,
      states: batchStates,
    });
    this.batchWalls = walls;
    for (const state of touched) this.flushRows(state);

    for (const error of emitted.errors) queue.add(this.insertError, rowParams(ERRORS, error));
    // Occurrences of earlier batches that a terminal event settled: written again with their disposition.
    // Settling changes a stored pending occurrence's disposition and, for the run's ending error,
    // its ending flag, and nothing else: only those columns are written, so no other index of the
    // row is touched and the ending triggers fire for the one row they count.
    for (const { after } of emitted.settled) queue.add(after.ending ? this.settleEndingError : this.settleError, [after.disposition, after.runId, after.seq]);
    for (const checkpoint of emitted.checkpoints) queue.add(this.upsertCheckpoint, rowParams(CHECKPOINTS, checkpoint));
    queue.run();
    this.rollups.applyAggregates(aggregateBatch(emitted));
    this.usageWriter.apply(this.batchUsage);
    this.batchEmitted = emptyEmitted();
    return touched;
  }

  /** SQLite's side of the shared loop: states from memory or the database, journal rows and run hosts queued. */
  private batchRuns(queue: WriteQueue, batchNow: number): BatchRuns {
    return {
      stateOf: (runId) => this.stateOf(runId),
      created: (state) => this.remember(state),
      reduced: (event, state, wall) => {
        queue.addEvent(event, eventPayload(event), wall === event.ts ? null : wall);
        this.batchUsage.add(event, state.run, wall);
        if (event.type === 'runStarted') {
          queue.add(this.claimHost, [event.runId, this.owner.pid, this.owner.hostname, this.owner.instance, batchNow]);
        } else if (isTerminal(state.run.status)) {
          queue.add(this.releaseHost, [event.runId]);
        }
      },
    };
  }

  /** Queues the rows of a run that changed since they were last written (each once). */
  private flushRows(state: RunState): void {
    const { dirty } = state;
    const queue = this.queue;
    if (dirty.run) queue.add(this.upsertRun, rowParams(RUNS, stampedRun(state)));
    for (const step of dirty.steps) queue.add(this.upsertStep, rowParams(STEPS, state.steps.get(step) as StepRow));
    for (const id of dirty.tasks) queue.add(this.upsertTask, rowParams(TASKS, state.tasks.get(id) as TaskRow));
    for (const key of dirty.attempts) queue.add(this.upsertAttempt, rowParams(ATTEMPTS, state.attempts.get(key) as AttemptRow));
    dirty.run = false;
    dirty.steps.clear();
    dirty.tasks.clear();
    dirty.attempts.clear();
  }

  /** After commit: a finished run leaves the cache; a live one keeps only its open rows, and no pending occurrence. */
  private settle(state: RunState): void {
    if (isTerminal(state.run.status)) {
      this.cache.delete(state.run.id);
      return;
    }
    for (const [step, row] of state.steps) if (row.status !== 'running') state.steps.delete(step);
    for (const [id, row] of state.tasks) if (!OPEN_TASK_STATUSES.includes(row.status)) state.tasks.delete(id);
    for (const [key, row] of state.attempts) if (row.status !== 'running') state.attempts.delete(key);
    releaseStoredPending(state);
  }

  /** Inside the transaction: an evicted run's pending rows are written first, so reloading it is exact. */
  private evictOldest(): void {
    const oldest = this.cache.entries().next();
    if (oldest.done) return;
    const [runId, state] = oldest.value;
    this.flushRows(state);
    // Written now, with everything queued before them, so that reading the run back is exact.
    this.queue.run();
    this.cache.delete(runId);
    // Its next event in this batch reloads it from what was just written, as a later batch would.
    this.batchStates.delete(runId);
  }
}
