import type { HivewatchEvent, RunStatus } from '../base/events.js';
import type { ResumePoint } from '../base/resume-point.js';
import type { RunCommand } from './commands.js';
import type { AppendOptions, CommittedListener, HivewatchStore, NewRunCommand, RunHost, StoreStats } from './contract.js';
import { StoreEngine } from './contract.js';
import type { AttemptTelemetryLink, ExternalBatch, ExternalSessionRow } from './external.js';
import type { PruneOptions, PruneReport } from './prune.js';
import type { ErrorCount, ErrorCountsQuery, ErrorPage, ErrorSeries, ErrorSeriesQuery, ListErrorsQuery } from './queries/errors.js';
import type { CommittedEvent } from './queries/events.js';
import type { Dialect, Query } from './queries/plan.js';
import type { FailureCounts, FailureCountsQuery } from './queries/failures.js';
import type { UsageAnswer, UsageRead } from './queries/usage.js';
import type { ErrorGroup, ErrorGroupsQuery, GroupBinsQuery, GroupTrendsQuery } from './queries/groups.js';
import type { IssueStore } from './issues.js';
import type { RunLineage } from './queries/lineage.js';
import type { ListRunsQuery, RunCounts, RunDetail, RunFilters, RunPage } from './queries/runs.js';
import type { RecoveredRun, RecoverOptions } from './recovery.js';
import type { AggregateReport, ReplayReport } from './replay.js';
import type { RunRow } from './schema.js';
import type { SqliteStore } from './sqlite-store.js';

/**
 * The SQLite engine behind the store contract. better-sqlite3 is synchronous, so each method does
 * its work at the call (a commit is durable before the promise is even returned) and answers with
 * a settled promise; a thrown error becomes a rejection, as on every engine.
 */
export class SqliteContractStore implements HivewatchStore {
  readonly engine = StoreEngine.sqlite;

  constructor(private readonly sqlite: SqliteStore) {}

  get location(): string {
    return this.sqlite.path;
  }

  get readonly(): boolean {
    return this.sqlite.readonly;
  }

  get issues(): IssueStore {
    return this.sqlite.issues;
  }

  get recovered(): readonly RecoveredRun[] {
    return this.sqlite.recovered;
  }

  private answer<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  appendEvents(events: readonly HivewatchEvent[], options?: AppendOptions): Promise<void> {
    return this.answer(() => this.sqlite.appendEvents(events, options));
  }

  ingestExternal(batch: ExternalBatch, events: readonly HivewatchEvent[]): Promise<boolean> {
    return this.answer(() => this.sqlite.ingestExternal(batch, events));
  }

  externalSession(sessionKey: string): Promise<ExternalSessionRow | null> {
    return this.answer(() => this.sqlite.externalSession(sessionKey));
  }

  quietExternalSessions(before: number): Promise<ExternalSessionRow[]> {
    return this.answer(() => this.sqlite.quietExternalSessions(before));
  }

  attemptTelemetry(runId: string): Promise<AttemptTelemetryLink[]> {
    return this.answer(() => this.sqlite.attemptTelemetry(runId));
  }

  subscribe(listener: CommittedListener): () => void {
    return this.sqlite.subscribe(listener);
  }

  changeToken(): Promise<string> {
    // PRAGMA data_version changes when another connection committed anything (events, commands).
    return this.answer(() => String(this.sqlite.dataVersion()));
  }

  watchChanges(): () => void {
    return () => undefined; // no push in SQLite: callers poll changeToken
  }

  listRuns(query?: ListRunsQuery): Promise<RunPage> {
    return this.answer(() => this.sqlite.listRuns(query));
  }

  countRuns(query?: RunFilters): Promise<RunCounts> {
    return this.answer(() => this.sqlite.countRuns(query));
  }

  getRun(runId: string): Promise<RunDetail | null> {
    return this.answer(() => this.sqlite.getRun(runId));
  }

  getRunRow(runId: string): Promise<RunRow | null> {
    return this.answer(() => this.sqlite.getRunRow(runId));
  }

  runsInStatus(runIds: readonly string[], status: RunStatus): Promise<string[]> {
    return this.answer(() => this.sqlite.runsInStatus(runIds, status));
  }

  runLineage(runId: string): Promise<RunLineage | null> {
    return this.answer(() => this.sqlite.runLineage(runId));
  }

