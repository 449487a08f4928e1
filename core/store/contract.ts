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
import type { ReadMethods } from './read-plans.js';

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

/**
 * The store. Its reads that are one query plan each (runs, errors, the journal's pages, commands,
 * settings) come from the table in read-plans.ts; the rest are declared here.
 */
export interface HivewatchStore extends ReadMethods {
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

  enqueueCommand(command: NewRunCommand): Promise<void>;
  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean>;
  runHost(runId: string): Promise<RunHost | null>;

  /** Tokens and cost: of runs, of flows over a window, the costliest runs, what failure costs, each flow's health (queries/usage.ts). */
  usage<R extends UsageRead>(read: R): Promise<UsageAnswer<R>>;

  /** Error issues (migration 14, issues.ts): their log of status changes and their facts. */
  readonly issues: IssueStore;

  setSetting(key: string, value: string): Promise<void>;
  /** A secret kept with the database, created by `create()` the first time any process asks for it. */
  secret(key: string, create: () => string): Promise<string>;

  /**
   * An engine-neutral query of a part outside the store (core/alerts), statement by statement:
   * each statement commits by itself (a one-statement claim is atomic on both engines).
   */
  runStatements<T>(plan: (dialect: Dialect) => Query<T>): Promise<T>;

  recoverInterrupted(options?: RecoverOptions): Promise<RecoveredRun[]>;
  replayRun(runId: string): Promise<ReplayReport>;
  verifyAggregates(): Promise<AggregateReport>;
  prune(options: PruneOptions): Promise<PruneReport>;
  /** The engine's own consistency check (['ok'] when healthy). */
  integrityCheck(): Promise<string[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}
