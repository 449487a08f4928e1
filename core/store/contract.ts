import type { HivewatchEvent, RunStatus } from '../base/events.js';
import type { ResumePoint } from '../base/resume-point.js';
import type { RunCommand, RunCommandKind } from './commands.js';
import type { AttemptTelemetryLink, ExternalBatch, ExternalSessionRow } from './external.js';
import type { RunOwner } from './hosts.js';
import type { PruneOptions, PruneReport } from './prune.js';
import type { ErrorCount, ErrorCountsQuery, ErrorPage, ErrorSeries, ErrorSeriesQuery, ListErrorsQuery } from './queries/errors.js';
import type { CommittedEvent } from './queries/events.js';
import type { Dialect, Query } from './queries/plan.js';
import type { FailureCounts, FailureCountsQuery } from './queries/failures.js';
import type { ErrorGroup, ErrorGroupsQuery, GroupBinsQuery, GroupTrendsQuery } from './queries/groups.js';
import type { IssueStore } from './issues.js';
import type { RunLineage } from './queries/lineage.js';
import type { ListRunsQuery, RunCounts, RunDetail, RunFilters, RunPage } from './queries/runs.js';
import type { RecoveredRun, RecoverOptions } from './recovery.js';
import type { RunRow } from './schema.js';
import type { UsageAnswer, UsageRead } from './queries/usage.js';
import type { AggregateReport, ReplayReport } from './replay.js';

/**
 * The store's contract: what every process that runs or reads flows needs of the
 * journal, whatever engine keeps it. Asynchronous, because PostgreSQL's driver is; the SQLite
 * engine answers at once. Nothing here exposes the engine: engine-specific tools (integrity
 * pragmas, benchmarks) open the engine directly (`openSqliteStore`, `openPostgresStore`).
 * Every engine passes `core/store/conformance.test.ts`.
 */

export const StoreEngine = { sqlite: 'sqlite', postgres: 'postgres' } as const;
export type StoreEngine = (typeof StoreEngine)[keyof typeof StoreEngine];

/**
 * A committed batch, with each event's journaled wall-clock time (`walls[i]` for `events[i]`)
 * and its place in the journal's order of commit (`commitSeqs[i]`).
 */
export type CommittedListener = (events: readonly HivewatchEvent[], walls: readonly number[], commitSeqs: readonly number[]) => void;

export interface StoreStats {
  schemaVersion: number;
  runs: number;
  events: number;
  errors: number;
  /** The database's size on disk (SQLite: the main file without the WAL; PostgreSQL: the database). */
  bytes: number;
}

/** The host recorded for a run, whether it still counts as alive (host-liveness.ts), and why. */
export type RunHost = RunOwner & { alive: boolean; reason: string };

export interface NewRunCommand {
  commandId: string;
  runId: string;
  kind: RunCommandKind;
  taskId?: string | null;
  reason?: string | null;
}

/** Options of `appendEvents`. */
export interface AppendOptions {
  /**
   * The wall times these events were journaled with in another database (`hivewatch migrate`
   * copies a journal): `importedWalls[i]` is journaled for `events[i]` instead of the one the
   * writer would stamp (its clock's reading, for a virtual-clock run). One per event.
   */
  importedWalls?: readonly number[];
}

export interface HivewatchStore {
  readonly engine: StoreEngine;
  /** Where the data is, safe to print: a file path, or a PostgreSQL URL without its password. */
  readonly location: string;
  readonly readonly: boolean;
  /** Runs start-up recovery marked interrupted when this store opened. */
  readonly recovered: readonly RecoveredRun[];

