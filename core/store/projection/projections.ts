import type { HivewatchEvent } from '../../base/events.js';
import type { AttemptRow, RunRow, StepRow, TaskRow } from './schema.js';
import { attemptKey, emptyEmitted, NO_ROWS, newRunState, stampedRun, type Emitted, type RowLoader, type RunState } from './run-state.js';
import { changesEnding, settlesPending } from '../../common/ending-chain.js';
import { isTerminal } from '../../common/run-statuses.js';
import { errorRowOf, settleRun } from './dispositions.js';
import { blankTask, closeStep, closeTask, reduceStep, reduceTask } from './step-task-reducers.js';
import { changesRun, copyRun, emptyRun, reduceRun, setRunFields } from './run-reducer.js';
import { closeAttempt, reduceAttempt } from './attempt-reducer.js';

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
