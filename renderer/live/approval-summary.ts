import type { HivewatchEvent, RunSummary } from '../../core/service/api.js';

/**
 * A live run's "waiting for approval" (docs/otel.md "Waiting for approval"), as the store's
 * projection sets it (core/store/projection/approval-reducer.ts): a prompt's start sets `approval`, its end
 * clears it and adds the time waited to `approvalWaitMs`; a run that ends waits no more. The
 * event names are the ones core/base/approval-wait.ts journals (the renderer sees only types
 * from core/, so they are repeated here; e2e/approval-wait.test.ts holds the two together).
 */

export const APPROVAL_REQUESTED = 'hivewatch.approval_requested';
export const APPROVAL_ENDED = 'hivewatch.approval_ended';

const ENDS_RUN: ReadonlySet<HivewatchEvent['type']> = new Set(['runCompleted', 'runFailed', 'runCancelled', 'runInterrupted', 'externalRunIdle']);

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function withApproval(s: RunSummary, event: HivewatchEvent): RunSummary {
  if (ENDS_RUN.has(event.type)) return s.approval ? { ...s, approval: null } : s;
  if (event.type !== 'externalEvent') return s;
  const a = event.attributes;
  if (event.name === APPROVAL_REQUESTED) {
    const label = typeof a.label === 'string' ? a.label : typeof a.tool === 'string' ? a.tool : 'a tool';
    return { ...s, approval: { label, since: finite(a.since) ?? event.ts } };
  }
  if (event.name === APPROVAL_ENDED) {
    return { ...s, approval: null, approvalWaitMs: (s.approvalWaitMs ?? 0) + Math.max(0, Math.round(finite(a.waitedMs) ?? 0)) };
  }
  return s;
}
