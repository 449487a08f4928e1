import type { RunStatus } from '../base/events.js';
import type { RunFields } from './run-fields.js';

/**
 * A run's shared fields (run-fields.ts) as the API's run summary says them, and back: the service
 * maps a stored row with it (core/service/mapping.ts) and the window a live row of the Runs table
 * (renderer/live/run-summary.ts), so both read the same fields the same way.
 */

/**
 * The part of the API's `RunSummary` the shared fields make, each field's meaning said once here
 * (`approval` / `approvalWaitMs` only when set).
 */
export interface RunSummaryFields {
  flow: string;
  flowName: string;
  status: RunStatus;
  /** The run's clock: `startedAt`, `endedAt` and `durationMs` are on it (virtual: runs ahead). */
  clock: 'real' | 'virtual';
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  /** Wall-clock start and end (what "2 min ago" and a real duration are made of). */
  startedWall: number;
  endedWall: number | null;
  /** The step reached (the latest started; the resume step before a resumed run's first). */
  step: number;
  maxSteps: number;
  /**
   * How many steps the run's flow takes (core/flow/plan/step-count.ts): `expected` when no session
   * fails, `most` with every catch block run. Null when timing decides it, for an external run
   * and for a run journaled before the count (the window then shows the step alone).
   */
  flowSteps: { expected: number; most: number } | null;
  attempts: number;
  errorCount: number;
  /**
   * Set while the run waits on a person's answer to a permission prompt (the `waiting-approval`
   * state, docs/otel.md "Waiting for approval"): what the prompt asks for and since when.
   * Absent when none is open.
   */
  approval?: { label: string; since: number };
  /** The time the run waited on a person over its prompts that ended (ms; 0 when none). */
  approvalWaitMs?: number;
  resumedFrom: string | null;
  retryOf: string | null;
  /** The newest error occurrence of the run, whatever became of it (a live run's retry, say). */
  lastError: { code: string; message: string } | null;
}

export function runSummaryFields(f: RunFields): RunSummaryFields {
  return {
    flow: f.flow,
    flowName: f.flowName,
    status: f.status,
    clock: f.clock === 'virtual' ? 'virtual' : 'real',
    startedAt: f.startedAt,
    endedAt: f.endedAt,
    durationMs: f.durationMs,
    startedWall: f.startedWall,
    endedWall: f.endedWall,
    step: f.currentStep,
    maxSteps: f.maxSteps ?? 0,
    flowSteps: f.flowSteps !== null ? { expected: f.flowSteps, most: f.flowStepsMost ?? f.flowSteps } : null,
    attempts: f.attemptCount,
    errorCount: f.errorCount,
    ...(f.approvalSince !== null ? { approval: { label: f.approvalLabel ?? 'a tool', since: f.approvalSince } } : {}),
    ...(f.approvalWaitMs > 0 ? { approvalWaitMs: f.approvalWaitMs } : {}),
    resumedFrom: f.resumedFrom,
    retryOf: f.retryOf,
    lastError: f.lastErrorCode !== null ? { code: f.lastErrorCode, message: f.lastErrorMessage ?? '' } : null,
  };
}

/** What a summary the window loaded says of the shared fields (it does not carry the last error's category). */
export interface LoadedRunSummary extends Omit<RunSummaryFields, 'flowSteps' | 'approval'> {
  flowSteps?: { expected: number; most: number } | null;
  approval?: { label: string; since: number } | null;
}

/** The shared fields of a loaded summary, for the rule to go on from (the inverse of `runSummaryFields`). */
export function runFieldsOfSummary(s: LoadedRunSummary): RunFields {
  return {
    flow: s.flow,
    flowName: s.flowName,
    status: s.status,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    durationMs: s.durationMs,
    startedWall: s.startedWall,
    endedWall: s.endedWall,
    maxSteps: s.maxSteps,
    clock: s.clock,
    currentStep: s.step,
    attemptCount: s.attempts,
    errorCount: s.errorCount,
    resumedFrom: s.resumedFrom,
    retryOf: s.retryOf,
    lastErrorCode: s.lastError?.code ?? null,
    lastErrorCategory: null,
    lastErrorMessage: s.lastError?.message ?? null,
    flowSteps: s.flowSteps?.expected ?? null,
    flowStepsMost: s.flowSteps?.most ?? null,
    approvalSince: s.approval?.since ?? null,
    approvalLabel: s.approval?.label ?? null,
    approvalWaitMs: s.approvalWaitMs ?? 0,
  };
}