  getEvents(runId: string, afterSeq?: number, limit?: number): Promise<HivewatchEvent[]> {
    return this.answer(() => this.sqlite.getEvents(runId, afterSeq, limit));
  }

  getJournalPage(runId: string, afterSeq?: number, limit?: number): Promise<{ events: HivewatchEvent[]; walls: number[] }> {
    return this.answer(() => this.sqlite.getJournalPage(runId, afterSeq, limit));
  }

  eventsAfterCommit(afterCommit: number, limit?: number): Promise<CommittedEvent[]> {
    return this.answer(() => this.sqlite.eventsAfterCommit(afterCommit, limit));
  }

  journalHead(): Promise<number> {
    return this.answer(() => this.sqlite.journalHead());
  }

  enqueueCommand(command: NewRunCommand): Promise<void> {
    return this.answer(() => this.sqlite.enqueueCommand(command));
  }

  pendingCommands(runIds: readonly string[]): Promise<RunCommand[]> {
    return this.answer(() => this.sqlite.pendingCommands(runIds));
  }

  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean> {
    return this.answer(() => this.sqlite.completeCommand(commandId, outcome));
  }

  getCommand(commandId: string): Promise<RunCommand | null> {
    return this.answer(() => this.sqlite.getCommand(commandId));
  }

  runHost(runId: string): Promise<RunHost | null> {
    return this.answer(() => this.sqlite.runHost(runId));
  }

  errorCounts(query: ErrorCountsQuery): Promise<ErrorCount[]> {
    return this.answer(() => this.sqlite.errorCounts(query));
  }

  errorSeries(query: ErrorSeriesQuery): Promise<ErrorSeries> {
    return this.answer(() => this.sqlite.errorSeries(query));
  }

  usage<R extends UsageRead>(read: R): Promise<UsageAnswer<R>> {
    // SqliteStore is a mapped type of the contract, which keeps no type parameters: the answer is the one `read` asks for.
    return this.answer(() => this.sqlite.usage(read) as UsageAnswer<R>);
  }

  failureCounts(query: FailureCountsQuery): Promise<FailureCounts> {
    return this.answer(() => this.sqlite.failureCounts(query));
  }

  errorGroups(query?: ErrorGroupsQuery): Promise<ErrorGroup[]> {
    return this.answer(() => this.sqlite.errorGroups(query));
  }

  groupTrends(query: GroupTrendsQuery): Promise<{ buckets: number[]; trends: Map<string, number[]> }> {
    return this.answer(() => this.sqlite.groupTrends(query));
  }

  groupBins(query: GroupBinsQuery): Promise<Map<string, number[]>> {
    return this.answer(() => this.sqlite.groupBins(query));
  }

  listErrors(query?: ListErrorsQuery): Promise<ErrorPage> {
    return this.answer(() => this.sqlite.listErrors(query));
  }

  getSetting(key: string): Promise<string | null> {
    return this.answer(() => this.sqlite.getSetting(key));
  }

  setSetting(key: string, value: string): Promise<void> {
    return this.answer(() => this.sqlite.setSetting(key, value));
  }

  secret(key: string, create: () => string): Promise<string> {
    return this.answer(() => this.sqlite.secret(key, create));
  }

  runStatements<T>(plan: (dialect: Dialect) => Query<T>): Promise<T> {
    // The mapped SqliteStore type cannot keep a generic method's T; the store answers with the plan's own result.
    return this.answer(() => this.sqlite.runStatements(plan) as T);
  }

  recoverInterrupted(options?: RecoverOptions): Promise<RecoveredRun[]> {
    return this.answer(() => this.sqlite.recoverInterrupted(options));
  }

  resumePointForRun(runId: string): Promise<ResumePoint> {
    return this.answer(() => this.sqlite.resumePointForRun(runId));
  }

  replayRun(runId: string): Promise<ReplayReport> {
    return this.answer(() => this.sqlite.replayRun(runId));
  }

  verifyAggregates(): Promise<AggregateReport> {
    return this.answer(() => this.sqlite.verifyAggregates());
  }

  prune(options: PruneOptions): Promise<PruneReport> {
    return this.answer(() => this.sqlite.prune(options));
  }

  integrityCheck(): Promise<string[]> {
    return this.answer(() => this.sqlite.integrityCheck());
  }

  stats(): Promise<StoreStats> {
    return this.answer(() => this.sqlite.stats());
  }

  close(): Promise<void> {
    return this.answer(() => this.sqlite.close());
  }
}
