import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { notifyCommitted } from '../listeners.js';
import type { HivewatchEvent } from '../../base/events.js';
import { completeCommand, enqueueCommand, runHost } from '../queries/commands.js';
import {
  StoreEngine,
  type AppendOptions,
  type CommittedListener,
  type HivewatchStore,
  type NewRunCommand,
  type RunHost,
  type StoreStats,
} from '../contract.js';
import { rememberPayload, writeSessions, type ExternalBatch } from '../queries/external.js';
import type { HostLeaseOptions } from '../hosts/host-lease.js';
import { judgeHost } from '../hosts/host-liveness.js';
import { releaseInstance, type HostIdentity } from '../hosts/hosts.js';
import type { PruneOptions, PruneReport } from '../maintenance/prune.js';
import { usageQuery, type UsageAnswer, type UsageRead } from '../queries/usage.js';
import { Dialect, runAsync, type Query } from '../queries/plan.js';
import { type EndLeftovers, type RecoveredRun, type RecoverOptions } from '../hosts/recovery.js';
import { replayRun, verifyAggregates, type AggregateReport, type ReplayReport } from '../maintenance/replay.js';
import { ensureSetting, setSetting } from '../queries/settings.js';
import { issueStore } from '../issues/issues.js';
import { isStoreError, RunTakenError, StoreError } from '../store-error.js';
import { storableBatch, storableText } from '../projection/storable.js';
import { takenRuns } from '../hosts/taken-runs.js';
import { HostLease } from './hosts/hosts.js';
import { ChangeWatcher, OwnNotifications } from './connection/listen.js';
import { ChangeToken } from './change-token.js';
import { Availability } from './connection/availability.js';
import { asUnavailable, isServerAway } from './connection/connection.js';
import { executorOf, inSnapshot, WriteQueue } from './connection/execution.js';
import { committedAlready, InDoubtBatches } from './writer/in-doubt.js';
import { integrityProblems, storeStats } from './maintenance/health.js';
import { prunePg } from './maintenance/prune.js';
import { inTransaction } from './connection/transaction.js';
import { recoverInterruptedPg } from './hosts/recovery.js';
import { JOURNAL_CHANNEL, PostgresJournalWriter } from './writer/writer.js';
import { readsBase } from '../bind-reads.js';
import { FreshStatistics } from './maintenance/fresh-statistics.js';
import { READS } from '../queries/index.js';

/**
 * The store over PostgreSQL: several hosts share one database. Reads run the shared query plans (queries/*.ts) with PostgreSQL's dialect, in one read-only REPEATABLE READ transaction each (one snapshot, as on SQLite); writes go through `PostgresJournalWriter` a batch at a time, so listeners see commit order.
 */
