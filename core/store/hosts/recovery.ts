import { storableText } from '../projection/storable.js';
import type Database from 'better-sqlite3';
import type { EventOf, HivewatchEvent, LeftoverProcessGroup } from '../../base/events.js';
import { resumePointFromEvents, type ResumePoint, type TaskOutcome } from '../../base/resume-point.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { judgeHost, leaseOf, localProbe, type HostProbe, type HostVerdict, type LeaseColumns, type WithoutLease } from './host-liveness.js';
import type { RunOwner } from './hosts.js';
import { eventFromRow } from '../projection/journal-codec.js';
import type { JournalWriter } from '../sqlite/journal-writer.js';
import { allEvents } from '../queries/events.js';
import { get, type Dialect, type Query } from '../queries/plan.js';
import { ACTIVE_RUN_STATUSES } from '../../common/run-statuses.js';
import { RESUMABLE_RUN_STATUSES } from '../projection/schema.js';
import { StoreError } from '../store-error.js';

export interface RecoverOptions {
  /** Interrupt every non-terminal run, even one whose host process still looks alive. */
  force?: boolean;
  /** Only this run (a command reached a run whose host is gone). */
  runId?: string;
  /**
   * Process control: ends the agent process groups a dead host left (the store only finds them in
   * the journal). Default: what the store was opened with (`OpenStoreOptions.endLeftovers`).
   */
  endLeftovers?: EndLeftovers | undefined;
  /** How other hosts' processes are looked at (tests; default: this machine's /proc). */
  probe?: HostProbe;
}

type AttemptProcess = EventOf<'attemptProcess'>;

/**
 * Ends, or leaves saying why, the process groups of one run's attempts that never journaled their
 * end (`open`), and any the run's dead host spawned without journaling them. Process control is
 * not the store's: whoever opens the store to run flows gives it (core/runtimes/process/
 * leftover-groups.ts, through core/service). Called before `runInterrupted` is journaled, so the
 * groups are gone before the run can be resumed, and the event says what was done with each.
 */
export type EndLeftovers = (run: { runId: string; hostname: string | null }, open: readonly AttemptProcess[]) => LeftoverProcessGroup[];

export interface RecoveredRun {
  runId: string;
  /** The pid that hosted it, when known. */
  pid: number | null;
  /** The attempt process groups it left, and what recovery did with each. */
  processes: LeftoverProcessGroup[];
}

/** A non-terminal run recovery looks at (the columns both engines' recoveries select), with its host's lease. */
export type Candidate = LeaseColumns & {
  id: string;
  flow: string;
  current_step: number;
  steps: number;
  last_seq: number;
  last_checkpoint_step: number;
  pid: number | null;
  hostname: string | null;
  instance: string | null;
};

/** A run recovery interrupts: its host (when one is recorded) and the verdict on it. */
export interface ChosenRun {
  run: Candidate;
  owner: RunOwner | undefined;
  verdict: HostVerdict;
}

/** The candidates whose host is dead (or every one, when forced), judged at `now` (host-liveness.ts). */
export function chooseRuns(candidates: readonly Candidate[], now: number, options: RecoverOptions, withoutLease: WithoutLease): ChosenRun[] {
  const chosen: ChosenRun[] = [];
  for (const run of candidates) {
    // The id as the journal keeps it (storable.ts), as PostgreSQL's recovery compares it.
    if (options.runId !== undefined && run.id !== storableText(options.runId)) continue;
    const owner =
      run.pid === null || run.hostname === null || run.instance === null ? undefined : { pid: Number(run.pid), hostname: run.hostname, instance: run.instance };
    const verdict = judgeHost(owner, leaseOf(run), now, options.probe ?? localProbe, withoutLease);
    if (verdict.alive && !options.force) continue;
    chosen.push({ run, owner, verdict });
  }
  return chosen;
}

/** The interruption's words: the verdict's reason, or that recovery was forced past a live host. */
export function interruptionMessage({ run, verdict }: ChosenRun): string {
  return verdict.alive ? `run ${run.id} was interrupted by a forced recovery (${verdict.reason})` : `run ${run.id} was interrupted: ${verdict.reason}`;
}

