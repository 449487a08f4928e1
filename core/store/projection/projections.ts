import type { HivewatchEvent } from '../../base/events.js';
import type { AttemptRow, CheckpointRow, ErrorRow, RunRow, StepRow, TaskRow } from './schema.js';
import { changesEnding, settlesPending } from '../../common/ending-chain.js';
import { isTerminal } from '../../common/run-statuses.js';
import { errorRowOf, settleRun, type SettledError, type SettleOutput } from './dispositions.js';
import { blankTask, closeStep, closeTask, reduceStep, reduceTask } from './step-task-reducers.js';
import { changesRun, copyRun, emptyRun, reduceRun, setRunFields } from './run-reducer.js';
import { closeAttempt, reduceAttempt } from './attempt-reducer.js';
// The row reducers live in reducers.ts; their public names stay importable from here.

/**
 * Event → rows. The `reduce*` functions (reducers.ts) are pure: (current row or undefined,
 * event) → new row, never mutating their input. `applyEvent` decides which rows an event touches and runs the
 * reducers over a RunState; the live ingest (sqlite/journal-writer.ts) and replay (replay.ts) both go through
 * it, so rebuilding from the journal gives what the live path stored (rule 15).
 *
 * Conventions the engine's events are read with:
 * - `retryScheduled.attempt` / `backoffSkipped.attempt` name the attempt that failed (the delay
 *   is stored on it); if that attempt is not a failed one, the attempt before it is used.
 * - A terminal run event closes what is still open: `runFailed` → aborted, `runCancelled` →
 *   cancelled, `runInterrupted` → interrupted. `runCompleted` closes nothing (an open row
 *   after it is an engine bug and stays visible).
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

function getStep(state: RunState, loader: RowLoader, step: number): StepRow | undefined {
  let row = state.steps.get(step);
  if (!row) {
    row = loader.step(state.run.id, step);
    if (row) state.steps.set(step, row);
  }
  return row;
}

function getTask(state: RunState, loader: RowLoader, taskId: string): TaskRow | undefined {
  let row = state.tasks.get(taskId);
  if (!row) {
    row = loader.task(state.run.id, taskId);
    if (row) state.tasks.set(taskId, row);
  }
  return row;
}

function getAttempt(state: RunState, loader: RowLoader, taskId: string, attempt: number): AttemptRow | undefined {
  const key = attemptKey(taskId, attempt);
  let row = state.attempts.get(key);
  if (!row) {
    row = loader.attempt(state.run.id, taskId, attempt);
    if (row) state.attempts.set(key, row);
  }
  return row;
}

function putStep(state: RunState, row: StepRow | undefined, before: StepRow | undefined): void {
  if (!row || row === before) return;
  state.steps.set(row.step, row);
  state.dirty.steps.add(row.step);
}

function putTask(state: RunState, row: TaskRow | undefined, before: TaskRow | undefined): void {
  if (!row || row === before) return;
  state.tasks.set(row.taskId, row);
  state.dirty.tasks.add(row.taskId);
  if (row.step > state.maxTaskStep) state.maxTaskStep = row.step;
  if (row.status === 'backoff' && row.nextAttemptAt !== null) state.backoff.set(row.taskId, row.nextAttemptAt);
  else state.backoff.delete(row.taskId);
}

function putAttempt(state: RunState, row: AttemptRow | undefined, before: AttemptRow | undefined): void {
  if (!row || row === before) return;
  const key = attemptKey(row.taskId, row.attempt);
  state.attempts.set(key, row);
  state.dirty.attempts.add(key);
}

function earliestBackoff(state: RunState): number | null {
  let min: number | null = null;
  for (const at of state.backoff.values()) if (min === null || at < min) min = at;
  return min;
}

/** The earliest usage-limit wait among the tasks in backoff (every one of them is an open row the state holds). */
function earliestLimitWait(state: RunState): number | null {
  let min: number | null = null;
  for (const taskId of state.backoff.keys()) {
    const at = state.tasks.get(taskId)?.waitingUntil ?? null;
    if (at !== null && (min === null || at < min)) min = at;
  }
  return min;
}

