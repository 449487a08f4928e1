import type { HivewatchEvent } from '../base/events.js';
import type { RunRow, StepRow, StepStatus, TaskRow, TaskStatus } from './schema.js';
import { externalLimitTask, outOfBackoff } from './task-backoff.js';
import { endApprovalWait, isApprovalEvent, setApprovalFields } from './approval-reducer.js';

/**
 * The pure row reducers of the projections: (current row or undefined, event) → new row, never
 * mutating their input, plus the field-by-field row copies they make (a spread of rows built in
 * different ways is ~10× slower: see README "Performance"). `projections.ts` decides which rows
 * an event touches and runs these over a RunState. The attempt rows' are in attempt-reducer.ts.
 */

/** The run row before its first event, or for a journal whose first event is not `runStarted`. */
export function emptyRun(runId: string, ts: number, wall = ts): RunRow {
  return {
    id: runId, flow: '', flowName: '', status: 'running', startedAt: ts, endedAt: null, durationMs: null,
    startedWall: wall, endedWall: null,
    updatedAt: ts, lastSeq: 0, maxSteps: null, concurrency: null, clock: null, defaultAgent: null,
    currentStep: 0, steps: 0, lastCheckpointStep: 0, taskCount: 0, attemptCount: 0, errorCount: 0,
    resumedFrom: null, retryOf: null, resumeStep: 0, lastErrorCode: null, lastErrorCategory: null,
    lastErrorMessage: null, nextAttemptAt: null, waitingUntil: null, cancelCommandId: null, cancelReason: null, epoch: 0, error: null,
    endingCode: null, endingCategory: null, endingOrigin: null, endingMessage: null, endingStep: null,
    endingTaskId: null, endingAttempt: null, endingRootCode: null, endingChain: null, flowSteps: null, flowStepsMost: null,
    approvalSince: null, approvalLabel: null, approvalWaitMs: 0,
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
    id: r.id, flow: r.flow, flowName: r.flowName, status: r.status, startedAt: r.startedAt, endedAt: r.endedAt,
    durationMs: r.durationMs, startedWall: r.startedWall, endedWall: r.endedWall, updatedAt: r.updatedAt, lastSeq: r.lastSeq, maxSteps: r.maxSteps,
    concurrency: r.concurrency, clock: r.clock, defaultAgent: r.defaultAgent, currentStep: r.currentStep,
    steps: r.steps, lastCheckpointStep: r.lastCheckpointStep, taskCount: r.taskCount, attemptCount: r.attemptCount,
    errorCount: r.errorCount, resumedFrom: r.resumedFrom, retryOf: r.retryOf, resumeStep: r.resumeStep,
    lastErrorCode: r.lastErrorCode, lastErrorCategory: r.lastErrorCategory, lastErrorMessage: r.lastErrorMessage,
    nextAttemptAt: r.nextAttemptAt, waitingUntil: r.waitingUntil, cancelCommandId: r.cancelCommandId, cancelReason: r.cancelReason,
    epoch: r.epoch, error: r.error, endingCode: r.endingCode, endingCategory: r.endingCategory,
    endingOrigin: r.endingOrigin, endingMessage: r.endingMessage, endingStep: r.endingStep, endingTaskId: r.endingTaskId,
    endingAttempt: r.endingAttempt, endingRootCode: r.endingRootCode, endingChain: r.endingChain,
    flowSteps: r.flowSteps, flowStepsMost: r.flowStepsMost,
    approvalSince: r.approvalSince, approvalLabel: r.approvalLabel, approvalWaitMs: r.approvalWaitMs,
  };
}

function copyStep(r: StepRow): StepRow {
  return {
    runId: r.runId, step: r.step, status: r.status, startedAt: r.startedAt, endedAt: r.endedAt,
    taskCount: r.taskCount, frontier: r.frontier, writes: r.writes, checkpointed: r.checkpointed,
  };
}

function copyTask(r: TaskRow): TaskRow {
  return {
    runId: r.runId, taskId: r.taskId, step: r.step, ordinal: r.ordinal, name: r.name, template: r.template, agent: r.agent,
    status: r.status, maxAttempts: r.maxAttempts, attempts: r.attempts, startedAt: r.startedAt, endedAt: r.endedAt,
    output: r.output, error: r.error, errorCode: r.errorCode, nextAttemptAt: r.nextAttemptAt,
    waitingUntil: r.waitingUntil, staleReceipts: r.staleReceipts,
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
    case 'externalEvent':
      return isApprovalEvent(event);
    default:
      return false;
  }
}

