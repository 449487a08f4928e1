import type pg from 'pg';
import type { HivewatchEvent } from '../../../base/events.js';
import { isTerminal } from '../../../common/run-statuses.js';
import { checkImportedWalls, validateEvent } from '../../projection/event-checks.js';
import type { RunOwner } from '../../hosts/hosts.js';
import { aggregateBatch } from '../../rollups/batch-aggregates.js';
import { DEFAULT_CACHED_RUNS, reduceBatch } from '../../projection/batch-reducer.js';
import { eventPayload } from '../../projection/journal-codec.js';
import { emptyEmitted, NO_ROWS, stampedRun, type Emitted, type RunState } from '../../projection/run-state.js';
import { StoreError } from '../../store-error.js';
import { rowParams } from '../../projection/row-codec.js';
import { ATTEMPTS, CHECKPOINTS, ERRORS, RUNS, STEPS, TASKS, type TableSpec } from '../../projection/table-specs.js';
import { byKey, specInsert, specUpsert, writeRows, type MultiRow, type Queryable } from './multi-row.js';
import { addBatchAggregates } from './rollups.js';
import { loadRunStates } from './run-states.js';
import { StatementBatch } from './statement-batch.js';
import { numberPlaceholders } from '../connection/placeholders.js';
import { UsageBatch } from '../../rollups/usage-rollups.js';
import { lockErrorFacts } from './fact-locks.js';
import { executorOf } from '../connection/execution.js';
import { runAsync } from '../../queries/plan.js';

const UNIQUE_VIOLATION = '23505';

/** The channel every committed batch is announced on; the payload is the new journal head. */
export const JOURNAL_CHANNEL = 'hivewatch_journal';

/**
 * The events of a batch, each with its commit position: the batch's claimed head (CLAIM_POSITIONS
 * ran just before, in the same transaction, and left it in the transaction-local setting
 * `hivewatch.batch_head`) minus how many of the batch's events follow it. A setting, not a
 * subquery per row: a thousand scalar subqueries in one VALUES list cost the planner more than the
 * rows (the writer bench's 1,000-event batches took 3.4× raw INSERTs so, 1.4× before). Written so, the rows need not wait for the claim's answer and go
 * out with it in one round trip (statement-batch.ts).
 */
const INSERT_EVENTS: MultiRow = {
  head: 'INSERT INTO events (run_id, seq, type, ts, payload, wall, commit_seq)',
  tail: '',
  width: 7,
  slot: (column, placeholder) => (column === 6 ? `current_setting('hivewatch.batch_head')::bigint - ${placeholder}::bigint` : placeholder),
};

const CLAIM_HOSTS: MultiRow = {
  head: 'INSERT INTO run_hosts (run_id, pid, hostname, instance, claimed_at)',
  tail: `ON CONFLICT (run_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
    instance = excluded.instance, claimed_at = excluded.claimed_at`,
  width: 5,
};

/**
 * Claims `$1` commit positions and announces the new head. Why this is the order of commit: the
 * UPDATE takes the row lock of the one `journal_head` row and keeps it until the transaction
 * ends. A second writer's UPDATE waits on that lock, and once the first commits it re-reads the
 * row (READ COMMITTED re-checks an updated row), so it counts on from the first one's committed
 * head. Positions are thus handed out in the order transactions commit, and a batch's positions
 * only become visible after every smaller position is: a reader that polls `commit_seq > cursor`
 * never sees a later position before an earlier one. (A sequence would not do this: nextval
 * hands out numbers in the order of calls, and the calls' transactions may commit in any order.)
 * The claim is the batch's last statement but one, so the lock is held for the shortest time.
 * NOTIFY is delivered at commit, and not at all on rollback. Its payload is the head followed by
 * the writer's `announceAs` tag, so the store that wrote it knows its own notification without
 * having been told the head before its COMMIT went out (listen.ts OwnNotifications).
 */
const CLAIM_POSITIONS = `UPDATE journal_head SET commit_seq = commit_seq + $1 WHERE id = 1
  RETURNING commit_seq, pg_notify('${JOURNAL_CHANNEL}', commit_seq::text || $2), set_config('hivewatch.batch_head', commit_seq::text, true)`;

