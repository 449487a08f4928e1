import { getCommand, pendingCommands } from './commands.js';
import { attemptTelemetry, externalSession, quietExternalSessions } from './external.js';
import { errorCounts, errorSeries, listErrors } from './errors.js';
import { eventsAfterCommit, getEvents, getJournalPage, journalHead } from './events.js';
import { failureCounts } from './failures.js';
import { errorGroups, groupBins, groupTrends } from './groups.js';
import { runLineage } from './lineage.js';
import { countRuns } from './run-counts.js';
import { getRun, getRunRow, listRuns, runsInStatus } from './runs.js';
import { resumePointForRun } from '../hosts/recovery.js';
import { getSetting } from './settings.js';

/**
 * The store's reads that are one query each, by role and by method name. Both engines bind this
 * table (`bindReads`, ../bind-reads.ts) and run each query their own way (SQLite on its
 * connection, PostgreSQL in one read-only snapshot), and the contract's role interfaces are
 * derived from its groups (../contract.ts). A new read is its generator in this folder plus one
 * entry in its role's group here: the contract and both engines follow, with no engine file
 * changed.
 */
export const READS_BY_ROLE = {
  runs: {
    listRuns,
    countRuns,
    getRun,
    /** The run's row alone (no steps, tasks or attempts): the cheap read before a command. */
    getRunRow,
    /** Which of these runs are in this status now (one read for all of them). */
    runsInStatus,
    runLineage,
    resumePointForRun,
  },
  journal: {
    getEvents,
    /** `getEvents` with each event's journaled wall time (`walls[i]` for `events[i]`). */
    getJournalPage,
    /** Events committed after commit position `afterCommit`, in commit order: the journal's tail. */
    eventsAfterCommit,
    /** The newest commit position (0 for an empty journal). */
    journalHead,
  },
  errors: {
    errorCounts,
    /** Failures (one per run that ended failed, its ending error) in a window of end times: from the failure rollups. */
    failureCounts,
    errorSeries,
    errorGroups,
    groupTrends,
    groupBins,
    listErrors,
  },
  commands: { pendingCommands, getCommand },
  external: {
    externalSession,
    /** Open external sessions last heard from before `before`. */
    quietExternalSessions,
    attemptTelemetry,
  },
  settings: { getSetting },
} as const;

/** Every read of the table under its method name (the names are unique across roles: reads.conformance.test.ts). */
export const READS = {
  ...READS_BY_ROLE.runs,
  ...READS_BY_ROLE.journal,
  ...READS_BY_ROLE.errors,
  ...READS_BY_ROLE.commands,
  ...READS_BY_ROLE.external,
  ...READS_BY_ROLE.settings,
} as const;
