import { EXTERNAL_FLOW_PREFIX } from '../otel/mapping.js';
import { endingErrorOf } from '../store/index.js';
import { runSummaryFields } from '../common/run-summary-fields.js';
import type {
  AttemptRow,
  ErrorCount as StoreErrorCount,
  ErrorGroup as StoreErrorGroup,
  ErrorOccurrence as StoreErrorOccurrence,
  ErrorSeries as StoreErrorSeries,
  FailureCounts as StoreFailureCounts,
  LineageRun,
  RunDetail as StoreRunDetail,
  RunLineage as StoreRunLineage,
  RunRow,
  StepRow,
  TaskRow,
} from '../store/index.js';
import type {
  AttemptStatus,
  AttemptView,
  ErrorCount,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSeries,
  FailureCounts,
  RelatedRun,
  RunDetail,
  RunSummary,
  SeriesDimension,
  StepView,
  TaskStatus,
  TaskView,
} from './api.js';

/**
 * Store rows → the API's DTOs. The store's vocabulary is richer than what a window shows; the
 * collapses are deliberate:
 * - task `pending` (in the frontier, waiting for a concurrency slot) and `backoff` (waiting to
 *   retry) are both `waiting`; `aborted` (left open when the run failed) and `interrupted` (the
 *   host died) are `cancelled`: the task was stopped, it did not fail on its own.
 * - attempt `aborted` / `interrupted` are `cancelled`; the last attempt of a task that journaled
 *   a stale receipt (`receiptIgnoredStale`, rule 12) is `stale`: its result came after the cancel.
 * - step `interrupted` is `aborted` (nothing was committed).
 */

export type Retrying = RunSummary['retrying'];

function taskStatusOf(row: TaskRow): TaskStatus {
  switch (row.status) {
    case 'pending':
    case 'backoff':
      return 'waiting';
    case 'running':
      return 'running';
    case 'succeeded':
      return 'succeeded';
    case 'failed':
      return 'failed';
    default:
      return 'cancelled';
  }
}

function attemptStatusOf(row: AttemptRow, task: TaskRow | undefined): AttemptStatus {
  switch (row.status) {
    case 'running':
    case 'succeeded':
    case 'failed':
      return row.status;
    default:
      return task && task.staleReceipts > 0 && task.attempts === row.attempt ? 'stale' : 'cancelled';
  }
}

function attemptView(row: AttemptRow, task?: TaskRow): AttemptView {
  return {
    attempt: row.attempt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    status: attemptStatusOf(row, task),
    error: row.error,
    delayAfterMs: row.delayMs,
    strategy: row.strategy,
    nextAttemptAt: row.nextAttemptAt,
    ...(row.cancelledBy !== null ? { cancelledBy: row.cancelledBy } : {}),
    ...(row.lateResult !== null ? { lateResult: row.lateResult } : {}),
  };
}

const STEP_STATUS_OF_ENDED_RUN: Partial<Record<RunRow['status'], StepView['status']>> = {
  completed: 'finished',
  failed: 'aborted',
  cancelled: 'cancelled',
  interrupted: 'aborted',
};

/**
 * A step as the window and the CLI show it. An external session's one step has no frontier (its
 * tasks join as prompts arrive) and no `stepFinished` (the session ends by going quiet), so its
 * tasks are read from the task rows and, once the run has ended, the step ends with it.
 */
function stepView(row: StepRow, run: RunRow, stepTasks: readonly TaskRow[]): StepView {
  const taskIds = row.frontier.map((f) => f.taskId);
  const listed = new Set(taskIds);
  const joined = stepTasks.filter((t) => !listed.has(t.taskId)).sort((a, b) => a.ordinal - b.ordinal);
  for (const task of joined) taskIds.push(task.taskId);
  const endedWithRun = row.status === 'running' ? STEP_STATUS_OF_ENDED_RUN[run.status] : undefined;
  if (endedWithRun) return { step: row.step, status: endedWithRun, startedAt: row.startedAt, endedAt: run.endedAt ?? row.startedAt, taskIds };
  return {
    step: row.step,
    status: row.status === 'interrupted' ? 'aborted' : row.status,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    taskIds,
  };
}

/** Tasks are grouped by step once, so a detail read costs steps + tasks, not steps × tasks. */
function stepViews(steps: readonly StepRow[], run: RunRow, tasks: readonly TaskRow[]): StepView[] {
  const byStep = new Map<number, TaskRow[]>();
  for (const task of tasks) {
    const group = byStep.get(task.step);
    if (group) group.push(task);
    else byStep.set(task.step, [task]);
  }
  return steps.map((step) => stepView(step, run, byStep.get(step.step) ?? []));
}

/**
 * The task waiting in backoff whose next attempt comes first (the run row's `nextAttemptAt`),
 * with the delay journaled for it. Null when no task waits.
 */
