import type { AttemptRow, CheckpointRow, ErrorRow, RunRow, StepRow, TaskRow } from './schema.js';

/**
 * Each projection table as a list of its columns: the one place a column is named. The column
 * name is the snake_case of the row's key; the row codec (row-codec.ts) writes and reads rows
 * through these lists, and replay compares rows through them, so a column added here is
 * written, read and compared without another edit.
 */

export type ColumnKind = 'text' | 'int' | 'bool' | 'json';

export interface TableSpec<R> {
  table: string;
  /** Columns in order; the column name is the snake_case of the key. */
  columns: readonly (readonly [keyof R & string, ColumnKind])[];
  /** The natural key (also the conflict target of the upsert). */
  key: readonly (keyof R & string)[];
}

export function columnName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const RUNS: TableSpec<RunRow> = {
  table: 'runs',
  key: ['id'],
  columns: [
    ['id', 'text'],
    ['flow', 'text'],
    ['flowName', 'text'],
    ['status', 'text'],
    ['startedAt', 'int'],
    ['endedAt', 'int'],
    ['durationMs', 'int'],
    ['updatedAt', 'int'],
    ['lastSeq', 'int'],
    ['maxSteps', 'int'],
    ['concurrency', 'int'],
    ['clock', 'text'],
    ['defaultAgent', 'text'],
    ['currentStep', 'int'],
    ['steps', 'int'],
    ['lastCheckpointStep', 'int'],
    ['taskCount', 'int'],
    ['attemptCount', 'int'],
    ['errorCount', 'int'],
    ['resumedFrom', 'text'],
    ['retryOf', 'text'],
    ['resumeStep', 'int'],
    ['lastErrorCode', 'text'],
    ['lastErrorCategory', 'text'],
    ['lastErrorMessage', 'text'],
    ['nextAttemptAt', 'int'],
    ['cancelCommandId', 'text'],
    ['cancelReason', 'text'],
    ['epoch', 'int'],
    ['error', 'json'],
    ['startedWall', 'int'],
    ['endedWall', 'int'],
    ['endingCode', 'text'],
    ['endingCategory', 'text'],
    ['endingOrigin', 'text'],
    ['endingMessage', 'text'],
    ['endingStep', 'int'],
    ['endingTaskId', 'text'],
    ['endingAttempt', 'int'],
    ['endingRootCode', 'text'],
    ['endingChain', 'json'],
    ['waitingUntil', 'int'],
    ['flowSteps', 'int'],
    ['flowStepsMost', 'int'],
    ['approvalSince', 'int'],
    ['approvalLabel', 'text'],
    ['approvalWaitMs', 'int'],
  ],
};

export const STEPS: TableSpec<StepRow> = {
  table: 'steps',
  key: ['runId', 'step'],
  columns: [
    ['runId', 'text'],
    ['step', 'int'],
    ['status', 'text'],
    ['startedAt', 'int'],
    ['endedAt', 'int'],
    ['taskCount', 'int'],
    ['frontier', 'json'],
    ['writes', 'int'],
    ['checkpointed', 'bool'],
  ],
};

export const TASKS: TableSpec<TaskRow> = {
  table: 'tasks',
  key: ['runId', 'taskId'],
  columns: [
    ['runId', 'text'],
    ['taskId', 'text'],
    ['step', 'int'],
    ['ordinal', 'int'],
    ['name', 'text'],
    ['agent', 'text'],
    ['status', 'text'],
    ['maxAttempts', 'int'],
    ['attempts', 'int'],
    ['startedAt', 'int'],
    ['endedAt', 'int'],
    ['output', 'text'],
    ['error', 'json'],
    ['errorCode', 'text'],
    ['nextAttemptAt', 'int'],
    ['staleReceipts', 'int'],
    ['waitingUntil', 'int'],
    ['template', 'text'],
  ],
};

export const ATTEMPTS: TableSpec<AttemptRow> = {
  table: 'attempts',
  key: ['runId', 'taskId', 'attempt'],
  columns: [
    ['runId', 'text'],
    ['taskId', 'text'],
    ['attempt', 'int'],
    ['step', 'int'],
    ['ordinal', 'int'],
    ['status', 'text'],
    ['startedAt', 'int'],
    ['endedAt', 'int'],
    ['durationMs', 'int'],
    ['error', 'json'],
    ['errorCode', 'text'],
    ['errorCategory', 'text'],
    ['delayMs', 'int'],
    ['strategy', 'text'],
    ['nextAttemptAt', 'int'],
    ['backoffSkippedBy', 'text'],
    ['cancelledBy', 'text'],
    ['lateResult', 'json'],
    ['telemetryOrigin', 'text'],
  ],
};

export const ERRORS: TableSpec<ErrorRow> = {
  table: 'errors',
  key: ['runId', 'seq'],
  columns: [
    ['runId', 'text'],
    ['seq', 'int'],
    ['ts', 'int'],
    ['category', 'text'],
    ['code', 'text'],
    ['origin', 'text'],
    ['message', 'text'],
    ['fingerprint', 'text'],
    ['caught', 'bool'],
    ['retrying', 'bool'],
    ['recoverable', 'bool'],
    ['recoveryHint', 'text'],
    ['context', 'json'],
    ['timestamp', 'int'],
    ['project', 'text'],
    ['flow', 'text'],
    ['step', 'int'],
    ['taskId', 'text'],
    ['attempt', 'int'],
    ['disposition', 'text'],
    ['ending', 'bool'],
  ],
};

export const CHECKPOINTS: TableSpec<CheckpointRow> = {
  table: 'checkpoints',
  key: ['runId', 'step'],
  columns: [
    ['runId', 'text'],
    ['step', 'int'],
    ['ts', 'int'],
    ['channels', 'json'],
    ['delta', 'bool'],
  ],
};
