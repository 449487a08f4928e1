import type { RunStatus } from '../../base/events.js';
import { all, get, type Dialect, type Query } from '../queries/plan.js';
import { optionalTime } from '../queries/sql.js';
import { planCoarseWindow } from '../rollups/rollups.js';
import { approvalWaitsByFlow, noApprovalWaits, type FlowApprovalWaits } from './approval-waits.js';
import { costSplit, emptySplit, type CostSplit } from './cost-split.js';
import { durationBucketSql, medianOfBuckets } from './durations.js';
import { hinted } from '../queries/dialect-sql.js';
import { ENDED_STATUSES, endedSql, RUN_OUTCOME_TABLE } from './run-outcomes-sql.js';

/**
 * Each flow's health over a window (migration 21): its newest run's status, the runs that ended
 * in the window by status (so its failures and success rate), the median duration of its
 * completed runs, and what it spent split by outcome. Every figure but the newest run comes from
 * rollups (whole days and hours) and the partial hours at the window's edges; the newest run is
 * one lookup per flow in the flow's start-time index.
 */

type EndedStatus = (typeof ENDED_STATUSES)[number];

export interface FlowHealth {
  flow: string;
  /** The flow's name as its newest run recorded it. */
  flowName: string;
  lastRun: { id: string; status: RunStatus; startedWall: number } | null;
  /** Runs that ended in the window (by their end wall time), by status. */
  ended: Record<EndedStatus, number>;
  /** Completed ÷ (completed + failed) in the window; null when none reached either (cancelled and interrupted runs are no verdict on the flow). */
  successRate: number | null;
  /** The median duration (run clock) of the runs that completed in the window, within 5 % (durations.ts); null without any. */
  p50DurationMs: number | null;
  /** What its attempts spent in the window, by outcome. */
  cost: CostSplit;
  /** Its time waiting on a person: runs that ended in the window, and runs waiting now (approval-waits.ts). */
  approval: FlowApprovalWaits;
}

export interface FlowHealthQuery {
  since?: number;
  until?: number;
  /** The end of an open window (the caller's clock), for the cost trend. */
  now?: number;
}

interface OutcomeRow {
  flow: string;
  status: string;
  duration_bucket: number | string;
  runs: number | string;
}

function* outcomeRows(dialect: Dialect, since: number | undefined, until: number | undefined): Query<OutcomeRow[]> {
  const plan = planCoarseWindow(since, until);
  const rows: OutcomeRow[] = [];
  const read = function* (table: string, from: number, to: number): Query<void> {
    if (to <= from) return;
    rows.push(
      ...(yield* all<OutcomeRow>(
        `SELECT flow, status, duration_bucket, SUM(runs) AS runs FROM ${table} WHERE bucket >= ? AND bucket < ? GROUP BY flow, status, duration_bucket`,
        [from, to],
      )),
    );
  };
  yield* read(RUN_OUTCOME_TABLE.day, plan.days.from, plan.days.to);
  for (const hours of plan.hours) yield* read(RUN_OUTCOME_TABLE.hour, hours.from, hours.to);
  const duration = durationBucketSql('r.duration_ms');
  // An edge is at most an hour of ended runs: the range of runs_ended_wall (migration 21), which
  // holds every column read. Without statistics SQLite prefers the equality on `status` and reads
  // every completed run through runs_status (930,000 per edge at a million runs, 6-8 s): `+status`
  // keeps it off that index.
  const ended = endedSql('r', hinted(dialect, 'r.status', true));
  for (const edge of plan.edges) {
    if (edge.to <= edge.from) continue;
    rows.push(
      ...(yield* all<OutcomeRow>(
        `SELECT r.flow AS flow, r.status AS status, ${duration} AS duration_bucket, COUNT(*) AS runs FROM runs AS r
          WHERE r.ended_wall >= ? AND r.ended_wall < ? AND ${ended}
          GROUP BY r.flow, r.status, ${duration}`,
        [edge.from, edge.to],
      )),
    );
  }
  return rows;
}

const noneEnded = (): Record<EndedStatus, number> => ({ completed: 0, failed: 0, cancelled: 0, interrupted: 0 });

export function* flowHealth(dialect: Dialect, query: FlowHealthQuery = {}): Query<FlowHealth[]> {
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const now = optionalTime('now', query.now);
  const flows = (yield* all<{ flow: string }>('SELECT DISTINCT flow FROM run_counts WHERE count > 0 ORDER BY flow')).map((r) => r.flow);
  const ended = new Map<string, Record<EndedStatus, number>>();
  const completedDurations = new Map<string, Map<number, number>>();
  for (const row of yield* outcomeRows(dialect, since, until)) {
    const counts = ended.get(row.flow) ?? noneEnded();
    if (!(ENDED_STATUSES as readonly string[]).includes(row.status)) continue;
    counts[row.status as EndedStatus] += Number(row.runs);
    ended.set(row.flow, counts);
    if (row.status === 'completed') {
      const histogram = completedDurations.get(row.flow) ?? new Map<number, number>();
      const bucket = Number(row.duration_bucket);
      histogram.set(bucket, (histogram.get(bucket) ?? 0) + Number(row.runs));
      completedDurations.set(row.flow, histogram);
    }
  }
  const cost = yield* costSplit(dialect, {
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(now !== undefined ? { now } : {}),
  });
  const costs = new Map(cost.flows.map((f) => [f.flow, f.split]));
  const approvals = yield* approvalWaitsByFlow(dialect, since, until);
  const answer: FlowHealth[] = [];
  for (const flow of flows) {
    const last = yield* get<{ id: string; status: RunStatus; started_wall: number | string; flow_name: string }>(
      `SELECT id, status, started_wall, flow_name FROM runs WHERE flow = ? AND started_at = (SELECT MAX(started_at) FROM runs WHERE flow = ?) ORDER BY id DESC LIMIT 1`,
      [flow, flow],
    );
    const counts = ended.get(flow) ?? noneEnded();
    const verdicts = counts.completed + counts.failed;
    answer.push({
      flow,
      flowName: last?.flow_name ?? flow,
      lastRun: last ? { id: last.id, status: last.status, startedWall: Number(last.started_wall) } : null,
      ended: counts,
      successRate: verdicts === 0 ? null : counts.completed / verdicts,
      p50DurationMs: medianOfBuckets(completedDurations.get(flow) ?? new Map()),
      cost: costs.get(flow) ?? emptySplit(),
      approval: approvals.get(flow) ?? noApprovalWaits(),
    });
  }
  return answer;
}
