import { all, get, type Dialect, type Query } from '../queries/plan.js';

/**
 * What an issue's page reads besides its counts, each an indexed read bounded by one issue:
 * its first occurrence (through the errors' `(fingerprint, ts)` index), the run of the same flow
 * started before another (through `runs_flow`), the flows it happened in (migration 18's
 * `error_group_flows`), and what its failed runs cost (its ending occurrences and their runs'
 * usage totals, migration 16's `run_usage`).
 */

export interface OccurrenceRef {
  runId: string;
  seq: number;
  ts: number;
}

/** The issue's first occurrence, or null when it has none left (pruned). */
export function* firstOccurrence(_dialect: Dialect, fingerprint: string): Query<OccurrenceRef | null> {
  const row = yield* get<{ run_id: string; seq: number; ts: number }>(
    'SELECT run_id, seq, ts FROM errors WHERE fingerprint = ? ORDER BY ts, run_id, seq LIMIT 1',
    [fingerprint],
  );
  return row ? { runId: row.run_id, seq: Number(row.seq), ts: Number(row.ts) } : null;
}

export interface FlowRun {
  id: string;
  flow: string;
  flowName: string;
  startedAt: number;
}

type FlowRunRecord = { id: string; flow: string; flow_name: string; started_at: number };
const flowRun = (r: FlowRunRecord): FlowRun => ({ id: r.id, flow: r.flow, flowName: r.flow_name, startedAt: Number(r.started_at) });

export function* runOf(_dialect: Dialect, runId: string): Query<FlowRun | null> {
  const row = yield* get<FlowRunRecord>('SELECT id, flow, flow_name, started_at FROM runs WHERE id = ?', [runId]);
  return row ? flowRun(row) : null;
}

/** The run of the same flow file started last before `run` (ties by id), or null for the flow's first run. */
export function* runBefore(_dialect: Dialect, run: FlowRun): Query<FlowRun | null> {
  const row = yield* get<FlowRunRecord>(
    `SELECT id, flow, flow_name, started_at FROM runs WHERE flow = ? AND (started_at < ? OR (started_at = ? AND id < ?))
      ORDER BY started_at DESC, id DESC LIMIT 1`,
    [run.flow, run.startedAt, run.startedAt, run.id],
  );
  return row ? flowRun(row) : null;
}

export interface IssueFlow {
  flow: string;
  /** The flow's latest name (a run's `flowName`). */
  flowName: string;
  /** Occurrences in it, all time. */
  occurrences: number;
}

/** The flows an issue happened in, most occurrences first. */
export function* issueFlows(_dialect: Dialect, fingerprint: string): Query<IssueFlow[]> {
  const rows = yield* all<{ flow: string; occurrences: number; flow_name: string | null }>(
    `SELECT f.flow, f.occurrences,
        (SELECT r.flow_name FROM runs AS r WHERE r.flow = f.flow ORDER BY r.started_at DESC LIMIT 1) AS flow_name
      FROM error_group_flows AS f WHERE f.fingerprint = ? ORDER BY f.occurrences DESC, f.flow LIMIT 100`,
    [fingerprint],
  );
  return rows.map((r) => ({ flow: r.flow, flowName: r.flow_name ?? r.flow, occurrences: Number(r.occurrences) }));
}

export interface IssueFailedRunsCost {
  /** Runs that ended failed on this issue. */
  failedRuns: number;
  /** Of those, the runs that reported any usage. */
  reported: number;
  /** What the reporting ones cost, in US dollars (priced attempts only). */
  costUsd: number;
  /** Attempts among them that reported tokens without a price: their cost is unknown. */
  unknownCostAttempts: number;
}

/** What the runs that failed on this issue cost: their ending occurrences joined to their runs' usage totals. */
export function* issueFailedRunsCost(_dialect: Dialect, fingerprint: string): Query<IssueFailedRunsCost> {
  const row = yield* get<{ runs: number; reported: number; cost: number | null; unknown: number | null }>(
    `SELECT COUNT(*) AS runs, COUNT(u.run_id) AS reported, SUM(u.cost_usd) AS cost, SUM(u.unknown_cost_attempts) AS unknown
      FROM errors AS e LEFT JOIN run_usage AS u ON u.run_id = e.run_id WHERE e.fingerprint = ? AND e.ending = 1`,
    [fingerprint],
  );
  return {
    failedRuns: Number(row?.runs ?? 0),
    reported: Number(row?.reported ?? 0),
    costUsd: Number(row?.cost ?? 0),
    unknownCostAttempts: Number(row?.unknown ?? 0),
  };
}
