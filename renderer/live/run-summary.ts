import type { HivewatchEvent, RunSummary } from '../../core/service/api.js';
import { withApproval } from './approval-summary.js';
import { withSilenceHeard } from './silence-summary.js';
import { changesEnding, endingChainAt, endingOfChain, nextPending, type PendingOccurrence } from '../../core/common/ending-chain.js';
import { endedStatusOf, isTerminal } from '../../core/common/run-statuses.js';
import { addAttemptUsage } from './run-usage.js';

/**
 * Keeps a run's table row current from its live events, the way the store's projection does
 * (core/store/projection/projections.ts `reduceRun`), so 10,000 rows stay live without refetching them.
 * Pure: returns a new summary (or the same object when nothing changed).
 */

/** Tasks of a run waiting in backoff: taskId → when and how long, and whether it waits out a usage limit. */
export type Backoffs = ReadonlyMap<string, { nextAttemptAt: number; delayMs: number; usageLimit?: boolean }>;

export interface LiveRun {
  summary: RunSummary;
  backoffs: Backoffs;
  /**
   * Error occurrences that may still become links of the run's ending-error chain (what the
   * store keeps `pending`); absent for a run loaded mid-way from a summary (none known).
   */
  pending?: readonly PendingOccurrence[];
}

const NO_BACKOFFS: Backoffs = new Map();

/**
 * An event's wall time as the window knows it: its ts on a real clock; on a virtual clock (whose
 * ts runs ahead) the time the window received it, which for a live event is the journal time to
 * within the stream's latency. Rows loaded from the server carry the journaled wall times.
 */
function wallOf(clock: RunSummary['clock'], ts: number, receivedAt: number): number {
  return clock === 'virtual' ? Math.min(ts, receivedAt) : ts;
}

/** The summary a run's first event describes. */
function summaryFromStart(event: Extract<HivewatchEvent, { type: 'runStarted' }>, receivedAt = event.ts): RunSummary {
  const clock = event.options.clock === 'virtual' ? 'virtual' : 'real';
  return {
    id: event.runId,
    flow: event.flow,
    flowName: event.flowName,
    status: 'running',
    clock,
    startedAt: event.ts,
    endedAt: null,
    durationMs: null,
    startedWall: wallOf(clock, event.ts, receivedAt),
    endedWall: null,
    step: event.resumeStep,
    maxSteps: event.options.maxSteps,
    flowSteps: event.flowSteps ?? null,
    attempts: 0,
    errorCount: 0,
    retrying: null,
    resumedFrom: event.resumedFrom,
    retryOf: event.retryOf,
    lastError: null,
    endingError: null,
    // As the service's summary says it: an external run (agent telemetry) is watched, not run.
    ...(event.external ? { source: event.external.origin } : {}),
    ...(event.external?.spawnedBy ? { spawnedBy: event.external.spawnedBy.runId } : {}),
  };
}

/** Backoffs known from a loaded summary: only its earliest one is visible there. */
export function backoffsOf(summary: RunSummary): Backoffs {
  if (!summary.retrying) return NO_BACKOFFS;
  const { taskId, nextAttemptAt, delayMs } = summary.retrying;
  // A summary's usage-limit wait is its earliest backoff's when they are the same instant.
  const usageLimit = summary.waitingUntil != null && summary.waitingUntil === nextAttemptAt;
  return new Map([[taskId, { nextAttemptAt, delayMs, ...(usageLimit ? { usageLimit } : {}) }]]);
}

function earliest(backoffs: Backoffs): RunSummary['retrying'] {
  let best: RunSummary['retrying'] = null;
  for (const [taskId, b] of backoffs) {
    if (best === null || b.nextAttemptAt < best.nextAttemptAt) best = { taskId, nextAttemptAt: b.nextAttemptAt, delayMs: b.delayMs };
  }
  return best;
}

/** The earliest usage-limit wait (the store's runs.waiting_until, mirrored). */
function earliestLimitWait(backoffs: Backoffs): number | null {
  let at: number | null = null;
  for (const b of backoffs.values()) if (b.usageLimit === true && (at === null || b.nextAttemptAt < at)) at = b.nextAttemptAt;
  return at;
}

function sameRetrying(a: RunSummary['retrying'], b: RunSummary['retrying']): boolean {
  if (a === null || b === null) return a === b;
  return a.taskId === b.taskId && a.nextAttemptAt === b.nextAttemptAt && a.delayMs === b.delayMs;
}

function withBackoff(backoffs: Backoffs, taskId: string, value: { nextAttemptAt: number; delayMs: number; usageLimit?: boolean } | null): Backoffs {
  if (value === null && !backoffs.has(taskId)) return backoffs;
  const next = new Map(backoffs);
  if (value === null) next.delete(taskId);
  else next.set(taskId, value);
  return next;
}