  /** Journals a batch in one transaction (events, projections, rollups, groups). All or nothing. */
  appendEvents(events: readonly HivewatchEvent[], options?: AppendOptions): Promise<void>;
  /**
   * Journals the events of one ingested telemetry payload (core/otel) with its digest and the
   * sessions' bookkeeping, in one transaction. False (nothing written) when a payload with this
   * digest was ingested before.
   */
  ingestExternal(batch: ExternalBatch, events: readonly HivewatchEvent[]): Promise<boolean>;
  externalSession(sessionKey: string): Promise<ExternalSessionRow | null>;
  /** Open external sessions whose latest event is older than `before` (wall ms). */
  quietExternalSessions(before: number): Promise<ExternalSessionRow[]>;
  attemptTelemetry(runId: string): Promise<AttemptTelemetryLink[]>;
  /** Called after each batch this store committed, in commit order. Returns unsubscribe. */
  subscribe(listener: CommittedListener): () => void;
  /**
   * Changes whenever another connection (another process, another host) commits events or a
   * run command. Cheap to poll; compare with `!==`.
   */
  changeToken(): Promise<string>;
  /**
   * Calls `onChange` soon after another connection commits, where the engine can push it
   * (PostgreSQL LISTEN/NOTIFY). An engine without push never calls it: poll `changeToken`.
   */
  watchChanges(onChange: () => void): () => void;

  listRuns(query?: ListRunsQuery): Promise<RunPage>;
  countRuns(query?: RunFilters): Promise<RunCounts>;
  getRun(runId: string): Promise<RunDetail | null>;
  /** The run's row alone (no steps, tasks or attempts): the cheap read before a command. */
  getRunRow(runId: string): Promise<RunRow | null>;
  /** Which of these runs are in this status now (one read for all of them). */
  runsInStatus(runIds: readonly string[], status: RunStatus): Promise<string[]>;
  runLineage(runId: string): Promise<RunLineage | null>;
  getEvents(runId: string, afterSeq?: number, limit?: number): Promise<HivewatchEvent[]>;
  /** `getEvents` with each event's journaled wall time (`walls[i]` for `events[i]`). */
  getJournalPage(runId: string, afterSeq?: number, limit?: number): Promise<{ events: HivewatchEvent[]; walls: number[] }>;
  /** Events committed after commit position `afterCommit`, in commit order: the journal's tail. */
  eventsAfterCommit(afterCommit: number, limit?: number): Promise<CommittedEvent[]>;
  /** The newest commit position (0 for an empty journal). */
  journalHead(): Promise<number>;

  enqueueCommand(command: NewRunCommand): Promise<void>;
  pendingCommands(runIds: readonly string[]): Promise<RunCommand[]>;
  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean>;
  getCommand(commandId: string): Promise<RunCommand | null>;
  runHost(runId: string): Promise<RunHost | null>;

  errorCounts(query: ErrorCountsQuery): Promise<ErrorCount[]>;
  /** Failures (one per run that ended failed, its ending error) in a window of end times: from the failure rollups. */
  failureCounts(query: FailureCountsQuery): Promise<FailureCounts>;
  errorSeries(query: ErrorSeriesQuery): Promise<ErrorSeries>;
  errorGroups(query?: ErrorGroupsQuery): Promise<ErrorGroup[]>;
  groupTrends(query: GroupTrendsQuery): Promise<{ buckets: number[]; trends: Map<string, number[]> }>;
  groupBins(query: GroupBinsQuery): Promise<Map<string, number[]>>;
  listErrors(query?: ListErrorsQuery): Promise<ErrorPage>;
  /** Tokens and cost: of runs, of flows over a window, the costliest runs, what failure costs, each flow's health (queries/usage.ts). */
  usage<R extends UsageRead>(read: R): Promise<UsageAnswer<R>>;

  /** Error issues (migration 14, issues.ts): their log of status changes and their facts. */
  readonly issues: IssueStore;

  getSetting(key: string): Promise<string | null>;
  setSetting(key: string, value: string): Promise<void>;
  /** A secret kept with the database, created by `create()` the first time any process asks for it. */
  secret(key: string, create: () => string): Promise<string>;

  /**
   * An engine-neutral query of a part outside the store (core/alerts), statement by statement:
   * each statement commits by itself (a one-statement claim is atomic on both engines).
   */
  runStatements<T>(plan: (dialect: Dialect) => Query<T>): Promise<T>;

  recoverInterrupted(options?: RecoverOptions): Promise<RecoveredRun[]>;
  resumePointForRun(runId: string): Promise<ResumePoint>;
  replayRun(runId: string): Promise<ReplayReport>;
  verifyAggregates(): Promise<AggregateReport>;
  prune(options: PruneOptions): Promise<PruneReport>;
  /** The engine's own consistency check (['ok'] when healthy). */
  integrityCheck(): Promise<string[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}
