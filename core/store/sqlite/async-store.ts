import type { HivewatchEvent } from '../../base/events.js';
import type { AppendOptions, CommittedListener, HivewatchStore, NewRunCommand, RunHost, StoreStats } from '../contract.js';
import { StoreEngine } from '../contract.js';
import type { ExternalBatch } from '../queries/external.js';
import type { PruneOptions, PruneReport } from '../maintenance/prune.js';
import { Dialect, type Query } from '../queries/plan.js';
import { planReads } from '../read-plans.js';
import type { UsageAnswer, UsageRead } from '../queries/usage.js';
import type { IssueStore } from '../issues/issues.js';
import type { RecoveredRun, RecoverOptions } from '../hosts/recovery.js';
import type { AggregateReport, ReplayReport } from '../maintenance/replay.js';
import type { SqliteStore } from './types.js';

/**
 * The SQLite engine behind the store contract. better-sqlite3 is synchronous, so each method does
 * its work at the call (a commit is durable before the promise is even returned) and answers with
 * a settled promise; a thrown error becomes a rejection, as on every engine.
 */
export class SqliteContractStore extends planReads(Dialect.sqlite) implements HivewatchStore {
  readonly engine = StoreEngine.sqlite;

  constructor(private readonly sqlite: SqliteStore) {
    super();
  }

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

  /** One read plan (read-plans.ts), run on the synchronous connection. */
  readPlan<T>(query: Query<T>): Promise<T> {
    return this.answer(() => this.sqlite.readPlan(query));
  }

  appendEvents(events: readonly HivewatchEvent[], options?: AppendOptions): Promise<void> {
    return this.answer(() => this.sqlite.appendEvents(events, options));
  }

  ingestExternal(batch: ExternalBatch, events: readonly HivewatchEvent[]): Promise<boolean> {
    return this.answer(() => this.sqlite.ingestExternal(batch, events));
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

  enqueueCommand(command: NewRunCommand): Promise<void> {
    return this.answer(() => this.sqlite.enqueueCommand(command));
  }

  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean> {
    return this.answer(() => this.sqlite.completeCommand(commandId, outcome));
  }

  runHost(runId: string): Promise<RunHost | null> {
    return this.answer(() => this.sqlite.runHost(runId));
  }

  usage<R extends UsageRead>(read: R): Promise<UsageAnswer<R>> {
    // SqliteStore is a mapped type of the contract, which keeps no type parameters: the answer is the one `read` asks for.
    return this.answer(() => this.sqlite.usage(read) as UsageAnswer<R>);
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
