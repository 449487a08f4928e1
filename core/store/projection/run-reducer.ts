import type { HivewatchEvent } from '../../base/events.js';
import type { RunRow } from './schema.js';
import { changesRunFields, emptyRunFields, setRunFields as setSharedRunFields } from '../../common/run-fields.js';

/**
 * The run row's reducer: (current row or undefined, event) → new row, never mutating its input,
 * with the field-by-field copy it makes (a spread of rows built in different ways is ~10× slower:
 * see README "Performance"). The fields the window shows too are set by the shared rule
 * (core/common/run-fields.ts, which the window's live rows apply as well); this file adds the
 * store's own columns. `projections.ts` decides which rows an event touches. The step and task
 * rows' reducers are in step-task-reducers.ts, the attempt rows' in attempt-reducer.ts.
 */

/** The run row before its first event, or for a journal whose first event is not `runStarted`. */
export function emptyRun(runId: string, ts: number, wall = ts): RunRow {
  return {
    id: runId,
    ...emptyRunFields(ts, wall),
    updatedAt: ts,
    lastSeq: 0,
    concurrency: null,
    defaultAgent: null,
    steps: 0,
    lastCheckpointStep: 0,
    taskCount: 0,
    resumeStep: 0,
    nextAttemptAt: null,
    waitingUntil: null,
    cancelCommandId: null,
    cancelReason: null,
    epoch: 0,
    error: null,
    endingCode: null,
    endingCategory: null,
    endingOrigin: null,
    endingMessage: null,
    endingStep: null,
    endingTaskId: null,
    endingAttempt: null,
    endingRootCode: null,
    endingChain: null,
  };
}

/*
 * Copies of a row, each field named. The reducers copy a row, then change fields of the copy
 * (never of their input). A literal with every field gives every row of a table one hidden
 * class with its fields in the object itself; `{ ...row, field }` on rows built along different
 * paths (a literal, a spread, a row read back from SQLite) made the copy polymorphic and ~10×
 * slower, and it was the largest cost of reducing an event. The compiler checks each copy names
 * every field of its row type.
 */

export function copyRun(r: RunRow): RunRow {
  return {
    id: r.id,
    flow: r.flow,
    flowName: r.flowName,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    durationMs: r.durationMs,
    startedWall: r.startedWall,
    endedWall: r.endedWall,
    updatedAt: r.updatedAt,
    lastSeq: r.lastSeq,
    maxSteps: r.maxSteps,
    concurrency: r.concurrency,
    clock: r.clock,
    defaultAgent: r.defaultAgent,
    currentStep: r.currentStep,
    steps: r.steps,
    lastCheckpointStep: r.lastCheckpointStep,
    taskCount: r.taskCount,
    attemptCount: r.attemptCount,
    errorCount: r.errorCount,
    resumedFrom: r.resumedFrom,
    retryOf: r.retryOf,
    resumeStep: r.resumeStep,
    lastErrorCode: r.lastErrorCode,
    lastErrorCategory: r.lastErrorCategory,
    lastErrorMessage: r.lastErrorMessage,
    nextAttemptAt: r.nextAttemptAt,
    waitingUntil: r.waitingUntil,
    cancelCommandId: r.cancelCommandId,
    cancelReason: r.cancelReason,
    epoch: r.epoch,
    error: r.error,
    endingCode: r.endingCode,
    endingCategory: r.endingCategory,
    endingOrigin: r.endingOrigin,
    endingMessage: r.endingMessage,
    endingStep: r.endingStep,
    endingTaskId: r.endingTaskId,
    endingAttempt: r.endingAttempt,
    endingRootCode: r.endingRootCode,
    endingChain: r.endingChain,
    flowSteps: r.flowSteps,
    flowStepsMost: r.flowStepsMost,
    approvalSince: r.approvalSince,
    approvalLabel: r.approvalLabel,
    approvalWaitMs: r.approvalWaitMs,
  };
}

/** Whether `event` changes the run row (the events `setRunFields` handles). */
export function changesRun(run: RunRow, event: HivewatchEvent): boolean {
  if (changesRunFields(run, event)) return true;
  switch (event.type) {
    case 'taskStarted':
    case 'checkpointSaved':
    case 'stepFinished':
      return true;
    case 'cancelRequested':
      return run.cancelCommandId === null;
    default:
      return false;
  }
}

/**
 * Applies an event that `changesRun` to a row the caller owns (a fresh copy, never an input):
 * the shared fields, then the store's own columns. `wall` is the event's journaled wall-clock
 * time (its ts on a real clock).
 */
export function setRunFields(r: RunRow, event: HivewatchEvent, wall: number = event.ts): void {
  setSharedRunFields(r, event, wall);
  switch (event.type) {
    case 'runStarted':
      r.concurrency = event.options.concurrency;
      r.defaultAgent = event.options.defaultAgent ?? null;
      r.resumeStep = event.resumeStep;
      r.steps = event.resumeStep;
      r.lastCheckpointStep = event.resumeStep;
      return;
    case 'taskStarted':
      r.taskCount += 1;
      return;
    case 'checkpointSaved':
      r.lastCheckpointStep = Math.max(r.lastCheckpointStep, event.step);
      return;
    case 'stepFinished':
      r.steps = Math.max(r.steps, event.step);
      return;
    case 'cancelRequested':
      r.cancelCommandId = event.commandId;
      r.cancelReason = event.reason;
      return;
    case 'runCancelling':
      r.epoch = event.epoch;
      return;
    case 'runCompleted':
      r.nextAttemptAt = null;
      r.steps = event.steps;
      return;
    case 'runFailed':
    case 'runInterrupted':
      r.nextAttemptAt = null;
      r.error = event.error;
      return;
    case 'runCancelled':
      r.nextAttemptAt = null;
      r.cancelCommandId = event.cause.commandId;
      r.cancelReason = event.cause.reason;
      return;
    case 'externalRunIdle':
      r.nextAttemptAt = null;
      if (event.error) r.error = event.error;
      return;
    case 'externalRunReopened':
      r.error = null;
      return;
    default:
      return;
  }
}

export function reduceRun(current: RunRow | undefined, event: HivewatchEvent, wall: number = event.ts): RunRow {
  const run: RunRow = current ?? emptyRun(event.runId, event.ts, wall);
  if (!changesRun(run, event)) return run;
  const r = copyRun(run);
  setRunFields(r, event, wall);
  return r;
}