/**
 * The schema keeps `run_counts` (runs per flow and status) with a row trigger on `runs`: each
 * new run, and each run whose status changes, adds to one count row and takes from another.
 * Those shared rows are locked in the order the runs' rows are written, which no sort of the runs
 * makes the same for every batch (a run going running -> completed and another pending ->
 * running cross), so two hosts could deadlock on them. Batches that change a count take this
 * transaction-scoped advisory lock before their run rows: they queue for each other there, while
 * batches that only move runs along write in parallel. The run rows are the last projection
 * rows written, so the lock is held for the batch's last few statements only; every lock
 * taken after it (run hosts, journal_head) is taken by all writers in the same order.
 */
const RECOUNT_LOCK = 0x4869_7665_7263;

// The start hour too: run_counts_hourly (migration 19) keys its rows by it.
const countKey = (state: RunState): string => `${state.run.flow}\u0000${state.run.status}\u0000${Math.floor(state.run.startedAt / 3_600_000)}`;

interface Batch {
  events: readonly HivewatchEvent[];
  walls: number[];
  payloads: string[];
  touched: Set<RunState>;
  emitted: Emitted;
  started: Set<string>;
  batchNow: number;
  /** Some run of the batch is new or changes its flow or status (the `run_counts` trigger fires). */
  recounts: boolean;
  /** Tokens and cost the batch's attempts reported (usage-rollups.ts). */
  usage: UsageBatch;
}

/**
 * The PostgreSQL ingest path, with the meaning of SQLite's JournalWriter (sqlite/journal-writer.ts): a batch's
 * events are checked against each run's seq, reduced by the same pure reducers, and written with
 * every changed projection row once, the new errors, and rollup / group increments summed over
 * the batch. What differs is how rows reach the reducers and the database:
 *
 * - The reducers look rows up synchronously. A run not in memory is loaded whole (run row and
 *   every step / task / attempt row) before the batch is reduced, so its state holds every row
 *   it has and the reducers never need the database (they run with NO_ROWS, as replay does).
 *   Live runs stay in memory (LRU-bounded); a run leaves it at its terminal event.
 * - Rows go out in multi-row statements (one per table, sorted by key), so a batch of 1,000
 *   events is a handful of round trips.
 * - Several hosts write one database. Seq is checked against the state in memory, and the events
 *   primary key (run_id, seq) rejects a seq another host wrote first; the caller then rolls back
 *   and the runs of the batch are forgotten (reloaded next time).
 *
 * The caller owns the transaction: `append` runs inside the BEGIN it issued on `client`.
 */
export class PostgresJournalWriter {
  private readonly cache = new Map<string, RunState>();

  constructor(
    private readonly owner: RunOwner,
    private readonly now: () => number,
    private readonly cachedRuns = DEFAULT_CACHED_RUNS,
    /** Follows the head in the batch's NOTIFY payload (`<head>:<tag>`); empty: the head alone. */
    private readonly announceAs = '',
  ) {}

  /** `importedWalls` (contract.ts AppendOptions): the walls another database journaled, kept instead of stamping new ones. */
  async append(
    client: pg.PoolClient,
    events: readonly HivewatchEvent[],
    importedWalls?: readonly number[],
    /** The batch's round trip ends the caller's transaction too (inTransaction; nothing may follow). */
    options: { commit?: boolean } = {},
  ): Promise<{ walls: number[]; commitSeqs: number[] }> {
    if (events.length === 0) return { walls: [], commitSeqs: [] };
    for (const event of events) validateEvent(event);
    checkImportedWalls(events, importedWalls);
    const runIds = new Set(events.map((e) => e.runId));
    try {
      await this.loadMissing(client, events);
      const batch = this.reduce(events, importedWalls);
      // What moving a run's spend reads must come before the batch's one round trip (it cannot read).
      if (batch.usage.size > 0) await runAsync(executorOf(client), batch.usage.costReads());
      // Every write of the batch in one round trip, the commit positions' claim last but one.
      const statements = new StatementBatch();
      await this.writeRows(statements.collector, batch);
      const claimAt = statements.size;
      await this.writeEvents(statements.collector, batch);
      const answers = await statements.send(client, options);
      const commitSeqs = commitPositions(answers[claimAt], events.length);
      this.settle(batch.touched);
      return { walls: batch.walls, commitSeqs };
    } catch (error) {
      // The states in memory may hold changes the caller's rollback undoes.
      this.forget(runIds);
      throw duplicateSeq(error) ?? error;
    }
  }

