import type { ResumePoint } from '../../base/resume-point.js';
import type { HivewatchEvent } from '../../base/events.js';
import type { ErrorCount, ErrorGroup, HivewatchStore, RunRow } from '../../store/index.js';
import { addAlertRule, alertRuleExists, deliveryView, listAlertDeliveries, listAlertRules, removeAlertRule } from '../alerts/alerts-api.js';
import type { AlertDeliveryView, AlertRuleInput, AlertRuleView } from '../alerts/views.js';
import { AlertEngine } from '../alerts/engine.js';
import type { ErrorDimension } from '../api.js';
import { appFlowsDirOf, bundledExamplesDir } from '../flows/keys.js';
import { flowRefScope } from '../flows/ref.js';
import { commandIssueBook, type CommandIssueBook } from '../issues/command-book.js';
import { parseInput } from '../schemas.js';
import { createHivewatchService } from '../service.js';
import type { HivewatchService, HivewatchServiceOptions } from '../service-types.js';
import { historyReads, openHostStore, type History, type HostStoreOptions } from './open.js';
import { runRecords, type RunRecordPage, type RunRecordQuery } from './run-records.js';

/**
 * What a command line process holds of an opened history: the reads and acts its commands print
 * and do, each one a service function over the store, never the store itself (docs/architecture.md
 * "One read path"). The window reads the same history through the API; where the API's answer is
 * what a command prints (`failureCounts`), the command calls it (`api`), and where a `--json`
 * output keeps the history's own row (the runs list, the error rollups, a replay or prune report),
 * the function here answers that row as it is: scripts parse those shapes.
 */
export interface CommandHistory extends History {
  /** The run list `hivewatch runs` prints: each row with its ending error, usage and telemetry silence. */
  runRecords(query: RunRecordQuery, now: number): Promise<RunRecordPage>;
  /** Error counts by a dimension as the rollups keep them (a `task` row names its run and task). */
  errorCounts(filters: CommandErrorFilters & { by: ErrorDimension }): Promise<ErrorCount[]>;
  /** Error groups (one per fingerprint) as the rollups keep them. */
  errorGroups(filters: CommandErrorFilters): Promise<ErrorGroup[]>;
  /** Replays a run's journal against its stored projections; null when there is no such run. */
  replayRun(runId: string): Promise<ReplayReport | null>;
  /** What a resume or retry of a run starts from: its status, flow key and agent; null when there is no such run. */
  runToContinue(runId: string): Promise<RunToContinue | null>;
  /** The checkpoint a resume of the run continues from. */
  resumePoint(runId: string): Promise<ResumePoint | null>;
  /** Deletes the runs that ended more than `olderThanMs` ago (keeping those a resume needs). */
  prune(olderThanMs: number): Promise<PruneReport>;
  /** The runs that hit an issue (its fingerprint), newest first, as the history keeps their rows. */
  issueRuns(issueId: string, limit: number): Promise<{ runs: RunRow[]; nextCursor: string | null }>;
  /** The issue book the window uses, journaling as this command (its transitions queue their alerts). */
  issueBook(): CommandIssueBook;
  /** Alert rules and deliveries, as `hivewatch alerts` manages them. */
  readonly alerts: CommandAlerts;
  /** A Hivewatch service hosting runs in this history (the one composition root of the app's). */
  host(options: Omit<HivewatchServiceOptions, 'store'>): Promise<HivewatchService>;
  /** Called after each batch of events this process committed, in commit order. Returns unsubscribe. */
  onCommitted(listener: (events: readonly HivewatchEvent[]) => void): () => void;
}

/** The filters of `hivewatch errors`: free text as the operator gave it, checked by the API's rules. */
type ReplayReport = Awaited<ReturnType<HivewatchStore['replayRun']>>;
type PruneReport = Awaited<ReturnType<HivewatchStore['prune']>>;

export interface CommandErrorFilters {
  flow?: string | undefined;
  category?: string | undefined;
  origin?: string | undefined;
  code?: string | undefined;
  since?: number | undefined;
  limit?: number | undefined;
}

interface RunToContinue {
  readonly status: RunRow['status'];
  /** The run's flow key, resolved against the folders of this history. */
  readonly flow: string;
  readonly defaultAgent: string | null;
}

export interface CommandAlerts {
  /** Checks and stores a rule (AlertInputError for bad input); `--flow` as written is read from `cwd`. */
  add(input: AlertRuleInput, by: string, now: number, cwd: string): Promise<AlertRuleView>;
  list(): Promise<AlertRuleView[]>;
  deliveries(limit: number): Promise<AlertDeliveryView[]>;
  /** False when there is no such rule. */
  remove(id: string): Promise<boolean>;
  exists(id: string): Promise<boolean>;
  /** Sends a rule's test delivery now, as `host`; null when there is no such rule. */
  test(id: string, host: string): Promise<AlertDeliveryView | null>;
}

/** The filters as the API checks them (400 `invalid_input` naming the field), without the API's mapping of the rows. */
function checkedFilters<T extends CommandErrorFilters>(view: 'errorCounts' | 'errorGroups', filters: T): T {
  parseInput(view, filters);
  return filters;
}

/** Opens a history for a command: the store as a host opens it (its recovery ends a dead host's leftover agents). */
export async function openCommandHistory(options: HostStoreOptions & { now?: () => number }): Promise<CommandHistory> {
  const store = await openHostStore(options);
  const now = options.now ?? Date.now;
  return {
    api: historyReads(store, now),
    location: store.location,
    recovered: store.recovered,
    close: () => store.close(),
    runRecords: (query, at) => runRecords(store, query, at),
    errorCounts: async (filters) => store.errorCounts(checkedFilters('errorCounts', filters)),
    errorGroups: async (filters) => store.errorGroups(checkedFilters('errorGroups', filters)),
    // An unknown id has an empty journal, which "replays" to nothing: that is not a match.
    replayRun: async (runId) => ((await store.getRunRow(runId)) === null ? null : store.replayRun(runId)),
    runToContinue: async (runId) => {
      const detail = await store.getRun(runId);
      return detail === null ? null : { status: detail.run.status, flow: detail.run.flow, defaultAgent: detail.run.defaultAgent };
    },
    resumePoint: (runId) => store.resumePointForRun(runId),
    prune: (olderThanMs) => store.prune({ olderThanMs }),
    issueRuns: (issueId, limit) => store.listRuns({ issue: issueId, limit }),
    issueBook: () => commandIssueBook(store),
    alerts: {
      add: (input, by, at, cwd) =>
        addAlertRule(store, input, by, at, flowRefScope(store, { examplesDir: bundledExamplesDir(), userFlowsDir: appFlowsDirOf(store.location) }, cwd)),
      list: () => listAlertRules(store),
      deliveries: (limit) => listAlertDeliveries(store, limit),
      remove: (id) => removeAlertRule(store, id),
      exists: (id) => alertRuleExists(store, id),
      test: async (id, host) => {
        const delivery = await new AlertEngine({ store, host }).test(id);
        return delivery ? deliveryView(delivery) : null;
      },
    },
    host: (serviceOptions) => createHivewatchService({ ...serviceOptions, store }),
    onCommitted: (listener) => store.subscribe((events) => listener(events)),
  };
}