export class PostgresStore extends readsBase(READS, Dialect.postgres) implements HivewatchStore {
  readonly engine = StoreEngine.postgres;
  recovered: readonly RecoveredRun[] = [];
  private readonly listeners = new Set<CommittedListener>();
  private readonly writer: PostgresJournalWriter;
  private readonly watcher: ChangeWatcher;
  private readonly lease: HostLease | null;
  private readonly own = new OwnNotifications(() => this.watcher.active, `:${randomBytes(6).toString('hex')}`);
  private readonly token = new ChangeToken(); // its own commits do not change it
  private readonly writes = new WriteQueue();
  /** Batches whose COMMIT this host could not see the end of (in-doubt.ts). */
  private readonly inDoubt = new InDoubtBatches();
  private readonly statistics: FreshStatistics;
  private closed = false;
  readonly usage = <R extends UsageRead>(read: R): Promise<UsageAnswer<R>> => this.readPlan(usageQuery(Dialect.postgres, read));
  readonly issues = issueStore(
    Dialect.postgres,
    (query) => this.readPlan(query),
    (query) => this.autocommit(query),
  );
  readonly runStatements = <T>(plan: (dialect: Dialect) => Query<T>): Promise<T> =>
    this.readonly ? this.readPlan(plan(Dialect.postgres)) : this.autocommit(plan(Dialect.postgres));

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    readonly readonly: boolean,
    private readonly owner: HostIdentity,
    private readonly now: () => number,
    private readonly onListenerError: (error: unknown) => void,
    private readonly log: (message: string) => void,
    connect: () => pg.Client,
    heartbeat: Pick<HostLeaseOptions, 'leaseMs' | 'scheduler'>,
    private readonly availability: Availability = new Availability(location, log),
  ) {
    super();
    this.writer = new PostgresJournalWriter(owner, now, undefined, this.own.tag);
    this.statistics = new FreshStatistics(log);
    this.lease = readonly ? null : new HostLease(pool, owner, { now, ...heartbeat });
    this.watcher = new ChangeWatcher({
      channel: JOURNAL_CHANNEL,
      connect,
      onWatcherError: onListenerError,
      onConnectionError: (error) =>
        isServerAway(error)
          ? this.availability.lost(error)
          : log(`PostgreSQL change notifications at ${location}: ${String((error as Error)?.message ?? error)}`),
      isOwn: (payload) => this.own.isOwn(payload),
      onReconnect: () => {
        this.availability.reconnected();
        this.own.clear();
      },
    });
  }

  /** Process control for recovery (recovery.ts `EndLeftovers`), when this store's process runs flows. */
  private endLeftovers: EndLeftovers | undefined;

  async start(recover: boolean, endLeftovers?: EndLeftovers): Promise<void> {
    this.endLeftovers = endLeftovers;
    if (this.lease) await this.lease.start();
    if (recover && !this.readonly) this.recovered = await this.recoverInterrupted();
  }

  private open(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed');
  }

  private writable(): void {
    this.open();
    if (this.readonly) throw new StoreError('invalid_argument', 'the store was opened read-only');
  }

  /** One query's statements in one snapshot (also each read of queries/index.ts). */
  async readPlan<T>(query: Query<T>): Promise<T> {
    this.open();
    return this.reach(inSnapshot(this.pool, query));
  }

  /** A server that went away surfaces as the contract's `unavailable` error, and in the log once per outage (availability.ts). */
  private async reach<T>(work: Promise<T>): Promise<T> {
    try {
      const result = await work;
      this.availability.reached();
      return result;
    } catch (error) {
      const converted = asUnavailable(error, this.location);
      if (converted !== error) this.availability.lost(error);
      throw converted;
    }
  }

  /** A statement-at-a-time write (each statement commits by itself). */
  private async autocommit<T>(query: Query<T>): Promise<T> {
    this.writable();
    return this.reach(runAsync(executorOf(this.pool), query));
  }

  /** `work` in one READ COMMITTED transaction, after this store's earlier writes finished. */
  private async serialized<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.writable();
    return this.reach(this.writes.run(() => inTransaction(this.pool, work)));
  }

  private notify(events: readonly HivewatchEvent[], walls: readonly number[], commitSeqs: readonly number[]): void {
    notifyCommitted(this.listeners, this.onListenerError, events, walls, commitSeqs);
  }

  private async journal(
    given: readonly HivewatchEvent[],
    before?: (client: pg.PoolClient) => Promise<boolean>,
    importedWalls?: readonly number[],
  ): Promise<boolean> {
    const events = storableBatch(given);
    const runIds = events.map((event) => event.runId);
    let committed: { walls: number[]; commitSeqs: number[] } | null = null;
    try {
      // The batch's round trip carries its COMMIT; its NOTIFY names this store (OwnNotifications).
      committed = await this.serialized(async (client) => {
        if (before && !(await before(client))) return null;
        return this.writer.append(client, events, importedWalls, { commit: true });
      });
    } catch (error) {
      // A failed COMMIT leaves the writer's states ahead of the database: reload them next time.
      this.writer.forget(runIds);
      if (isStoreError(error, 'unavailable')) this.inDoubt.remember(events);
      committed = isStoreError(error, 'invalid_event') && this.inDoubt.covers(events) ? await this.reach(committedAlready(this.pool, events)) : null;
      if (committed === null) throw await this.takenOr(events, error);
    }
    this.inDoubt.forget(events);
    if (committed === null) return false;
    this.token.committed(committed.commitSeqs);
    this.notify(events, committed.walls, committed.commitSeqs);
    // Awaited, so the next read after this append is planned from what the append wrote.
    if (this.statistics.committed(events)) await this.statistics.analyze(this.pool);
    return true;
  }

  /** A refused batch with runs another host interrupted meanwhile is a RunTakenError (taken-runs.ts). */
  private async takenOr(events: readonly HivewatchEvent[], error: unknown): Promise<unknown> {
    if (isStoreError(error, 'unavailable') || this.closed) return error;
    try {
      const taken = await inSnapshot(this.pool, takenRuns(Dialect.postgres, events));
      return taken.length > 0 ? new RunTakenError(taken, { cause: error }) : error;
    } catch {
      return error;
    }
  }

  async appendEvents(events: readonly HivewatchEvent[], options?: AppendOptions): Promise<void> {
    await this.journal(events, undefined, options?.importedWalls);
  }

  async ingestExternal(batch: ExternalBatch, events: readonly HivewatchEvent[]): Promise<boolean> {
    return this.journal(events, async (client) => {
      const execute = executorOf(client);
      if (!(await runAsync(execute, rememberPayload(Dialect.postgres, batch)))) return false;
      await runAsync(execute, writeSessions(Dialect.postgres, batch.sessions));
      return true;
    });
  }

  subscribe(listener: CommittedListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async changeToken(): Promise<string> {
    this.open();
    // Probed every 50 ms by each journal tail: the first to see the server back says so.
    return this.reach(this.token.read(this.pool));
  }

  watchChanges(onChange: () => void): () => void {
    this.open();
    return this.watcher.watch(onChange);
  }

  /** Resolves once `watchChanges` listens (a commit after this is announced). */
  whenListening(): Promise<void> {
    return this.watcher.whenListening();
  }

  async enqueueCommand(command: NewRunCommand): Promise<void> {
    await this.serialized(async (client) => {
      await runAsync(executorOf(client), enqueueCommand(Dialect.postgres, command, this.now()));
      // Hosts watching the channel pick the command up without waiting for their next poll.
      const payload = `command:${storableText(command.commandId)}`;
      await client.query('SELECT pg_notify($1, $2)', [JOURNAL_CHANNEL, payload]);
      this.own.expect(payload);
    });
  }

  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): Promise<boolean> {
    return this.autocommit(completeCommand(Dialect.postgres, commandId, outcome, this.now()));
  }

  async runHost(runId: string): Promise<RunHost | null> {
    const found = await this.readPlan(runHost(Dialect.postgres, runId));
    if (!found) return null;
    // This store is its own host while open, whatever its heartbeat says (judgeHost asks isOpenHere).
    const verdict = judgeHost(found.owner, found.lease, this.now(), undefined, 'gone');
    return { ...found.owner, alive: verdict.alive, reason: verdict.reason };
  }

  async setSetting(key: string, value: string): Promise<void> {
    await this.autocommit(setSetting(Dialect.postgres, key, value, this.now()));
  }

  async secret(key: string, create: () => string): Promise<string> {
    if (this.readonly) {
      const value = await this.getSetting(key);
      if (value === null) throw new StoreError('invalid_argument', `no ${key} in this database, and it is open read-only`);
      return value;
    }
    // Statement by statement, READ COMMITTED: the insert keeps a value another host committed first (ON CONFLICT DO NOTHING waits for it), and the read after it sees it.
    return this.autocommit(ensureSetting(Dialect.postgres, key, create, this.now()));
  }

  async recoverInterrupted(options?: RecoverOptions): Promise<RecoveredRun[]> {
    this.writable();
    const { runs, events, walls, commitSeqs } = await this.reach(
      this.writes.run(() => recoverInterruptedPg(this.pool, this.writer, this.now, { ...options, endLeftovers: options?.endLeftovers ?? this.endLeftovers })),
    );
    this.notify(events, walls, commitSeqs);
    return runs;
  }

  replayRun(runId: string): Promise<ReplayReport> {
    return this.readPlan(replayRun(Dialect.postgres, runId));
  }

  verifyAggregates(): Promise<AggregateReport> {
    return this.readPlan(verifyAggregates(Dialect.postgres));
  }

  async prune(options: PruneOptions): Promise<PruneReport> {
    this.writable();
    const report = await this.reach(this.writes.run(() => prunePg(this.pool, this.now, options)));
    this.writer.forget();
    return report;
  }

  async integrityCheck(): Promise<string[]> {
    this.open();
    const problems = await integrityProblems(this.pool);
    return problems.length === 0 ? ['ok'] : problems;
  }

  async stats(): Promise<StoreStats> {
    this.open();
    return storeStats(this.pool);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await this.writes.drained();
    try {
      await this.lease?.stop();
    } catch (error) {
      // The database is away: the lease runs out by itself, and closing must still free everything.
      this.log(`could not end this host's lease at ${this.location}: ${(error as Error).message}`);
    }
    releaseInstance(this.owner);
    await this.watcher.close();
    await this.pool.end();
  }
}