  forget(runIds?: Iterable<string>): void {
    if (runIds === undefined) {
      this.cache.clear();
      return;
    }
    for (const runId of runIds) this.cache.delete(runId);
  }

  /** How many runs are in memory (tests check the bound). */
  get cachedRunCount(): number {
    return this.cache.size;
  }

  /**
   * Loads the runs of the batch that are not in memory. A run whose first event here is seq 1
   * starts in this batch: there is nothing to load (if another host did write it, the events
   * primary key rejects this batch).
   */
  private async loadMissing(client: Queryable, events: readonly HivewatchEvent[]): Promise<void> {
    const wanted: string[] = [];
    const seen = new Set<string>();
    for (const event of events) {
      if (seen.has(event.runId)) continue;
      seen.add(event.runId);
      if (event.seq !== 1 && !this.cache.has(event.runId)) wanted.push(event.runId);
    }
    if (wanted.length === 0) return;
    for (const state of await loadRunStates(client, wanted)) this.cache.set(state.run.id, state);
  }

  /** Everything JavaScript does for a batch: seq checks, reducing, the journal rows' payloads. */
  private reduce(events: readonly HivewatchEvent[], importedWalls: readonly number[] | undefined): Batch {
    const batchNow = this.now();
    const batch: Batch = {
      events,
      walls: [],
      payloads: [],
      touched: new Set(),
      emitted: emptyEmitted(),
      started: new Set(),
      batchNow,
      recounts: false,
      usage: new UsageBatch(),
    };
    /** Each run's flow and status before the batch ('' for a run the batch creates). */
    const counted = new Map<string, string>();
    const reduced = reduceBatch(events, importedWalls, batchNow, {
      runs: {
        // Called once per run and batch (this writer never evicts mid-batch): its counts key before.
        stateOf: (runId) => {
          const before = this.cache.get(runId);
          counted.set(runId, before ? countKey(before) : '');
          return before;
        },
        created: (state) => this.cache.set(state.run.id, state),
        reduced: (event, state, wall) => {
          batch.payloads.push(eventPayload(event));
          batch.usage.add(event, state.run, wall);
          if (event.type === 'runStarted') batch.started.add(event.runId);
        },
      },
      loader: NO_ROWS,
      emitted: batch.emitted,
      states: new Map(),
    });
    batch.walls = reduced.walls;
    batch.touched = reduced.touched;
    for (const state of batch.touched) if (counted.get(state.run.id) !== countKey(state)) batch.recounts = true;
    return batch;
  }

  /** The projection rows, errors, checkpoints, rollups, groups and run hosts of a batch. */
  private async writeRows(client: Queryable, batch: Batch): Promise<void> {
    const runs: unknown[][] = [];
    const steps: unknown[][] = [];
    const tasks: unknown[][] = [];
    const attempts: unknown[][] = [];
    for (const state of batch.touched) {
      const { dirty } = state;
      if (dirty.run) runs.push(rowParams(RUNS, stampedRun(state)));
      for (const step of dirty.steps) steps.push(rowParams(STEPS, state.steps.get(step)!));
      for (const id of dirty.tasks) tasks.push(rowParams(TASKS, state.tasks.get(id)!));
      for (const key of dirty.attempts) attempts.push(rowParams(ATTEMPTS, state.attempts.get(key)!));
      dirty.run = false;
      dirty.steps.clear();
      dirty.tasks.clear();
      dirty.attempts.clear();
    }
    await upsertSpec(client, STEPS, steps);
    await upsertSpec(client, TASKS, tasks);
    await upsertSpec(client, ATTEMPTS, attempts);

    const { emitted } = batch;
    // Errors' triggers share per-issue rows across hosts: queue on their lock first (fact-locks.ts).
    if (emitted.errors.length > 0 || emitted.settled.length > 0) await lockErrorFacts(client);
    await writeSorted(
      client,
      specInsert(ERRORS),
      ERRORS.key.length,
      emitted.errors.map((e) => rowParams(ERRORS, e)),
    );
    // Occurrences of earlier batches that a terminal event settled: written again with their disposition.
    await upsertSpec(
      client,
      ERRORS,
      emitted.settled.map((s) => rowParams(ERRORS, s.after)),
    );
    await upsertSpec(
      client,
      CHECKPOINTS,
      emitted.checkpoints.map((c) => rowParams(CHECKPOINTS, c)),
    );
    await addBatchAggregates(client, aggregateBatch(emitted));
    for (const write of batch.usage.writes()) await client.query(numberPlaceholders(write.sql), write.params);
    // The run rows come last of the projections (the other tables' keys to runs are checked at
    // commit), so the recount lock (see RECOUNT_LOCK) is held from here to commit only.
    if (batch.recounts) await client.query('SELECT pg_advisory_xact_lock($1)', [RECOUNT_LOCK]);
    await upsertSpec(client, RUNS, runs);

    const claimed: unknown[][] = [];
    const released: string[] = [];
    for (const state of batch.touched) {
      const runId = state.run.id;
      if (isTerminal(state.run.status)) released.push(runId);
      else if (batch.started.has(runId)) {
        claimed.push([runId, this.owner.pid, this.owner.hostname, this.owner.instance, batch.batchNow]);
      }
    }
    await writeSorted(client, CLAIM_HOSTS, 1, claimed);
    if (released.length > 0) await client.query('DELETE FROM run_hosts WHERE run_id = ANY($1::text[])', [released.sort()]);
  }