const CANDIDATES_SQL = `SELECT r.id, r.flow, r.current_step, r.steps, r.last_seq, r.last_checkpoint_step, h.pid, h.hostname, h.instance,
    hs.heartbeat_at, hs.lease_ms, hs.machine, hs.start_time
  FROM runs AS r
  LEFT JOIN run_hosts AS h ON h.run_id = r.id
  LEFT JOIN hosts AS hs ON hs.instance = h.instance
  WHERE r.status IN (${ACTIVE_RUN_STATUSES.map(() => '?').join(', ')})
    -- An external run (telemetry of an agent Hivewatch did not start) has no host to lose: it ends when it goes quiet.
    AND r.id NOT IN (SELECT run_id FROM external_runs)
  ORDER BY r.started_at, r.id`;

/**
 * Recovery: every run left queued / running / cancelling by a host that is gone gets a journaled
 * `errorOccurred` + `runInterrupted` carrying SYSTEM_RUN_INTERRUPTED. Start-up and the live host
 * watch (core/service/runs/host-watch.ts) both come here. The runs are looked at first without the
 * write lock (a watch that finds every host alive writes nothing), then judged again inside one
 * IMMEDIATE transaction with the writes, so a host that appends meanwhile cannot interleave and
 * two processes noticing the same dead host interrupt its runs once.
 */
export function recoverInterrupted(
  db: Database.Database,
  writer: JournalWriter,
  now: () => number,
  options: RecoverOptions = {},
): { runs: RecoveredRun[]; events: HivewatchEvent[] } {
  const select = db.prepare(CANDIDATES_SQL) as Database.Statement<string[], Candidate>;
  const attemptEvents = db.prepare(
    `SELECT run_id, seq, type, ts, payload FROM events WHERE run_id = ? AND type IN (${ATTEMPT_RECORD_TYPES.map(() => '?').join(', ')}) ORDER BY seq`,
  ) as Database.Statement<string[], { run_id: string; seq: number; type: string; ts: number; payload: string }>;
  if (chooseRuns(select.all(...ACTIVE_RUN_STATUSES), now(), options, 'legacy').length === 0) return { runs: [], events: [] };
  return db
    .transaction(() => {
      const recovered: RecoveredRun[] = [];
      const events: HivewatchEvent[] = [];
      for (const chosen of chooseRuns(select.all(...ACTIVE_RUN_STATUSES), now(), options, 'legacy')) {
        const { run, owner, verdict } = chosen;
        // A forced recovery of a run whose host still lives must not take its agents from it.
        const processes = verdict.alive
          ? []
          : leftoverGroups(run.id, owner, attemptEvents.all(run.id, ...ATTEMPT_RECORD_TYPES).map(eventFromRow), options.endLeftovers);
        events.push(...interruptionEvents(run, owner?.pid ?? null, interruptionMessage(chosen), processes, now()));
        writer.forget(run.id);
        recovered.push({ runId: run.id, pid: owner?.pid ?? null, processes });
      }
      writer.append(events);
      return { runs: recovered, events };
    })
    .immediate();
}

/**
 * What recovery journals for a run whose host is gone: `errorOccurred` then `runInterrupted`,
 * both carrying SYSTEM_RUN_INTERRUPTED (the same events on every engine).
 */
export function interruptionEvents(
  run: Pick<Candidate, 'id' | 'flow' | 'current_step' | 'steps' | 'last_seq' | 'last_checkpoint_step'>,
  pid: number | null,
  message: string,
  processes: LeftoverProcessGroup[],
  ts: number,
): HivewatchEvent[] {
  const step = run.current_step > run.steps ? run.current_step : null;
  const error = new HivewatchError('SYSTEM_RUN_INTERRUPTED', {
    message,
    origin: 'system',
    timestamp: ts,
    context: { lastSeq: run.last_seq, lastCheckpointStep: run.last_checkpoint_step, pid },
    correlation: { flow: run.flow === '' ? null : run.flow, run: run.id, step },
  }).toEnvelope();
  return [
    {
      runId: run.id,
      seq: run.last_seq + 1,
      ts,
      type: 'errorOccurred',
      error,
      caught: false,
      retrying: false,
      step,
      ordinal: null,
      taskId: null,
    },
    { runId: run.id, seq: run.last_seq + 2, ts, type: 'runInterrupted', error, ...(processes.length > 0 ? { processes } : {}) },
  ];
}

/**
 * What becomes of the agent process groups a dead host left for one run: process control's
 * answer when the store has one; without it (a store opened to read or to seed, never to run
 * flows) each open group is said to be left alone.
 */
