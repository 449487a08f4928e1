import type { HivewatchEvent } from '../../base/events.js';
import type { StepRow, StepStatus, TaskRow, TaskStatus } from './schema.js';
import { externalLimitTask, outOfBackoff } from './task-backoff.js';

/**
 * The step and task rows' reducers: (current row or undefined, event) → new row, never mutating
 * their input, with the field-by-field copies they make (a spread of rows built in different ways
 * is ~10× slower: see README "Performance"). The run row's reducer is in run-reducer.ts.
 */

function copyStep(r: StepRow): StepRow {
  return {
    runId: r.runId,
    step: r.step,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    taskCount: r.taskCount,
    frontier: r.frontier,
    writes: r.writes,
    checkpointed: r.checkpointed,
  };
}

function copyTask(r: TaskRow): TaskRow {
  return {
    runId: r.runId,
    taskId: r.taskId,
    step: r.step,
    ordinal: r.ordinal,
    name: r.name,
    template: r.template,
    agent: r.agent,
    status: r.status,
    maxAttempts: r.maxAttempts,
    attempts: r.attempts,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    output: r.output,
    error: r.error,
    errorCode: r.errorCode,
    nextAttemptAt: r.nextAttemptAt,
    waitingUntil: r.waitingUntil,
    staleReceipts: r.staleReceipts,
  };
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
    runId,
    taskId,
    step,
    ordinal,
    name,
    template: null,
    agent: null,
    status: 'pending',
    maxAttempts: null,
    attempts: 0,
    startedAt: null,
    endedAt: null,
    output: null,
    error: null,
    errorCode: null,
    nextAttemptAt: null,
    waitingUntil: null,
    staleReceipts: 0,
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
