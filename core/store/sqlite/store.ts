import type Database from 'better-sqlite3';
import { notifyCommitted } from '../listeners.js';
import type { HivewatchEvent } from '../../base/events.js';
import { openDatabase } from './database.js';
import { judgeHost } from '../hosts/host-liveness.js';
import { newInstance, releaseInstance, type HostIdentity } from '../hosts/hosts.js';
import { SqliteHostLease } from './lease.js';
import { takenRuns } from '../hosts/taken-runs.js';
import { JournalWriter } from './journal-writer.js';
import { migrate, schemaVersion } from './migrate.js';
import { prune, type PruneOptions, type PruneReport } from '../maintenance/prune.js';
import { usageQuery, type UsageAnswer, type UsageRead } from '../queries/usage.js';
import { completeCommand, enqueueCommand, runHost, type RunCommandKind } from '../queries/commands.js';
import { rememberPayload, writeSessions, type ExternalBatch } from '../queries/external.js';
import { ensureSetting, getSetting, setSetting } from '../queries/settings.js';
import { issueStore } from '../issues/issues.js';
import { StatementCache } from '../queries/sql.js';
import { Dialect, runSync, type Query } from '../queries/plan.js';
import { recoverInterrupted, type EndLeftovers, type RecoveredRun, type RecoverOptions } from '../hosts/recovery.js';
import { replayRun, verifyAggregates, type AggregateReport, type ReplayReport } from '../maintenance/replay.js';
import { RunTakenError, StoreError } from '../store-error.js';
import { storableBatch } from '../projection/storable.js';
import type { AppendOptions, CommittedListener, RunHost, StoreStats } from '../contract.js';
import type { OpenStoreOptions, SqliteStore } from './types.js';
import { answeredPlanReads } from '../read-plans.js';

class SqliteConnectionStore extends answeredPlanReads(Dialect.sqlite) implements SqliteStore {
  readonly recovered: readonly RecoveredRun[];
  private readonly cache: StatementCache;
  private readonly writer: JournalWriter | null;
  private readonly owner: HostIdentity;
  readonly lease: SqliteHostLease | null;
  private readonly listeners = new Set<CommittedListener>();
  private closed = false;
  /** Issues' queries (issues.ts), answered at once (a refusal as a rejected promise). */
  readonly issues = issueStore(
    Dialect.sqlite,
    (query) => new Promise((resolve) => resolve(runSync(this.cache, (this.open(), query)))),
    (query) => new Promise((resolve) => resolve(runSync(this.cache, (this.writable(), query)))),
  );

  constructor(
    readonly database: Database.Database,
    readonly path: string,
    readonly readonly: boolean,
    private readonly now: () => number,
    recover: boolean,
    private readonly onListenerError: (error: unknown) => void,
    heartbeat: OpenStoreOptions['heartbeat'],
    private readonly endLeftovers: EndLeftovers | undefined,
  ) {
    super();
    this.owner = newInstance();
    this.cache = new StatementCache(database);
    this.writer = readonly ? null : new JournalWriter(database, this.owner, now);
    this.lease = readonly ? null : new SqliteHostLease(database, this.owner, { now, ...heartbeat });
    try {
      this.lease?.start();
      this.recovered = recover && !readonly ? this.recoverInterrupted() : [];
    } catch (error) {
      this.lease?.stop();
      releaseInstance(this.owner);
      throw error;
    }
  }

  private open(): void {
    if (this.closed) throw new StoreError('closed', 'the store is closed');
  }

  /** One read plan (read-plans.ts) on this connection. */
  readPlan<T>(query: Query<T>): T {
    this.open();
    return runSync(this.cache, query);
  }

  private writable(): JournalWriter {
    this.open();
    if (!this.writer) throw new StoreError('invalid_argument', 'the store was opened read-only');
    return this.writer;
  }

  private notify(events: readonly HivewatchEvent[], walls: readonly number[], commitSeqs: readonly number[]): void {
    notifyCommitted(this.listeners, this.onListenerError, events, walls, commitSeqs);
  }

  appendEvents(given: readonly HivewatchEvent[], options?: AppendOptions): void {
    const writer = this.writable();
    const events = storableBatch(given);
    let walls: number[];
    try {
      walls = writer.append(events, options?.importedWalls);
    } catch (error) {
      // A run another host interrupted while this one was not heard from: say so, not "seq 7 is a duplicate".
      const taken = runSync(this.cache, takenRuns(Dialect.sqlite, events));
      if (taken.length > 0) throw new RunTakenError(taken, { cause: error });
      throw error;
    }
    this.notify(events, walls, writer.lastCommittedSeqs());
  }

