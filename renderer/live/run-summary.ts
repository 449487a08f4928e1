import type { HivewatchEvent, RunSummary } from '../../core/service/api.js';
import { withSilenceHeard } from './silence-summary.js';
import { changesEnding, endingChainAt, endingOfChain, nextPending, type PendingOccurrence } from '../../core/common/ending-chain.js';
import { changesRunFields, emptyRunFields, setRunFields, spawnOf } from '../../core/common/run-fields.js';
import { runFieldsOfSummary, runSummaryFields } from '../../core/common/run-summary-fields.js';
import { isTerminal } from '../../core/common/run-statuses.js';
import { addAttemptUsage } from './run-usage.js';

/**
 * Keeps a run's table row current from its live events, so 10,000 rows stay live without
 * refetching them. The fields the store's run row has too follow the rule the store's projection
 * applies (core/common/run-fields.ts); this file adds what the window keeps of its own: the
 * backoffs behind the retrying badge, the ending error's pending links, usage, the parent.
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

type RunStartedEvent = Extract<HivewatchEvent, { type: 'runStarted' }>;

const clockOf = (event: RunStartedEvent): RunSummary['clock'] => (event.options.clock === 'virtual' ? 'virtual' : 'real');

/** The summary a run's first event describes. */
function summaryFromStart(event: RunStartedEvent, receivedAt: number): RunSummary {
  const wall = wallOf(clockOf(event), event.ts, receivedAt);
  const fields = emptyRunFields(event.ts, wall);
  setRunFields(fields, event, wall);
  const parent = spawnOf(event);
  return {
    id: event.runId,
    ...runSummaryFields(fields),
    retrying: null,
    endingError: null,
    // As the service's summary says it: an external run (agent telemetry) is watched, not run.
    ...(event.external ? { source: event.external.origin } : {}),
    ...(parent ? { spawnedBy: parent.runId } : {}),
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

/** The summary with the shared fields (core/common/run-fields.ts) the event sets. */
function withRunFields(s: RunSummary, event: HivewatchEvent, receivedAt: number): RunSummary {
  const fields = runFieldsOfSummary(s);
  if (!changesRunFields(fields, event)) return s;
  setRunFields(fields, event, wallOf(event.type === 'runStarted' ? clockOf(event) : s.clock, event.ts, receivedAt));
  // The approval fields are present only while set, as the service's summary has them.
  const { approval: _approval, approvalWaitMs: _waited, ...rest } = s;
  return { ...rest, ...runSummaryFields(fields) };
}

/** What the window keeps of its own: usage and the parent (the store keeps both in tables of their own). */
function withOwnFields(s: RunSummary, event: HivewatchEvent): RunSummary {
  switch (event.type) {
    case 'attemptSucceeded':
    case 'attemptFailed':
      return event.usage ? { ...s, usage: addAttemptUsage(s.usage ?? null, event.usage, event.type === 'attemptFailed') } : s;
    case 'runStarted':
      return withParent(event.external && s.source !== event.external.origin ? { ...s, source: event.external.origin } : s, event);
    case 'externalRunSpawned':
      return withParent(s, event);
    default:
      return s;
  }
}

/** A run's parent, the first one named (the store's agent_spawns keeps the first, as here). */
function withParent(s: RunSummary, event: HivewatchEvent): RunSummary {
  const parent = spawnOf(event);
  return parent && !s.spawnedBy ? { ...s, spawnedBy: parent.runId } : s;
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
  let summary = withSilenceHeard(withEnding(withOwnFields(withRunFields(current.summary, event, receivedAt), event), event, before), event);
  const pending = nextPending(before, event, isTerminal(current.summary.status));
  const retrying = isTerminal(summary.status) ? null : earliest(backoffs);
  if (!sameRetrying(retrying, summary.retrying)) summary = { ...summary, retrying };
  const waitingUntil = retrying === null ? null : earliestLimitWait(backoffs);
  if (waitingUntil !== (summary.waitingUntil ?? null)) summary = { ...summary, waitingUntil };
  if (summary === current.summary && backoffs === current.backoffs && pending === before) return current;
  return { summary, backoffs, pending };
}
