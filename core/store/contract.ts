import type { HivewatchEvent } from '../base/events.js';
import type { RunCommandKind } from './queries/commands.js';
import type { ExternalBatch } from './queries/external.js';
import type { RunOwner } from './hosts/hosts.js';
import type { PruneOptions, PruneReport } from './maintenance/prune.js';
import type { Dialect, Query } from './queries/plan.js';
import type { IssueStore } from './issues/issues.js';
import type { RecoveredRun, RecoverOptions } from './hosts/recovery.js';
import type { UsageAnswer, UsageRead } from './queries/usage.js';
import type { AggregateReport, ReplayReport } from './maintenance/replay.js';
import type { BoundReads } from './bind-reads.js';
import type { READS, READS_BY_ROLE } from './queries/index.js';

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

type RoleReads<R extends keyof typeof READS_BY_ROLE> = BoundReads<(typeof READS_BY_ROLE)[R]>;

/** What a store is and where: engine, location, how it was opened. */
interface StoreIdentity {
  readonly engine: StoreEngine;
  /** Where the data is, safe to print: a file path, or a PostgreSQL URL without its password. */
  readonly location: string;
  readonly readonly: boolean;
  /** Runs start-up recovery marked interrupted when this store opened. */
  readonly recovered: readonly RecoveredRun[];
}

/** Runs: the list, its counts, one run, its lineage and where it resumes (queries/index.ts `runs`). */
type RunReads = RoleReads<'runs'>;
/** Error counts, series, groups and their trends, occurrences, failures (queries/index.ts `errors`). */
type ErrorReads = RoleReads<'errors'>;

/** The journal: its writes, its pages and tail, and who hears of a commit. */
interface Journal extends RoleReads<'journal'> {
  /** Journals a batch in one transaction (events, projections, rollups, groups). All or nothing. */
  appendEvents(events: readonly HivewatchEvent[], options?: AppendOptions): Promise<void>;
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
}

/** Commands for a run another process hosts (cancel, skipBackoff), and which host that is. */
interface RunCommands extends RoleReads<'commands'> {
  enqueueCommand(command: NewRunCommand): Promise<void>;
  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean>;
  runHost(runId: string): Promise<RunHost | null>;
}

/** Telemetry ingested from outside (core/otel): its payloads, sessions and per-attempt figures. */
interface ExternalSessions extends RoleReads<'external'> {
  /**
   * Journals the events of one ingested telemetry payload (core/otel) with its digest and the
   * sessions' bookkeeping, in one transaction. False (nothing written) when a payload with this
   * digest was ingested before.
   */
  ingestExternal(batch: ExternalBatch, events: readonly HivewatchEvent[]): Promise<boolean>;
}

/** Tokens and cost: of runs, of flows over a window, the costliest runs, what failure costs, each flow's health (queries/usage.ts). */
interface UsageReads {
  usage<R extends UsageRead>(read: R): Promise<UsageAnswer<R>>;
}

/** Settings and secrets kept with the database. */
interface Settings extends RoleReads<'settings'> {
  setSetting(key: string, value: string): Promise<void>;
  /** A secret kept with the database, created by `create()` the first time any process asks for it. */
  secret(key: string, create: () => string): Promise<string>;
}

/** Recovery, replay parity, aggregate checks, pruning, health. */
interface Maintenance {
  recoverInterrupted(options?: RecoverOptions): Promise<RecoveredRun[]>;
  replayRun(runId: string): Promise<ReplayReport>;
  verifyAggregates(): Promise<AggregateReport>;
  prune(options: PruneOptions): Promise<PruneReport>;
  /** The engine's own consistency check (['ok'] when healthy). */
  integrityCheck(): Promise<string[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}

/** What the store lends to parts outside it. */
interface Extensions {
  /** Error issues (migration 14, issues.ts): their log of status changes and their facts. */
  readonly issues: IssueStore;
  /**
   * An engine-neutral query of a part outside the store (core/alerts), statement by statement:
   * each statement commits by itself (a one-statement claim is atomic on both engines).
   */
  runStatements<T>(plan: (dialect: Dialect) => Query<T>): Promise<T>;
}

/**
 * The store, by role. Every read of queries/index.ts is on it (`BoundReads<typeof READS>`),
 * whichever role declares it. The roles are this file's own until a consumer takes just the role
 * it uses (then export that one).
 */
export interface HivewatchStore
  extends StoreIdentity,
    BoundReads<typeof READS>,
    RunReads,
    ErrorReads,
    Journal,
    RunCommands,
    ExternalSessions,
    UsageReads,
    Settings,
    Maintenance,
    Extensions {}