/** The failed attempt a `retryScheduled` / `backoffSkipped` belongs to (see the conventions above). */
function backoffAttempt(state: RunState, loader: RowLoader, taskId: string, attempt: number): AttemptRow | undefined {
  const named = getAttempt(state, loader, taskId, attempt);
  if (named && named.status === 'failed') return named;
  return getAttempt(state, loader, taskId, attempt - 1) ?? named;
}

const CLOSING: Partial<Record<HivewatchEvent['type'], 'aborted' | 'cancelled' | 'interrupted'>> = {
  runFailed: 'aborted',
  runCancelled: 'cancelled',
  runInterrupted: 'interrupted',
};

/**
 * The step, task, attempt, checkpoint and error rows an event changes or adds (the run row is
 * `applyEvent`'s): each changed row marked dirty, each added one pushed to `emitted`.
 */
function applyToRows(s: RunState, event: HivewatchEvent, loader: RowLoader, emitted: Emitted, run: RunRow, wall: number): void {
  switch (event.type) {
    case 'stepStarted': {
      putStep(s, reduceStep(undefined, event), undefined);
      // A step newer than every task row cannot have rows yet: no lookups on the hot path.
      const fresh = event.step > s.maxTaskStep;
      for (const f of event.frontier) {
        const before = fresh ? undefined : getTask(s, loader, f.taskId);
        if (!before) putTask(s, blankTask(event.runId, f.taskId, event.step, f.ordinal, f.name), undefined);
      }
      break;
    }
    case 'writeApplied':
    case 'stepFinished': {
      const before = getStep(s, loader, event.step);
      putStep(s, reduceStep(before, event), before);
      break;
    }
    case 'checkpointSaved': {
      const before = getStep(s, loader, event.step);
      putStep(s, reduceStep(before, event), before);
      emitted.checkpoints.push({ runId: event.runId, step: event.step, ts: event.ts, channels: event.channels, delta: event.delta === true });
      break;
    }
    case 'taskStarted':
    case 'taskSucceeded':
    case 'externalLimitReached':
    case 'externalLimitLifted': {
      const before = getTask(s, loader, event.taskId);
      putTask(s, reduceTask(before, event), before);
      break;
    }
    case 'receiptIgnoredStale': {
      const taskBefore = getTask(s, loader, event.taskId);
      putTask(s, reduceTask(taskBefore, event), taskBefore);
      const attemptBefore = getAttempt(s, loader, event.taskId, event.attempt);
      putAttempt(s, reduceAttempt(attemptBefore, event), attemptBefore);
      break;
    }
    case 'attemptCancelled':
    case 'attemptJudgedCancelled': {
      const attemptBefore = getAttempt(s, loader, event.taskId, event.attempt);
      putAttempt(s, reduceAttempt(attemptBefore, event), attemptBefore);
      break;
    }
    case 'taskFailed': {
      const before = getTask(s, loader, event.taskId);
      const task = reduceTask(before, event);
      putTask(s, task, before);
      if (task && task.attempts > 0) {
        const open = getAttempt(s, loader, event.taskId, task.attempts);
        if (open) putAttempt(s, closeAttempt(open, event.cancelled ? 'cancelled' : 'aborted', event.ts), open);
      }
      break;
    }
    case 'attemptStarted':
    case 'attemptSucceeded':
    case 'attemptFailed': {
      const taskBefore = getTask(s, loader, event.taskId);
      putTask(s, reduceTask(taskBefore, event), taskBefore);
      const before = event.type === 'attemptStarted' ? undefined : getAttempt(s, loader, event.taskId, event.attempt);
      putAttempt(s, reduceAttempt(before, event), before);
      break;
    }
    case 'attemptProcess': {
      if (event.telemetry === undefined) break;
      const before = getAttempt(s, loader, event.taskId, event.attempt);
      putAttempt(s, reduceAttempt(before, event), before);
      break;
    }
    case 'retryScheduled':
    case 'backoffSkipped': {
      const taskBefore = getTask(s, loader, event.taskId);
      putTask(s, reduceTask(taskBefore, event), taskBefore);
      const before = backoffAttempt(s, loader, event.taskId, event.attempt);
      putAttempt(s, reduceAttempt(before, event), before);
      break;
    }
    case 'errorOccurred': {
      const error = errorRowOf(event, run, wall);
      emitted.errors.push(error);
      if (error.disposition === 'pending') s.pendingErrors.push(error);
      break;
    }
    default: {
      const closing = CLOSING[event.type];
      if (closing) {
        for (const step of s.steps.values()) putStep(s, closeStep(step, closing, event.ts), step);
        for (const task of s.tasks.values()) putTask(s, closeTask(task, closing, event.ts), task);
        for (const attempt of s.attempts.values()) putAttempt(s, closeAttempt(attempt, closing, event.ts), attempt);
      }
    }
  }
}

