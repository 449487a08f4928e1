import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../../base/approval-wait.js';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import type { RunRow } from './schema.js';

/**
 * The run row's "waiting for approval" fields (migration 25) from the two approval events the
 * telemetry mapping journals (core/base/approval-wait.ts): the prompt open now (its start and
 * label) and the total time the run waited on a person. A run that ends stops waiting.
 */

export const isApprovalEvent = (event: HivewatchEvent): event is HivewatchEvent & EventOf<'externalEvent'> =>
  event.type === 'externalEvent' && (event.name === APPROVAL_REQUESTED || event.name === APPROVAL_ENDED);

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Applies an approval event to a row the caller owns. */
export function setApprovalFields(r: RunRow, event: HivewatchEvent & EventOf<'externalEvent'>): void {
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

/** A run that ends waits no more (its telemetry's own ending event usually said so first). */
export function endApprovalWait(r: RunRow): void {
  r.approvalSince = null;
  r.approvalLabel = null;
}
