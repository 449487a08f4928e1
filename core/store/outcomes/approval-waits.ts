import { hinted } from '../queries/dialect-sql.js';
import { all, type Dialect, type Query } from '../queries/plan.js';

/**
 * Each flow's time waiting on a person (core/store/projection/approval-reducer.ts): what its runs that ended
 * in the window waited on permission prompts, how many of them waited at all, and how many of
 * its runs wait for approval now. Both reads go through migration 25's partial indexes, which
 * hold only the runs that waited or wait.
 */

export interface FlowApprovalWaits {
  /** Total ms the flow's runs that ended in the window waited on a person. */
  waitedMs: number;
  /** How many of those runs waited at all. */
  runs: number;
  /** How many of the flow's runs wait for approval now. */
  waitingNow: number;
}

export const noApprovalWaits = (): FlowApprovalWaits => ({ waitedMs: 0, runs: 0, waitingNow: 0 });

export function* approvalWaitsByFlow(dialect: Dialect, since: number | undefined, until: number | undefined): Query<Map<string, FlowApprovalWaits>> {
  const window: string[] = [];
  const params: number[] = [];
  if (since !== undefined) {
    window.push('ended_wall >= ?');
    params.push(since);
  }
  if (until !== undefined) {
    window.push('ended_wall < ?');
    params.push(until);
  }
  // Grouped by flow, SQLite without statistics would walk all of runs_flow (every run: ~0.5-2 s
  // at a million runs) rather than the few runs in the partial index, to spare itself a sort of
  // a handful of groups; `+flow` keeps both reads off it. With a window closed at both ends the
  // planner found the index anyway, with only a start (the Flows screen) it did not.
  const waited = yield* all<{ flow: string; waited: number | string; runs: number | string }>(
    `SELECT flow, SUM(approval_wait_ms) AS waited, COUNT(*) AS runs FROM runs WHERE approval_wait_ms > 0 AND ended_wall IS NOT NULL${window.map((w) => ` AND ${w}`).join('')} GROUP BY ${hinted(dialect, 'flow', true)}`,
    params,
  );
  const now = yield* all<{ flow: string; n: number | string }>(
    `SELECT flow, COUNT(*) AS n FROM runs WHERE approval_since IS NOT NULL GROUP BY ${hinted(dialect, 'flow', true)}`,
  );
  const byFlow = new Map<string, FlowApprovalWaits>();
  const of = (flow: string): FlowApprovalWaits => byFlow.get(flow) ?? byFlow.set(flow, noApprovalWaits()).get(flow)!;
  for (const r of waited) Object.assign(of(r.flow), { waitedMs: Number(r.waited), runs: Number(r.runs) });
  for (const r of now) of(r.flow).waitingNow = Number(r.n);
  return byFlow;
}
