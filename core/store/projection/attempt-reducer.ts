import type { HivewatchEvent } from '../../base/events.js';
import type { AttemptRow, AttemptStatus } from './schema.js';

/** The attempt rows' pure reducers (the others are in reducers.ts, with the same rules: never mutate, copy field by field). */

function copyAttempt(r: AttemptRow): AttemptRow {
  return {
    runId: r.runId,
    taskId: r.taskId,
    attempt: r.attempt,
    step: r.step,
    ordinal: r.ordinal,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    durationMs: r.durationMs,
    error: r.error,
    errorCode: r.errorCode,
    errorCategory: r.errorCategory,
    delayMs: r.delayMs,
    strategy: r.strategy,
    nextAttemptAt: r.nextAttemptAt,
    backoffSkippedBy: r.backoffSkippedBy,
    cancelledBy: r.cancelledBy,
    lateResult: r.lateResult,
    telemetryOrigin: r.telemetryOrigin,
  };
}

export function reduceAttempt(current: AttemptRow | undefined, event: HivewatchEvent): AttemptRow | undefined {
  let r: AttemptRow;
  switch (event.type) {
    case 'attemptStarted':
      return {
        runId: event.runId,
        taskId: event.taskId,
        attempt: event.attempt,
        step: event.step,
        ordinal: event.ordinal,
        status: 'running',
        startedAt: event.ts,
        endedAt: null,
        durationMs: null,
        error: null,
        errorCode: null,
        errorCategory: null,
        delayMs: null,
        strategy: null,
        nextAttemptAt: null,
        backoffSkippedBy: null,
        cancelledBy: null,
        lateResult: null,
        telemetryOrigin: null,
      };
    case 'attemptProcess':
      // Only a child pointed at the receiver changes the row: the others' process is the recovery's (events).
      if (!current || event.telemetry === undefined) return current;
      r = copyAttempt(current);
      r.telemetryOrigin = event.telemetry;
      return r;
    case 'attemptSucceeded':
      if (!current) return current;
      r = copyAttempt(current);
      r.status = 'succeeded';
      r.durationMs = event.durationMs;
      r.endedAt = event.ts;
      return r;
    case 'attemptFailed':
      if (!current) return current;
      r = copyAttempt(current);
      r.status = 'failed';
      r.durationMs = event.durationMs;
      r.endedAt = event.ts;
      r.error = event.error;
      r.errorCode = event.error.code;
      r.errorCategory = event.error.category;
      return r;
    case 'retryScheduled':
      if (!current) return current;
      r = copyAttempt(current);
      r.delayMs = event.delayMs;
      r.strategy = event.strategy;
      r.nextAttemptAt = event.nextAttemptAt;
      return r;
    case 'backoffSkipped':
      if (!current) return current;
      r = copyAttempt(current);
      r.backoffSkippedBy = event.commandId;
      return r;
    case 'attemptCancelled':
      // Stopped by a fail-fast sibling (rule 18): cancelled, not failed; what it answered anyway is kept.
      if (!current) return current;
      r = copyAttempt(current);
      r.status = 'cancelled';
      r.durationMs = event.durationMs;
      r.endedAt = event.ts;
      r.cancelledBy = event.by;
      r.lateResult = event.reported ?? null;
      return r;
    case 'attemptJudgedCancelled':
      // It had ended failed (attemptFailed keeps its end time and trace); the step counts it as
      // cancelled by a sibling (rule 6), so it reads as attemptCancelled with that failure reported.
      if (!current) return current;
      r = copyAttempt(current);
      r.status = 'cancelled';
      r.cancelledBy = event.by;
      r.lateResult = current.error ? { outcome: 'failed', error: current.error } : { outcome: 'failed' };
      r.error = null;
      r.errorCode = null;
      r.errorCategory = null;
      return r;
    case 'receiptIgnoredStale':
      // Older journals carry neither output nor error: the attempt row keeps nothing new then.
      if (!current || (event.output === undefined && event.error === undefined)) return current;
      r = copyAttempt(current);
      r.lateResult =
        event.outcome === 'succeeded'
          ? { outcome: 'succeeded', ...(event.output !== undefined ? { output: event.output } : {}) }
          : { outcome: 'failed', ...(event.error !== undefined ? { error: event.error } : {}) };
      return r;
    default:
      return current;
  }
}

export function closeAttempt(attempt: AttemptRow, status: AttemptStatus, ts: number): AttemptRow {
  if (attempt.status !== 'running') return attempt;
  const r = copyAttempt(attempt);
  r.status = status;
  r.endedAt = ts;
  r.durationMs = ts - attempt.startedAt;
  return r;
}