export function leftoverGroups(
  runId: string,
  owner: RunOwner | undefined,
  events: HivewatchEvent[],
  endLeftovers: EndLeftovers | undefined,
): LeftoverProcessGroup[] {
  const open = openAttemptProcesses(events);
  if (endLeftovers !== undefined) return endLeftovers({ runId, hostname: owner?.hostname ?? null }, open);
  return open.map((p) => ({
    taskId: p.taskId,
    attempt: p.attempt,
    pgid: p.pid,
    outcome: 'unverified',
    message: `process group ${p.pid} of task ${p.taskId} attempt ${p.attempt}: this process does not control agent processes (its store was opened without process control); left alone`,
  }));
}

/**
 * Events that end an attempt, journaled only once its process group is gone (rule 11b): its
 * outcome, its cancel by a fail-fast sibling, or its late answer after the operator's cancel.
 */
const ATTEMPT_END_TYPES = ['attemptSucceeded', 'attemptFailed', 'attemptCancelled', 'receiptIgnoredStale'] as const satisfies readonly HivewatchEvent['type'][];
const ATTEMPT_ENDS: ReadonlySet<HivewatchEvent['type']> = new Set(ATTEMPT_END_TYPES);

/** The events recovery reads to find open attempts; both engines' queries select exactly these. */
export const ATTEMPT_RECORD_TYPES: readonly HivewatchEvent['type'][] = ['attemptProcess', ...ATTEMPT_END_TYPES];

/** The `attemptProcess` events of attempts that never journaled their end. */
export function openAttemptProcesses(events: readonly HivewatchEvent[]): AttemptProcess[] {
  const key = (e: { taskId: string; attempt: number }): string => `${e.taskId}#${e.attempt}`;
  const ended = new Set(events.flatMap((e) => (ATTEMPT_ENDS.has(e.type) && 'attempt' in e && 'taskId' in e ? [key(e)] : [])));
  return events.filter((e): e is AttemptProcess => e.type === 'attemptProcess' && !ended.has(key(e)));
}

function stepOfTask(taskId: string): number {
  const step = Number.parseInt(taskId.split(':')[0] ?? '', 10);
  return Number.isFinite(step) ? step : Number.POSITIVE_INFINITY;
}

/**
 * The resume point of a failed / cancelled / interrupted run. A resumed run only journals its
 * own steps (after its `resumeStep`), so the `resumedFrom` chain is walked: the source's outcomes
 * for steps ≤ resumeStep (recursively), then the run's own outcomes up to its last checkpoint.
 */
export function* resumePointForRun(dialect: Dialect, runId: string): Query<ResumePoint> {
  const run = yield* get<{ status: string }>('SELECT status FROM runs WHERE id = ?', [runId]);
  if (!run) throw new StoreError('not_found', `no run ${runId}`);
  if (!(RESUMABLE_RUN_STATUSES as readonly string[]).includes(run.status)) {
    throw new StoreError('not_resumable', `run ${runId} is ${run.status}; only failed, cancelled or interrupted runs can be resumed`);
  }
  return yield* chainPoint(dialect, runId, new Set());
}

function* chainPoint(dialect: Dialect, runId: string, seen: Set<string>): Query<ResumePoint> {
  if (seen.has(runId)) throw new StoreError('corrupt', `the resumedFrom chain of ${runId} loops`);
  seen.add(runId);
  const events = yield* allEvents(dialect, runId);
  if (events.length === 0) throw new StoreError('not_resumable', `the journal of run ${runId} is gone (pruned?)`);
  const own = resumePointFromEvents(runId, events);
  const started = events.find((e) => e.type === 'runStarted');
  const outcomes = new Map<string, TaskOutcome>();
  let throughStep = own.throughStep;
  let semantics = own.semantics;
  let digest = own.flowDigest;
  let repo = own.repo;
  if (started && started.type === 'runStarted' && started.resumedFrom) {
    const source = yield* chainPoint(dialect, started.resumedFrom, seen);
    // A chain journaled under other rules anywhere cannot be replayed by this engine.
    if (source.semantics !== own.semantics) semantics = source.semantics;
    // A run resumed under an older Hivewatch journaled no digest: its source's stands for it.
    digest ??= source.flowDigest;
    repo ??= source.repo;
    const inherited = Math.min(started.resumeStep, source.throughStep);
    for (const [taskId, outcome] of source.outcomes) if (stepOfTask(taskId) <= inherited) outcomes.set(taskId, outcome);
    throughStep = Math.max(throughStep, inherited);
  }
  for (const [taskId, outcome] of own.outcomes) outcomes.set(taskId, outcome);
  return { fromRunId: runId, throughStep, outcomes, semantics, flowDigest: digest, repo };
}
