import type { CheckpointRow, ErrorRow, RunRow, StepRow, TaskRow, AttemptRow } from './schema.js';
import type { SettledError, SettleOutput } from './dispositions.js';
import { copyRun } from './run-reducer.js';

/**
 * What a writer keeps of a run between events (`RunState`), where rows it does not keep come
 * from (`RowLoader`), and what a batch adds (`Emitted`): the state `applyEvent`
 * (projections.ts) reduces events into.
 */

export function attemptKey(taskId: string, attempt: number): string {
  return `${taskId}#${attempt}`;
}

/** Everything of one run that reducers may need: all open rows, plus whatever was loaded. */
export interface RunState {
  /**
   * The run row; its `lastSeq` / `updatedAt` are stamped from `seq` / `ts` by `stampedRun`.
   * Owned by the state once `applyEvent` has copied it: later events change that copy in place
   * (a batch of events on one run copies its row once, not once per event). Read it or write it
   * out; do not keep it across `applyEvent` calls.
   */
  run: RunRow;
  /** `run` is a copy `applyEvent` made (not a row it was given), so it may change in place. */
  runOwned: boolean;
  /** seq and ts of the run's latest event. */
  seq: number;
  ts: number;
  steps: Map<number, StepRow>;
  tasks: Map<string, TaskRow>;
  attempts: Map<string, AttemptRow>;
  /** taskId → nextAttemptAt of tasks in backoff: the run's `nextAttemptAt` is its minimum. */
  backoff: Map<string, number>;
  /** The highest step any task row of the run has (stored or in memory): no lookup for newer steps. */
  maxTaskStep: number;
  /**
   * The run's error occurrences still `pending` that are held here, in seq order: what its
   * terminal event settles (dispositions.ts). With `pendingStored` false this is all of them;
   * with it true, the stored ones come first from `RowLoader.pendingErrors`.
   */
  pendingErrors: ErrorRow[];
  /**
   * The database may hold pending occurrences of the run that `pendingErrors` does not: the
   * state was loaded without them, or its writer let them go after they were committed. An agent
   * session's occurrences stay pending for as long as it runs (thousands in a long one), so a
   * writer holds none of them between batches and reads them once, at the event that settles them.
   * Invariant: the stored ones and `pendingErrors` never share an occurrence (the held ones are
   * always rows not yet written).
   */
  pendingStored: boolean;
  dirty: { run: boolean; steps: Set<number>; tasks: Set<string>; attempts: Set<string> };
}

/** Where rows that are not in a RunState come from (the database live; nothing in replay). */
export interface RowLoader {
  step(runId: string, step: number): StepRow | undefined;
  task(runId: string, taskId: string): TaskRow | undefined;
  attempt(runId: string, taskId: string, attempt: number): AttemptRow | undefined;
  /** The run's occurrences stored `pending` before this batch and not settled in it, in seq order. */
  pendingErrors(runId: string): ErrorRow[];
}

export const NO_ROWS: RowLoader = { step: () => undefined, task: () => undefined, attempt: () => undefined, pendingErrors: () => [] };

/**
 * Rows an event adds rather than updates, and the changes a terminal event makes to rows stored
 * before the batch: `settled` occurrences (written again, their counts moved from one disposition
 * to another) and `failures` (the failure rollups' +1 / -1).
 */
export interface Emitted extends SettleOutput {
  errors: ErrorRow[];
  checkpoints: CheckpointRow[];
  settled: SettledError[];
}

export function emptyEmitted(): Emitted {
  return { errors: [], checkpoints: [], settled: [], failures: [] };
}

export function newRunState(run: RunRow): RunState {
  return {
    run,
    runOwned: false,
    seq: run.lastSeq,
    ts: run.updatedAt,
    steps: new Map(),
    tasks: new Map(),
    attempts: new Map(),
    backoff: new Map(),
    maxTaskStep: 0,
    pendingErrors: [],
    pendingStored: false,
    dirty: { run: false, steps: new Set(), tasks: new Set(), attempts: new Set() },
  };
}

/**
 * After a batch committed: the state lets go of its pending occurrences, which are stored now
 * and read back at the event that settles them (see `RunState.pendingStored`).
 */
export function releaseStoredPending(state: RunState): void {
  if (state.pendingErrors.length === 0) return;
  state.pendingErrors = [];
  state.pendingStored = true;
}

/**
 * The run row with its journal position (`lastSeq`, `updatedAt`) stamped: the reducers leave
 * those two to the orchestration so an event that changes nothing else copies no row.
 */
export function stampedRun(state: RunState): RunRow {
  if (state.run.lastSeq !== state.seq || state.run.updatedAt !== state.ts) {
    const r = state.runOwned ? state.run : copyRun(state.run);
    r.lastSeq = state.seq;
    r.updatedAt = state.ts;
    state.run = r;
    state.runOwned = true;
  }
  return state.run;
}