  ingestExternal(batch: ExternalBatch, given: readonly HivewatchEvent[]): boolean {
    const writer = this.writable();
    const events = storableBatch(given);
    const walls = this.database
      .transaction((): number[] | null => {
        if (!runSync(this.cache, rememberPayload(Dialect.sqlite, batch))) return null;
        runSync(this.cache, writeSessions(Dialect.sqlite, batch.sessions));
        return writer.append(events);
      })
      .immediate();
    if (walls === null) return false;
    this.notify(events, walls, writer.lastCommittedSeqs());
    return true;
  }

  subscribe(listener: CommittedListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  enqueueCommand(command: { commandId: string; runId: string; kind: RunCommandKind; taskId?: string | null; reason?: string | null }): void {
    this.writable();
    runSync(this.cache, enqueueCommand(Dialect.sqlite, command, this.now()));
  }

  completeCommand(commandId: string, outcome: { accepted: boolean; message?: string | null }): boolean {
    this.writable();
    return runSync(this.cache, completeCommand(Dialect.sqlite, commandId, outcome, this.now()));
  }

  runHost(runId: string): RunHost | null {
    this.open();
    const found = runSync(this.cache, runHost(Dialect.sqlite, runId));
    if (!found) return null;
    const verdict = judgeHost(found.owner, found.lease, this.now(), undefined, 'legacy');
    return { ...found.owner, alive: verdict.alive, reason: verdict.reason };
  }

  usage<R extends UsageRead>(read: R): UsageAnswer<R> {
    this.open();
    return runSync(this.cache, usageQuery(Dialect.sqlite, read));
  }

  /** A query of a part outside the store (HivewatchStore.runStatements); the SQLite writer lock makes each statement atomic. */
  runStatements<T>(plan: (dialect: Dialect) => Query<T>): T {
    this.open();
    return runSync(this.cache, plan(Dialect.sqlite));
  }

  setSetting(key: string, value: string): void {
    this.writable();
    runSync(this.cache, setSetting(Dialect.sqlite, key, value, this.now()));
  }

  secret(key: string, create: () => string): string {
    this.open();
    if (this.readonly) {
      const value = runSync(this.cache, getSetting(Dialect.sqlite, key));
      if (value === null) throw new StoreError('invalid_argument', `no ${key} in this database, and it is open read-only`);
      return value;
    }
    return runSync(this.cache, ensureSetting(Dialect.sqlite, key, create, this.now()));
  }

  recoverInterrupted(options?: RecoverOptions): RecoveredRun[] {
    const writer = this.writable();
    const { runs, events } = recoverInterrupted(this.database, writer, this.now, { ...options, endLeftovers: options?.endLeftovers ?? this.endLeftovers });
    this.notify(events, events.length > 0 ? writer.lastCommittedWalls() : [], events.length > 0 ? writer.lastCommittedSeqs() : []);
    return runs;
  }

  replayRun(runId: string): ReplayReport {
    this.open();
    return this.database.transaction(() => runSync(this.cache, replayRun(Dialect.sqlite, runId))).deferred();
  }

  verifyAggregates(): AggregateReport {
    this.open();
    return this.database.transaction(() => runSync(this.cache, verifyAggregates(Dialect.sqlite))).deferred();
  }

  prune(options: PruneOptions): PruneReport {
    const writer = this.writable();
    const report = prune(this.database, this.now, options);
    writer.forget();
    return report;
  }

  dataVersion(): number {
    this.open();
    return this.database.pragma('data_version', { simple: true }) as number;
  }

  integrityCheck(): string[] {
    this.open();
    return (this.database.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
  }

  stats(): StoreStats {
    this.open();
    const count = (table: string): number => (this.cache.get(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const pages = this.database.pragma('page_count', { simple: true }) as number;
    const pageSize = this.database.pragma('page_size', { simple: true }) as number;
    return {
      schemaVersion: schemaVersion(this.database),
      runs: count('runs'),
      events: count('events'),
      errors: count('errors'),
      bytes: pages * pageSize,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lease?.stop();
    releaseInstance(this.owner);
    this.listeners.clear();
    this.database.close();
  }
}

/** Opens (creating and migrating as needed) the store, then recovers runs of dead hosts. */
export function openSqliteStore(options: OpenStoreOptions): SqliteStore {
  const readonly = options.readonly ?? false;
  const db = openDatabase({
    path: options.path,
    readonly,
    ...(options.nativeBinding !== undefined ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.synchronous !== undefined ? { synchronous: options.synchronous } : {}),
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
  });
  try {
    if (!readonly) migrate(db);
    const onListenerError =
      options.onListenerError ??
      ((error: unknown) =>
        queueMicrotask(() => {
          throw error;
        }));
    return new SqliteConnectionStore(
      db,
      options.path,
      readonly,
      options.now ?? Date.now,
      options.recover ?? true,
      onListenerError,
      options.heartbeat,
      options.endLeftovers,
    );
  } catch (error) {
    db.close();
    throw error;
  }
}