/** The run ended by `event`, with the status the store's row gets (core/common/run-statuses.ts). */
function ended(summary: RunSummary, event: HivewatchEvent, receivedAt: number): RunSummary {
  const status = endedStatusOf(event) ?? summary.status;
  const endedWall = wallOf(summary.clock, event.ts, receivedAt);
  return { ...summary, status, endedAt: event.ts, durationMs: event.ts - summary.startedAt, endedWall, retrying: null };
}

function reduceSummary(s: RunSummary, event: HivewatchEvent, receivedAt: number): RunSummary {
  switch (event.type) {
    case 'runStarted':
      return { ...summaryFromStart(event, receivedAt), attempts: s.attempts, errorCount: s.errorCount, lastError: s.lastError };
    case 'stepStarted':
      return { ...s, step: event.step };
    case 'attemptStarted':
      return { ...s, attempts: s.attempts + 1 };
    case 'attemptSucceeded':
    case 'attemptFailed':
      return event.usage ? { ...s, usage: addAttemptUsage(s.usage ?? null, event.usage, event.type === 'attemptFailed') } : s;
    case 'errorOccurred':
      return { ...s, errorCount: s.errorCount + 1, lastError: { code: event.error.code, message: event.error.message } };
    case 'runCancelling':
      return { ...s, status: 'cancelling' };
    // As in the store's projection, only errorOccurred sets the last error (a run-level failure
    // journals one of its own); the ending error is applyToLiveRun's. A quiet external session
    // ends like a run, and telemetry again reopens it, as the store's run row does.
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
      return ended(s, event, receivedAt);
    case 'externalRunReopened':
      return { ...s, status: 'running', endedAt: null, durationMs: null, endedWall: null };
    // A run's parent named after it started (the store keeps the first one named, as here).
    case 'externalRunSpawned':
      return s.spawnedBy ? s : { ...s, spawnedBy: event.spawnedBy.runId, flowName: event.flowName ?? s.flowName };
    default:
      return s;
  }
}

const NO_PENDING: readonly PendingOccurrence[] = [];

/** The summary with the ending error the event leaves (core/common/ending-chain.ts, as the store settles it). */
function withEnding(after: RunSummary, event: HivewatchEvent, pending: readonly PendingOccurrence[]): RunSummary {
  if (!changesEnding(event)) return after;
  const chain = endingChainAt(event, pending);
  return chain === undefined ? after : { ...after, endingError: endingOfChain(chain) };
}

function reduceBackoffs(backoffs: Backoffs, event: HivewatchEvent): Backoffs {
  switch (event.type) {
    case 'retryScheduled':
      return withBackoff(backoffs, event.taskId, { nextAttemptAt: event.nextAttemptAt, delayMs: event.delayMs, usageLimit: event.usageLimit !== undefined });
    case 'externalLimitReached':
      return withBackoff(backoffs, event.taskId, { nextAttemptAt: event.resetAt, delayMs: Math.max(0, event.resetAt - event.ts), usageLimit: true });
    case 'externalLimitLifted':
    case 'taskStarted':
    case 'attemptStarted':
    case 'backoffSkipped':
    case 'taskSucceeded':
    case 'taskFailed':
      return withBackoff(backoffs, event.taskId, null);
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
      return NO_BACKOFFS;
    default:
      return backoffs;
  }
}

/**
 * Applies one event of the run (in seq order) to its live row. `receivedAt`: the wall time the
 * window got it (a virtual-clock run's wall times come from it).
 */
export function applyToLiveRun(current: LiveRun | undefined, event: HivewatchEvent, receivedAt = event.ts): LiveRun | undefined {
  if (!current) {
    return event.type === 'runStarted' ? { summary: summaryFromStart(event, receivedAt), backoffs: NO_BACKOFFS, pending: NO_PENDING } : undefined;
  }
  const backoffs = reduceBackoffs(current.backoffs, event);
  const before = current.pending ?? NO_PENDING;
  let summary = withSilenceHeard(withApproval(withEnding(reduceSummary(current.summary, event, receivedAt), event, before), event), event);
  const pending = nextPending(before, event, isTerminal(current.summary.status));
  const retrying = isTerminal(summary.status) ? null : earliest(backoffs);
  if (!sameRetrying(retrying, summary.retrying)) summary = { ...summary, retrying };
  const waitingUntil = retrying === null ? null : earliestLimitWait(backoffs);
  if (waitingUntil !== (summary.waitingUntil ?? null)) summary = { ...summary, waitingUntil };
  if (summary === current.summary && backoffs === current.backoffs && pending === before) return current;
  return { summary, backoffs, pending };
}
