import { all, type Dialect, type Query } from './plan.js';

/**
 * The telemetry sources expected to be sending now (docs/otel.md "Telemetry health"), derived from
 * what the ingest already keeps: `external_runs.last_event_at` is the wall time of the latest
 * payload that carried a session's events. Two kinds:
 * - an open session seen through its telemetry (not linked to an attempt), unless its silence is
 *   explained: a permission prompt waits on a person, or its usage limit stopped it;
 * - a preset attempt still running whose CLI's telemetry arrived at least once (its sessions'
 *   latest payload, even after the quiet period ended them: the CLI runs on while it says nothing),
 *   or whose CLI was started with its exporter pointed at the receiver (`attempts.telemetry_origin`):
 *   before anything arrived, it is expected from the attempt's start.
 * Whether a source is silent (how long against its interval) is the caller's, with its clock.
 */

export interface TelemetrySource {
  /** The run the silence shows on: the session's own run, or the flow run of the attempt. */
  runId: string;
  flow: string;
  flowName: string;
  /** `runtime:<agent>`. */
  origin: string;
  /** Set for a preset attempt: which one. */
  taskId: string | null;
  attempt: number | null;
  /** Wall ms of the latest payload the source sent for it; null when none arrived yet. */
  lastSeenAt: number | null;
  /** Since when it is expected to send: its last payload, else the attempt's start. */
  expectedSince: number;
}

type SourceRow = {
  run_id: string;
  flow: string;
  flow_name: string;
  origin: string;
  task_id: string | null;
  attempt: number | null;
  last_seen_at: number | string | null;
  expected_since: number | string;
};

const of = (r: SourceRow): TelemetrySource => ({
  runId: r.run_id,
  flow: r.flow,
  flowName: r.flow_name,
  origin: r.origin,
  taskId: r.task_id,
  attempt: r.attempt === null ? null : Number(r.attempt),
  lastSeenAt: r.last_seen_at === null ? null : Number(r.last_seen_at),
  expectedSince: Number(r.expected_since),
});

/**
 * Sources whose latest payload is older than `seenBefore` (wall ms), as of `now`; those of any
 * origin but `fastOrigin` only when older than `othersSeenBefore` too (the sources with a longer
 * interval, read only once they could be silent). Read through the quiet-check index
 * (`idle, last_event_at`) for sessions, and from the running runs down for attempts.
 */
export function* telemetrySources(
  _dialect: Dialect,
  cutoffs: { seenBefore: number; fastOrigin: string; othersSeenBefore: number },
  now: number,
): Query<TelemetrySource[]> {
  const { seenBefore, fastOrigin, othersSeenBefore } = cutoffs;
  const sessions = yield* all<SourceRow>(
    `SELECT x.run_id, r.flow, r.flow_name, x.origin, NULL AS task_id, NULL AS attempt, x.last_event_at AS last_seen_at,
            x.last_event_at AS expected_since
       FROM external_runs AS x JOIN runs AS r ON r.id = x.run_id
      WHERE x.idle = 0 AND x.last_event_at < ? AND (x.last_event_at < ? OR x.origin = ?) AND x.parent_run_id IS NULL
        AND r.status = 'running' AND r.approval_since IS NULL AND (r.waiting_until IS NULL OR r.waiting_until <= ?)
      ORDER BY x.last_event_at, x.run_id`,
    [seenBefore, othersSeenBefore, fastOrigin, now],
  );
  // An attempt's source: the origin of its linked sessions, else the exporter it was started with.
  const origin = 'COALESCE(MIN(x.origin), a.telemetry_origin)';
  const since = 'COALESCE(MAX(x.last_event_at), a.started_at)';
  const attempts = yield* all<SourceRow>(
    `SELECT a.run_id, r.flow, r.flow_name, ${origin} AS origin, a.task_id, a.attempt,
            MAX(x.last_event_at) AS last_seen_at, ${since} AS expected_since
       FROM runs AS r
       JOIN attempts AS a ON a.run_id = r.id AND a.ended_at IS NULL
       LEFT JOIN external_runs AS x ON x.parent_run_id = a.run_id AND x.parent_task_id = a.task_id AND x.parent_attempt = a.attempt
      WHERE r.status = 'running'
      GROUP BY a.run_id, r.flow, r.flow_name, a.task_id, a.attempt, a.telemetry_origin, a.started_at
     HAVING ${origin} IS NOT NULL AND ${since} < ? AND (${since} < ? OR ${origin} = ?)
      ORDER BY a.run_id, a.task_id, a.attempt`,
    [seenBefore, othersSeenBefore, fastOrigin],
  );
  return [...sessions, ...attempts].map(of);
}
