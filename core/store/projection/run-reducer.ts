import type { HivewatchEvent } from '../../base/events.js';
import type { RunRow } from './schema.js';
import { endApprovalWait, isApprovalEvent, setApprovalFields } from './approval-reducer.js';
import { endedStatusOf } from '../../common/run-statuses.js';

/**
 * The run row's reducer: (current row or undefined, event) → new row, never mutating its input,
 * with the field-by-field copy it makes (a spread of rows built in different ways is ~10× slower:
 * see README "Performance"). `projections.ts` decides which rows an event touches. The step and
 * task rows' reducers are in step-task-reducers.ts, the attempt rows' in attempt-reducer.ts.
 */

/** The run row before its first event, or for a journal whose first event is not `runStarted`. */
export function emptyRun(runId: string, ts: number, wall = ts): RunRow {
  return {
    id: runId,
    flow: '',
    flowName: '',
    status: 'running',
    startedAt: ts,
    endedAt: null,
    durationMs: null,
    startedWall: wall,
    endedWall: null,
    updatedAt: ts,
    lastSeq: 0,
    maxSteps: null,
    concurrency: null,
    clock: null,
    defaultAgent: null,
    currentStep: 0,
    steps: 0,
    lastCheckpointStep: 0,
    taskCount: 0,
    attemptCount: 0,
    errorCount: 0,
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
    lastErrorCode: null,
    lastErrorCategory: null,
    lastErrorMessage: null,
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
    flowSteps: null,
    flowStepsMost: null,
    approvalSince: null,
    approvalLabel: null,
    approvalWaitMs: 0,
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
  switch (event.type) {
    case 'runStarted':
    case 'stepStarted':
    case 'taskStarted':
    case 'attemptStarted':
    case 'errorOccurred':
    case 'checkpointSaved':
    case 'stepFinished':
    case 'runCancelling':
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
    case 'externalRunReopened':
      return true;
    case 'cancelRequested':
      return run.cancelCommandId === null;
    case 'externalRunSpawned':
      return event.flowName !== undefined && event.flowName !== run.flowName;
    case 'externalEvent':
      return isApprovalEvent(event);
    default:
      return false;
  }
}

/** The run ends with the status the shared rule gives the event (core/common/run-statuses.ts). */
function end(r: RunRow, event: HivewatchEvent, ts: number, wall: number): void {
  r.status = endedStatusOf(event) ?? r.status;
  r.endedAt = ts;
  r.durationMs = ts - r.startedAt;
  r.endedWall = wall;
  r.nextAttemptAt = null;
  endApprovalWait(r);
}

/**
 * Applies an event that `changesRun` to a row the caller owns (a fresh copy, never an input).
 * `wall` is the event's journaled wall-clock time (its ts on a real clock).
 */
export function setRunFields(r: RunRow, event: HivewatchEvent, wall: number = event.ts): void {
  switch (event.type) {
    case 'runStarted':
      r.flow = event.flow;
      r.flowName = event.flowName;
      r.status = 'running';
      r.startedAt = event.ts;
      r.startedWall = wall;
      r.maxSteps = event.options.maxSteps;
      r.concurrency = event.options.concurrency;
      r.clock = event.options.clock;
      r.defaultAgent = event.options.defaultAgent ?? null;
      r.resumedFrom = event.resumedFrom ?? null;
      r.retryOf = event.retryOf ?? null;
      r.resumeStep = event.resumeStep;
      r.currentStep = event.resumeStep;
      r.steps = event.resumeStep;
      r.lastCheckpointStep = event.resumeStep;
      r.flowSteps = event.flowSteps?.expected ?? null;
      r.flowStepsMost = event.flowSteps?.most ?? null;
      return;
    case 'stepStarted':
      r.currentStep = event.step;
      return;
    case 'taskStarted':
      r.taskCount += 1;
      return;
    case 'attemptStarted':
      r.attemptCount += 1;
      return;
    case 'errorOccurred':
      r.errorCount += 1;
      r.lastErrorCode = event.error.code;
      r.lastErrorCategory = event.error.category;
      r.lastErrorMessage = event.error.message;
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
      r.status = 'cancelling';
      r.epoch = event.epoch;
      return;
    case 'runCompleted':
      end(r, event, event.ts, wall);
      r.steps = event.steps;
      return;
    case 'runFailed':
      end(r, event, event.ts, wall);
      r.error = event.error;
      return;
    case 'runCancelled':
      end(r, event, event.ts, wall);
      r.cancelCommandId = event.cause.commandId;
      r.cancelReason = event.cause.reason;
      return;
    case 'runInterrupted':
      end(r, event, event.ts, wall);
      r.error = event.error;
      return;
    case 'externalRunIdle':
      end(r, event, event.ts, wall);
      if (event.error) r.error = event.error;
      return;
    case 'externalEvent':
      if (isApprovalEvent(event)) setApprovalFields(r, event);
      return;
    case 'externalRunSpawned':
      if (event.flowName !== undefined) r.flowName = event.flowName;
      return;
    case 'externalRunReopened':
      r.error = null;
      r.status = 'running';
      r.endedAt = null;
      r.durationMs = null;
      r.endedWall = null;
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