/**
 * Applies one event to a run's state (creating it on the run's first event), marking every
 * changed row dirty and pushing added rows to `emitted`. Deterministic in (state, event, rows
 * the loader returns); the loader only ever supplies rows that are already terminal, and the
 * stored pending occurrences of a run whose ending the event changes.
 */
export function applyEvent(state: RunState | undefined, event: HivewatchEvent, loader: RowLoader, emitted: Emitted, wall: number = event.ts): RunState {
  const s = state ?? newRunState(emptyRun(event.runId, event.ts, wall));
  // The row before the event (reducing may change the state's own copy in place): what the run was.
  const runBefore = changesEnding(event) ? copyRun(s.run) : null;
  let run: RunRow;
  if (!s.runOwned) {
    run = reduceRun(s.run, event, wall);
  } else {
    // The same change reduceRun makes, on the state's own copy.
    run = s.run;
    if (changesRun(run, event)) setRunFields(run, event, wall);
  }

  applyToRows(s, event, loader, emitted, run, wall);
  if (runBefore !== null) {
    if (s.pendingStored) {
      s.pendingErrors = [...loader.pendingErrors(s.run.id), ...s.pendingErrors];
      s.pendingStored = false;
    }
    // `run` is a copy reduceRun just made or the state's own (every such event changes the run).
    settleRun(runBefore, run, event, s.pendingErrors, emitted);
    if (settlesPending(event)) s.pendingErrors = [];
  }

  const terminal = isTerminal(run.status);
  const nextAttemptAt = terminal ? null : earliestBackoff(s);
  const waitingUntil = terminal || nextAttemptAt === null ? null : earliestLimitWait(s);
  if (run !== s.run || run.nextAttemptAt !== nextAttemptAt || run.waitingUntil !== waitingUntil) {
    // A row the reducer just made, or the state's own copy, is finished in place; a row the state was given is copied.
    const r = run === s.run && !s.runOwned ? copyRun(run) : run;
    r.nextAttemptAt = nextAttemptAt;
    r.waitingUntil = waitingUntil;
    s.run = r;
    s.runOwned = true;
  }
  s.seq = event.seq;
  s.ts = event.ts;
  s.dirty.run = true;
  return s;
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

/**
 * Replays a whole journal (seq order) into a fresh state: what replay and tests compare against.
 * `walls[i]` is event i's journaled wall time (default: its ts, as on a real clock).
 */
export function projectJournal(events: readonly HivewatchEvent[], walls?: readonly number[]): { state: RunState | undefined; emitted: Emitted } {
  const emitted = emptyEmitted();
  let state: RunState | undefined;
  events.forEach((event, i) => {
    state = applyEvent(state, event, NO_ROWS, emitted, walls?.[i] ?? event.ts);
  });
  if (state) stampedRun(state);
  return { state, emitted };
}
