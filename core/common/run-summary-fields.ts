import type { RunStatus } from '../base/events.js';
import type { RunFields } from './run-fields.js';

/**
 * A run's shared fields (run-fields.ts) as the API's run summary says them, and back: the service
 * maps a stored row with it (core/service/mapping.ts) and the window a live row of the Runs table
 * (renderer/live/run-summary.ts), so both read the same fields the same way.
 */

/** The part of the API's `RunSummary` the shared fields make (`approval` / `approvalWaitMs` only when set). */
export interface RunSummaryFields {
  flow: string;
  flowName: string;
  status: RunStatus;
  clock: 'real' | 'virtual';
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  startedWall: number;
  endedWall: number | null;
  step: number;
  maxSteps: number;
  flowSteps: { expected: number; most: number } | null;
  attempts: number;
  errorCount: number;
  approval?: { label: string; since: number };
  approvalWaitMs?: number;
  resumedFrom: string | null;
  retryOf: string | null;
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
