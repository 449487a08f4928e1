import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../base/approval-wait.js';
import type { EventOf, HivewatchEvent, RunStatus, SpawnedBy } from '../base/events.js';
import { endedStatusOf } from './run-statuses.js';

/**
 * A run's fields as its events set them, written once: the store's projection keeps them on its
 * run row (core/store/projection/run-reducer.ts, whose `RunRow` extends `RunFields` by the store's
 * own columns) and the window keeps them on a live row of the Runs table (renderer/live/run-summary.ts,
 * through `runSummaryFields`), so the table says what the store would say without asking it.
 *
 * In place, on an object the caller owns: the store changes its own copy of a row on its hot path
 * and must not pay for a spread per event. The names are the store's columns.
 */
export interface RunFields {
  /** The flow file as the engine named it in `runStarted`. */
  flow: string;
  flowName: string;
  status: RunStatus;
  /** The run's own clock (virtual for a virtual-clock run), as `durationMs` is. */
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  /** Wall-clock time of `runStarted` / the terminal event (the caller says what wall time an event has). */
  startedWall: number;
  endedWall: number | null;
  maxSteps: number | null;
  clock: string | null;
  /** The latest `stepStarted` (the resume step before the first one). */
  currentStep: number;
  attemptCount: number;
  errorCount: number;
  resumedFrom: string | null;
  retryOf: string | null;
  lastErrorCode: string | null;
  lastErrorCategory: string | null;
  lastErrorMessage: string | null;
  flowSteps: number | null;
  flowStepsMost: number | null;
  /** Waiting on a person (docs/otel.md "Waiting for approval"): the prompt open now, null when none. */
  approvalSince: number | null;
  approvalLabel: string | null;
  /** The time the run waited on a person over its prompts that ended (ms). */
  approvalWaitMs: number;
}

/** The fields of a run before its first event (or of a journal whose first event is not `runStarted`). */
export function emptyRunFields(ts: number, wall = ts): RunFields {
  return {
    flow: '',
    flowName: '',
    status: 'running',
    startedAt: ts,
    endedAt: null,
    durationMs: null,
    startedWall: wall,
    endedWall: null,
    maxSteps: null,
    clock: null,
    currentStep: 0,
    attemptCount: 0,
    errorCount: 0,
    resumedFrom: null,
    retryOf: null,
    lastErrorCode: null,
    lastErrorCategory: null,
    lastErrorMessage: null,
    flowSteps: null,
    flowStepsMost: null,
    approvalSince: null,
    approvalLabel: null,
    approvalWaitMs: 0,
  };
}

const isApprovalEvent = (event: HivewatchEvent): event is HivewatchEvent & EventOf<'externalEvent'> =>
  event.type === 'externalEvent' && (event.name === APPROVAL_REQUESTED || event.name === APPROVAL_ENDED);

/** Whether `event` changes a run's fields (the events `setRunFields` applies). */
export function changesRunFields(run: RunFields, event: HivewatchEvent): boolean {
  switch (event.type) {
    case 'runStarted':
    case 'stepStarted':
    case 'attemptStarted':
    case 'errorOccurred':
    case 'runCancelling':
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
    case 'externalRunReopened':
      return true;
    // A subagent's run takes its name from the record that links it (the first one named keeps
    // the link, spawnOf; its name is whatever the latest such record said).
    case 'externalRunSpawned':
      return event.flowName !== undefined && event.flowName !== run.flowName;
    case 'externalEvent':
      return isApprovalEvent(event);
    default:
      return false;
  }
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A permission prompt's start sets the run waiting on a person; its end adds the time waited. */
function setApprovalFields(r: RunFields, event: HivewatchEvent & EventOf<'externalEvent'>): void {
  const a = event.attributes;
  if (event.name === APPROVAL_REQUESTED) {
    r.approvalSince = finite(a.since) ?? event.ts;
    r.approvalLabel = typeof a.label === 'string' ? a.label : typeof a.tool === 'string' ? a.tool : 'a tool';
    return;
  }
  r.approvalSince = null;
  r.approvalLabel = null;
  r.approvalWaitMs += Math.max(0, Math.round(finite(a.waitedMs) ?? 0));
}

/** The run ends with the status the shared rule gives the event; a run that ends waits on no one. */
function end(r: RunFields, event: HivewatchEvent, wall: number): void {
  r.status = endedStatusOf(event) ?? r.status;
  r.endedAt = event.ts;
  r.durationMs = event.ts - r.startedAt;
  r.endedWall = wall;
  r.approvalSince = null;
  r.approvalLabel = null;
}

function start(r: RunFields, event: EventOf<'runStarted'>, wall: number): void {
  r.flow = event.flow;
  r.flowName = event.flowName;
  r.status = 'running';
  r.startedAt = event.ts;
  r.startedWall = wall;
  r.maxSteps = event.options.maxSteps;
  r.clock = event.options.clock;
  r.resumedFrom = event.resumedFrom ?? null;
  r.retryOf = event.retryOf ?? null;
  r.currentStep = event.resumeStep;
  r.flowSteps = event.flowSteps?.expected ?? null;
  r.flowStepsMost = event.flowSteps?.most ?? null;
}

/**
 * Applies an event that `changesRunFields` to fields the caller owns. `wall`: the event's wall
 * time (the store's journaled one; the window's estimate for a virtual-clock run).
 */
export function setRunFields(r: RunFields, event: HivewatchEvent, wall: number = event.ts): void {
  switch (event.type) {
    case 'runStarted':
      start(r, event, wall);
      return;
    case 'stepStarted':
      r.currentStep = event.step;
      return;
    case 'attemptStarted':
      r.attemptCount += 1;
      return;
    // Only errorOccurred sets the last error: a run-level failure journals one of its own.
    case 'errorOccurred':
      r.errorCount += 1;
      r.lastErrorCode = event.error.code;
      r.lastErrorCategory = event.error.category;
      r.lastErrorMessage = event.error.message;
      return;
    case 'runCancelling':
      r.status = 'cancelling';
      return;
    // A quiet external session ends like a run, and telemetry again reopens it.
    case 'runCompleted':
    case 'runFailed':
    case 'runCancelled':
    case 'runInterrupted':
    case 'externalRunIdle':
      end(r, event, wall);
      return;
    case 'externalRunReopened':
      r.status = 'running';
      r.endedAt = null;
      r.durationMs = null;
      r.endedWall = null;
      return;
    case 'externalRunSpawned':
      if (event.flowName !== undefined) r.flowName = event.flowName;
      return;
    case 'externalEvent':
      if (isApprovalEvent(event)) setApprovalFields(r, event);
      return;
    default:
      return;
  }
}

/**
 * The agent that started this event's run, when the event names one: `runStarted` of a subagent's
 * run, or `externalRunSpawned` naming the parent of a run already started. A run has one parent,
 * the first one named; a spawn that names the run itself is not a tree and is ignored.
 */
export function spawnOf(event: HivewatchEvent): SpawnedBy | undefined {
  const s = event.type === 'runStarted' ? event.external?.spawnedBy : event.type === 'externalRunSpawned' ? event.spawnedBy : undefined;
  return s && s.runId !== event.runId ? s : undefined;
}