export function retryingOf(tasks: readonly TaskRow[], attempts: readonly AttemptRow[]): Retrying {
  let best: TaskRow | null = null;
  for (const task of tasks) {
    if (task.status !== 'backoff' || task.nextAttemptAt === null) continue;
    if (best === null || (best.nextAttemptAt as number) > task.nextAttemptAt) best = task;
  }
  if (best === null) return null;
  let delayMs = 0;
  for (const attempt of attempts) {
    if (attempt.taskId === best.taskId && attempt.delayMs !== null) delayMs = attempt.delayMs;
  }
  return { taskId: best.taskId, nextAttemptAt: best.nextAttemptAt as number, delayMs };
}

export function runSummary(row: RunRow, retrying: Retrying): RunSummary {
  return {
    id: row.id,
    ...runSummaryFields(row),
    retrying: row.nextAttemptAt === null ? null : retrying,
    waitingUntil: row.waitingUntil,
    endingError: endingErrorOf(row),
    lastSeq: row.lastSeq,
    ...(row.flow.startsWith(EXTERNAL_FLOW_PREFIX) ? { source: `runtime:${row.flow.slice(EXTERNAL_FLOW_PREFIX.length)}` } : {}),
  };
}

export function runDetail(detail: StoreRunDetail, lineage: StoreRunLineage): RunDetail {
  const byTask = new Map<string, AttemptRow[]>();
  for (const attempt of detail.attempts) {
    const list = byTask.get(attempt.taskId);
    if (list) list.push(attempt);
    else byTask.set(attempt.taskId, [attempt]);
  }
  const tasks: TaskView[] = detail.tasks.map((task) => ({
    taskId: task.taskId,
    step: task.step,
    ordinal: task.ordinal,
    name: task.name,
    ...(task.template !== null ? { template: task.template } : {}),
    agent: task.agent ?? '',
    status: taskStatusOf(task),
    maxAttempts: task.maxAttempts ?? Math.max(1, task.attempts),
    ...(task.waitingUntil !== null ? { waitingUntil: task.waitingUntil } : {}),
    attempts: (byTask.get(task.taskId) ?? []).map((a) => attemptView(a, task)),
    error: task.error,
    output: task.output,
  }));
  return {
    run: runSummary(detail.run, retryingOf(detail.tasks, detail.attempts)),
    steps: stepViews(detail.steps, detail.run, detail.tasks),
    tasks,
    lastSeq: detail.run.lastSeq,
    lineage: {
      retries: lineage.retries.map(relatedRun),
      resumes: lineage.resumes.map(relatedRun),
      previous: lineage.previous ? relatedRun(lineage.previous) : null,
    },
  };
}

export function errorCount(row: StoreErrorCount): ErrorCount {
  return { key: row.key, count: row.count, label: row.label };
}

export function errorGroup(row: StoreErrorGroup): ErrorGroup {
  return {
    fingerprint: row.fingerprint,
    category: row.category,
    code: row.code,
    origin: row.origin,
    message: row.lastMessage,
    count: row.count,
    unhandled: row.unhandled,
    firstSeen: row.firstSeen,
    lastSeen: row.lastSeen,
    template: row.template,
  };
}

export function errorOccurrence(row: StoreErrorOccurrence): ErrorOccurrence {
  const error = {
    category: row.category as ErrorOccurrence['error']['category'],
    code: row.code as ErrorOccurrence['error']['code'],
    message: row.message,
    origin: row.origin,
    recoverable: row.recoverable,
    recovery_hint: row.recoveryHint,
    context: row.context,
    timestamp: row.timestamp,
    correlation: row.correlation,
  };
  return {
    id: row.seq,
    runId: row.runId,
    seq: row.seq,
    ts: row.ts,
    category: row.category,
    code: row.code,
    origin: row.origin,
    message: row.message,
    fingerprint: row.fingerprint,
    caught: row.caught,
    retrying: row.retrying,
    disposition: row.disposition,
    ending: row.ending,
    flow: row.flow === '' ? null : row.flow,
    correlation: row.correlation,
    error,
  };
}

export function errorSeries(series: StoreErrorSeries, stackBy: SeriesDimension): ErrorSeries {
  return {
    bucket: series.bucket,
    stackBy,
    keys: series.series.map((s) => s.key),
    points: series.buckets.map((start, index) => {
      const counts: Record<string, number> = {};
      for (const s of series.series) counts[s.key] = s.counts[index] ?? 0;
      return { start, counts };
    }),
  };
}

export function failureCounts(counts: StoreFailureCounts): FailureCounts {
  return {
    total: counts.total,
    rows: counts.rows.map((r) => ({ key: r.key, count: r.count, label: r.label, ...(r.rootCode !== undefined ? { rootCode: r.rootCode } : {}) })),
  };
}

function relatedRun(run: LineageRun): RelatedRun {
  return { id: run.id, status: run.status, startedWall: run.startedWall };
}