  /** Last: the commit positions (see CLAIM_POSITIONS), then the journal rows that carry them. */
  private async writeEvents(client: Queryable, batch: Batch): Promise<void> {
    const { events, walls, payloads } = batch;
    await client.query(CLAIM_POSITIONS, [events.length, this.announceAs]);
    const rows = new Array<unknown[]>(events.length);
    for (let i = 0; i < events.length; i += 1) {
      const e = events[i]!;
      const wall = walls[i]!;
      rows[i] = [e.runId, e.seq, e.type, e.ts, payloads[i], wall === e.ts ? null : wall, events.length - 1 - i];
    }
    await writeRows(client, INSERT_EVENTS, rows);
  }

  /** After the batch: a finished run leaves memory; the least recently written go past the bound. */
  private settle(touched: Set<RunState>): void {
    for (const state of touched) {
      const runId = state.run.id;
      this.cache.delete(runId);
      if (!isTerminal(state.run.status)) this.cache.set(runId, state);
    }
    for (const runId of this.cache.keys()) {
      if (this.cache.size <= this.cachedRuns) break;
      this.cache.delete(runId);
    }
  }
}

/** The positions a batch's events got, from the answer of its CLAIM_POSITIONS. */
function commitPositions(claim: pg.QueryResult | undefined, count: number): number[] {
  const head = (claim?.rows[0] as { commit_seq?: number | string } | undefined)?.commit_seq;
  if (head === undefined) throw new Error('journal_head has no row: the PostgreSQL schema is not migrated');
  const first = Number(head) - count + 1;
  return Array.from({ length: count }, (_, i) => first + i);
}

/**
 * Another host journaled this seq of the run first: the events (or errors) primary key said so.
 * Said as the seq check says a gap or a duplicate on one host, with the driver's error as cause.
 */
function duplicateSeq(error: unknown): StoreError | null {
  const e = error as { code?: unknown; constraint?: unknown; detail?: unknown };
  if (e.code !== UNIQUE_VIOLATION || (e.constraint !== 'events_pkey' && e.constraint !== 'errors_pkey')) return null;
  const key = /\(run_id, seq\)=\((.*), (\d+)\)/.exec(String(e.detail ?? ''));
  const where = key ? `run ${key[1]}: event seq ${key[2]}` : 'an event of this batch';
  return new StoreError('invalid_event', `${where} is already in the journal (another host wrote it first)`, { cause: error });
}

async function upsertSpec<R>(client: Queryable, spec: TableSpec<R>, rows: unknown[][]): Promise<void> {
  await writeSorted(client, specUpsert(spec), spec.key.length, rows);
}

async function writeSorted(client: Queryable, shape: MultiRow, keyWidth: number, rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  rows.sort(byKey(keyWidth));
  await writeRows(client, shape, rows);
}
