import { getCommand, pendingCommands } from './queries/commands.js';
import { attemptTelemetry, externalSession, quietExternalSessions } from './queries/external.js';
import { errorCounts, errorSeries, listErrors } from './queries/errors.js';
import { eventsAfterCommit, getEvents, getJournalPage, journalHead } from './queries/events.js';
import { failureCounts } from './queries/failures.js';
import { errorGroups, groupBins, groupTrends } from './queries/groups.js';
import { runLineage } from './queries/lineage.js';
import type { Dialect, Query } from './queries/plan.js';
import { countRuns } from './queries/run-counts.js';
import { getRun, getRunRow, listRuns, runsInStatus } from './queries/runs.js';
import { resumePointForRun } from './hosts/recovery.js';
import { getSetting } from './queries/settings.js';

/**
 * The contract's reads that are one query plan each, by method name. Both engines derive these
 * methods from this table (`planReads`) and run each plan their own way (SQLite on its
 * connection, PostgreSQL in one read-only snapshot), so a new read is its plan in `queries/`
 * plus one line here: the contract, the SQLite store, its asynchronous face and PostgreSQL's
 * store all follow.
 */
const READ_PLANS = {
  externalSession,
  /** Open external sessions last heard from before `before`. */
  quietExternalSessions,
  attemptTelemetry,
  listRuns,
  countRuns,
  getRun,
  /** The run's row alone (no steps, tasks or attempts): the cheap read before a command. */
  getRunRow,
  /** Which of these runs are in this status now (one read for all of them). */
  runsInStatus,
  runLineage,
  getEvents,
  /** `getEvents` with each event's journaled wall time (`walls[i]` for `events[i]`). */
  getJournalPage,
  /** Events committed after commit position `afterCommit`, in commit order: the journal's tail. */
  eventsAfterCommit,
  /** The newest commit position (0 for an empty journal). */
  journalHead,
  pendingCommands,
  getCommand,
  errorCounts,
  /** Failures (one per run that ended failed, its ending error) in a window of end times: from the failure rollups. */
  failureCounts,
  errorSeries,
  errorGroups,
  groupTrends,
  groupBins,
  listErrors,
  getSetting,
  resumePointForRun,
} as const;

type Plans = typeof READ_PLANS;
type PlanArgs<P> = P extends (dialect: Dialect, ...args: infer A) => Query<unknown> ? A : never;
type PlanAnswer<P> = P extends (...args: never[]) => Query<infer T> ? T : never;

/** The table's reads as the contract declares them: each answers with a promise. */
export type ReadMethods = { [K in keyof Plans]: (...args: PlanArgs<Plans[K]>) => Promise<PlanAnswer<Plans[K]>> };
/** The same reads answered at once (SQLite's synchronous connection). */
export type AnsweredReadMethods = { [K in keyof Plans]: (...args: PlanArgs<Plans[K]>) => PlanAnswer<Plans[K]> };

/** What a store built on `planReads` defines: how one plan runs on its engine. */
interface PlanRunner {
  readPlan(query: Query<unknown>): unknown;
}

function planReadsClass(dialect: Dialect): abstract new () => object {
  abstract class PlanReads {}
  for (const [name, plan] of Object.entries(READ_PLANS)) {
    const build = plan as (dialect: Dialect, ...args: unknown[]) => Query<unknown>;
    Object.defineProperty(PlanReads.prototype, name, {
      value(this: PlanRunner, ...args: unknown[]) {
        return this.readPlan(build(dialect, ...args));
      },
      writable: true,
      configurable: true,
    });
  }
  return PlanReads;
}

/**
 * A base class with every read of the table as a method that builds its plan for `dialect` and
 * hands it to the subclass's `readPlan(query)` (which must exist: the conformance suite calls
 * every read on every engine).
 */
export function planReads(dialect: Dialect): abstract new () => ReadMethods {
  return planReadsClass(dialect) as abstract new () => ReadMethods;
}

/** `planReads` for a store that answers at once (SQLite's synchronous connection). */
export function answeredPlanReads(dialect: Dialect): abstract new () => AnsweredReadMethods {
  return planReadsClass(dialect) as abstract new () => AnsweredReadMethods;
}