function end(r: RunRow, status: RunRow['status'], ts: number, wall: number): void {
  r.status = status;
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
      end(r, 'completed', event.ts, wall);
      r.steps = event.steps;
      return;
    case 'runFailed':
      end(r, 'failed', event.ts, wall);
      r.error = event.error;
      return;
    case 'runCancelled':
      end(r, 'cancelled', event.ts, wall);
      r.cancelCommandId = event.cause.commandId;
      r.cancelReason = event.cause.reason;
      return;
    case 'runInterrupted':
      end(r, 'interrupted', event.ts, wall);
      r.error = event.error;
      return;
    case 'externalRunIdle':
      end(r, event.error ? 'failed' : 'completed', event.ts, wall);
      if (event.error) r.error = event.error;
      return;
    case 'externalEvent':
      if (isApprovalEvent(event)) setApprovalFields(r, event);
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

export function reduceStep(current: StepRow | undefined, event: HivewatchEvent): StepRow | undefined {
  if (event.type === 'stepStarted') {
    return {
      runId: event.runId,
      step: event.step,
      status: 'running',
      startedAt: event.ts,
      endedAt: null,
      taskCount: event.frontier.length,
      frontier: event.frontier.map((f) => ({ ordinal: f.ordinal, taskId: f.taskId, name: f.name })),
      writes: 0,
      checkpointed: false,
    };
  }
  if (!current) return current;
  let r: StepRow;
  switch (event.type) {
    case 'writeApplied':
      r = copyStep(current);
      r.writes = current.writes + 1;
      return r;
    case 'checkpointSaved':
      r = copyStep(current);
      r.checkpointed = true;
      return r;
    case 'stepFinished':
      r = copyStep(current);
      r.status = 'finished';
      r.endedAt = event.ts;
      return r;
    default:
      return current;
  }
}

export function blankTask(runId: string, taskId: string, step: number, ordinal: number, name: string): TaskRow {
  return {
    runId, taskId, step, ordinal, name, template: null, agent: null, status: 'pending', maxAttempts: null, attempts: 0,
    startedAt: null, endedAt: null, output: null, error: null, errorCode: null, nextAttemptAt: null, waitingUntil: null, staleReceipts: 0,
  };
}

export function reduceTask(current: TaskRow | undefined, event: HivewatchEvent): TaskRow | undefined {
  if (event.type === 'errorOccurred' || !('taskId' in event) || !('ordinal' in event)) return current;
  const task = current ?? blankTask(event.runId, event.taskId, event.step ?? 0, event.ordinal, event.taskId);
  let r: TaskRow;
  switch (event.type) {
    case 'taskStarted':
      r = copyTask(task);
      r.name = event.name;
      r.template = event.template ?? null;
      r.agent = event.agent;
      r.status = 'running';
      r.maxAttempts = event.maxAttempts;
      r.startedAt = event.ts;
      return r;
    case 'attemptStarted':
      r = copyTask(task);
      r.status = 'running';
      r.attempts = Math.max(task.attempts, event.attempt);
      outOfBackoff(r);
      return r;
    case 'attemptFailed':
      r = copyTask(task);
      r.error = event.error;
      r.errorCode = event.error.code;
      return r;
    case 'retryScheduled':
      r = copyTask(task);
      r.status = 'backoff';
      r.nextAttemptAt = event.nextAttemptAt;
      r.waitingUntil = event.usageLimit === undefined ? null : event.nextAttemptAt;
      return r;
    case 'backoffSkipped':
      r = copyTask(task);
      outOfBackoff(r);
      return r;
    case 'externalLimitReached':
    case 'externalLimitLifted':
      return externalLimitTask(copyTask(task), event);
    case 'taskSucceeded':
      r = copyTask(task);
      r.status = 'succeeded';
      r.attempts = event.attempts;
      r.output = event.output;
      r.error = null;
      r.errorCode = null;
      r.endedAt = event.ts;
      outOfBackoff(r);
      return r;
    case 'taskFailed':
      r = copyTask(task);
      r.status = event.cancelled ? 'cancelled' : 'failed';
      r.attempts = event.attempts;
      r.error = event.error;
      r.errorCode = event.error.code;
      r.endedAt = event.ts;
      outOfBackoff(r);
      return r;
    case 'receiptIgnoredStale':
      r = copyTask(task);
      r.staleReceipts = task.staleReceipts + 1;
      return r;
    default:
      return task;
  }
}

export function closeStep(step: StepRow, status: StepStatus, ts: number): StepRow {
  if (step.status !== 'running') return step;
  const r = copyStep(step);
  r.status = status;
  r.endedAt = ts;
  return r;
}

export function closeTask(task: TaskRow, status: TaskStatus, ts: number): TaskRow {
  if (task.status !== 'pending' && task.status !== 'running' && task.status !== 'backoff') return task;
  const r = copyTask(task);
  r.status = status;
  r.endedAt = ts;
  outOfBackoff(r);
  return r;
}
