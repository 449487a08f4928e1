import type { HivewatchStore } from '../../store/contract.js';
import type { Occurrence } from './occurrences.js';
import type { AlertRule } from './rules.js';

/**
 * `approval-pending-longer-than=N`: a run whose permission prompt has waited on a person longer
 * than N (docs/otel.md "Waiting for approval"). Checked on every pass, as running-longer-than is,
 * against the runs waiting for approval now (the `waiting-approval` filter, one partial index).
 * One delivery per prompt: the occurrence is the prompt's start, so a second prompt of the same
 * run alerts again and the same prompt never twice.
 */

const APPROVAL_PENDING = 'approval-pending-longer-than';

/** How many waiting runs one pass reads: more than any operator answers prompts for. */
const PAGE = 500;

export async function approvalPendingOccurrences(store: HivewatchStore, rules: readonly AlertRule[], now: number): Promise<Occurrence[]> {
  if (!rules.some((r) => r.condition === APPROVAL_PENDING)) return [];
  const page = await store.listRuns({ status: ['waiting-approval'], limit: PAGE });
  const found: Occurrence[] = [];
  for (const run of page.runs) {
    if (run.approvalSince === null) continue;
    const approval = { since: run.approvalSince, label: run.approvalLabel ?? 'a tool' };
    const pendingMs = now - approval.since;
    const title = `Run ${run.id} of ${run.flowName} is waiting for approval of ${approval.label} for ${Math.floor(pendingMs / 60_000)} min`;
    found.push({
      condition: APPROVAL_PENDING,
      subject: run.id,
      occurrence: `approval:${approval.since}`,
      throttleKey: `flow:${run.flow}`,
      title,
      flow: run.flow,
      flowName: run.flowName,
      code: null,
      category: null,
      approvalPendingMs: pendingMs,
      facts: { condition: APPROVAL_PENDING, text: title, runId: run.id, flow: run.flow, at: now, tool: approval.label, pendingSince: approval.since },
    });
  }
  return found;
}
