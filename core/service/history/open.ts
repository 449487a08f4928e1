import { leftoverReaper } from '../../runtimes/process/leftover-groups.js';
import { defaultDatabasePath, openStore, printableLocation, type HivewatchStore, type RecoveredRun } from '../../store/index.js';
import { costApi } from '../cost/outcomes.js';
import { issuesApi } from '../issues/api.js';
import { readApi } from '../read-api.js';
import type { HivewatchService } from '../service-types.js';
import { usageApi } from '../cost/usage.js';

/** Where a history is when nothing names one: the OS data directory's database file. */
export function defaultHistoryPath(): string {
  return defaultDatabasePath();
}

/** A history's location as it may be printed: a PostgreSQL URL without its password, a file path as it is. */
export function printableHistoryLocation(location: string): string {
  return printableLocation(location);
}

export type HostStoreOptions = Omit<Parameters<typeof openStore>[0], 'endLeftovers'>;

/**
 * Opens the store for a process that runs flows (the server, the window, the CLI). Its start-up
 * recovery, and every later one (the host watch, a command that reaches a run whose host is gone),
 * ends the agent process groups a dead host on this machine left, before it journals
 * `runInterrupted`: a resume never starts a second agent beside a leftover one. Process control
 * is the runtimes'; the store only finds the groups in the journal.
 */
export function openHostStore(options: HostStoreOptions): Promise<HivewatchStore> {
  return openStore({ ...options, endLeftovers: leftoverReaper() });
}

/** The API's reads of a history, as the window gets them (the same validation, the same answers). */
export type HistoryReads = ReturnType<typeof readApi> &
  Pick<HivewatchService, 'usageByFlow' | 'costliestRuns' | 'costSplit' | 'flowHealth' | 'listIssues' | 'getIssue' | 'getIssueDetail'>;

/** A history opened to read through the service: no run host, no live tail. */
export interface History {
  readonly api: HistoryReads;
  /** Where it is (a file path, or a PostgreSQL URL without its password). */
  readonly location: string;
  /** What its start-up recovery interrupted, with what it did with each run's leftover agents. */
  readonly recovered: readonly RecoveredRun[];
  close(): Promise<void>;
}

/**
 * Opens a history for a command that reads it (the CLI's `flows`, `cost`, …): the store as a host
 * opens it (its recovery ends a dead host's leftover agents here too), read through the API's
 * parts. `now` is the wall clock the reads judge by (open windows, telemetry silence).
 */
export async function openHistory(options: HostStoreOptions & { now?: () => number }): Promise<History> {
  const store = await openHostStore(options);
  return {
    api: historyReads(store, options.now ?? Date.now),
    location: store.location,
    recovered: store.recovered,
    close: () => store.close(),
  };
}

/** The API's read parts over a store, composed as the window's service composes them (`now`: the clock they judge by). */
export function historyReads(store: HivewatchStore, now: () => number): HistoryReads {
  const issues = issuesApi(store, { now });
  const { setIssueStatus: _write, ...issueReads } = issues.api;
  return {
    ...readApi(store, (status) => issues.book.statusScope(status), now),
    ...usageApi(store),
    ...costApi(store, issues.book, now),
    ...issueReads,
  };
}
