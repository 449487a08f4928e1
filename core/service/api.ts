/**
 * The one API every shell serves (in-process, HTTP + SSE, Electron IPC) and the renderer talks
 * to. Types only, plus plain constants: the renderer imports this file and nothing else of core/.
 */
import type { ErrorEnvelope } from '../base/errors/envelope.js';
import type { ApiMethod as ApiMethodOfTable } from '../common/api-routes.js';
import type { FailureLink, HivewatchEvent, RunStatus } from '../base/events.js';
import type { Diagnostic } from '../flow/syntax/ast.js';

export type { TokenUsage } from '../base/usage.js';
export type {
  CostFiguresView,
  CostSplitAnswerView,
  CostSplitInput,
  CostSplitView,
  FlowHealthView,
  FlowUsageView,
  CostlyRunView,
  UsageTotalsView,
  UsageView,
} from './api-usage.js';
import type { CostlyRunView, CostSplitAnswerView, CostSplitInput, FlowHealthView, FlowUsageView } from './api-usage.js';
import type { HighlightKind, HighlightSpan } from '../flow/syntax/highlight.js';

export type { ErrorEnvelope, FailureLink, HivewatchEvent, RunStatus, Diagnostic, HighlightKind, HighlightSpan };
// The error views' shapes have a file of their own; callers keep importing them from here.
export { BUCKETS, ERROR_DIMENSIONS, FAILURE_DIMENSIONS, HANDLED_KEYS, SERIES_DIMENSIONS } from './api-errors.js';
export type {
  Bucket,
  ErrorCount,
  ErrorDimension,
  ErrorFilter,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSeries,
  FailureCounts,
  SeriesDimension,
} from './api-errors.js';
// Alert rules and their deliveries, types of their own file.
export type { AlertConditionName, AlertDeliveryChange, AlertDeliveryView, AlertRuleView, DesktopAlertFeed, DesktopAlertView } from './alerts/views.js';
import type { AlertDeliveryChange, AlertDeliveryView, AlertRuleInput, AlertRuleView, DesktopAlertFeed } from './alerts/views.js';
// The bulk actions' shapes (docs/triage.md "Bulk actions") have a file of their own too.
export { BULK_ACTIONS, BULK_MAX_RUNS } from './api-bulk.js';
export type { BulkAction, BulkResult, BulkRunResult } from './api-bulk.js';
import type { BulkAction, BulkResult } from './api-bulk.js';
import type {
  Bucket,
  ErrorCount,
  ErrorDimension,
  ErrorFilter,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSeries,
  FailureCounts,
  FailureDimension,
  SeriesDimension,
} from './api-errors.js';
// Error issues have a file of their own too.
export { IGNORE_BOUNDS, ISSUE_ACTIONS, ISSUE_SORTS, ISSUE_STATUS_FILTERS } from './api-issues.js';
export type { Issue, IssueAction, IssuePeriod, IssueScope, IssueSort, IssueStatusFilter, SetIssueStatusInput } from './api-issues.js';
import type { Issue, ListIssuesInput, SetIssueStatusInput } from './api-issues.js';
// An issue's page has a file of its own too.
export type { IssueActivity, IssueDetail } from './api-issue-page.js';
import type { IssueDetail, IssueDetailInput } from './api-issue-page.js';

const RUN_STATUSES = ['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
/** The run list's `status` filter: the run statuses and the derived `waiting-limit`, `waiting-approval` (core/base/run-list-status.ts). */
export const RUN_LIST_STATUSES = [...RUN_STATUSES, 'waiting-limit', 'waiting-approval'] as const;
export type { RunListStatus } from '../base/run-list-status.js';
import type { RunListStatus } from '../base/run-list-status.js';
export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running', 'cancelling'];
export const ERROR_CATEGORY_NAMES = ['system', 'runtime', 'agent', 'scope', 'verification', 'git', 'user', 'policy'] as const;
export const RUN_SORTS = [
  '-started',
  'started',
  '-ended',
  'ended',
  '-duration',
  'duration',
  '-errors',
  'errors',
  '-attempts',
  'attempts',
  '-step',
  'step',
  'status',
  '-status',
  'flow',
  '-flow',
] as const;
export type RunSort = (typeof RUN_SORTS)[number];

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. null on the last page. */
  nextCursor: string | null;
}

// A run's summary and detail have a file of their own (api-runs.ts).
export type { AgentTreeNodeView, AgentTreeView } from './api-agents.js';
export type {
  RunSummary,
  RunTelemetrySilence,
  EndingError,
  AttemptStatus,
  LateResult,
  AttemptView,
  AttemptTelemetry,
  TaskStatus,
  TaskView,
  StepView,
  RelatedRun,
  JournaledEvent,
  RunDetail,
} from './api-runs.js';
import type { JournaledEvent, RunDetail, RunSummary } from './api-runs.js';

export interface FlowInfo {
  /** Stable id: `examples/<file>` for bundled flows, `user/<file>` for the operator's folder. */
  id: string;
  name: string;
  path: string;
  bundled: boolean;
  source: string;
  ok: boolean;
  diagnostics: Diagnostic[];
  sessions: number;
  /** Where its agent work happens, in words; null when no session works in a worktree. */
  repo: string | null;
  /** Syntax highlighting of `source`, from the checker's lexer. */
  highlight: HighlightSpan[];
}

/** What checkFlow answers: the diagnostics and the highlighting of the source it checked. */
export interface CheckResult {
  ok: boolean;
  diagnostics: Diagnostic[];
  highlight: HighlightSpan[];
}

/** A draft from the Flows screen saved as `user/<name>.prose` (it must check). */
interface SaveFlowInput {
  /** A file name (letters, digits, . _ -; `.prose` added when missing), never a path. */
  name: string;
  source: string;
  /** Replace an existing file of that name (the window asks the operator first). */
  overwrite?: boolean;
  /**
   * The flow id the draft was made from. The window shows `env:` secrets as `[secret NAME]`; the
   * save puts that flow's values back in their place (a marker nothing fills is refused).
   */
  from?: string;
}

/** Which flows' failures do not notify (on by default; muted per flow, kept in the database). */
export interface NotificationSettings {
  /** Flow keys (a run's `flow`: `examples/…`, `user/…` or an absolute path), sorted. */
  mutedFlows: string[];
}

interface StartRunInput {
  flow: string;
  maxSteps?: number;
  concurrency?: number;
  virtualClock?: boolean;
  agent?: string;
}

/** What the run list filters by (each one server-side, over the whole history). */
export interface RunFilterInput {
  /** Run statuses, or `waiting-limit`: the runs waiting for a usage-limit reset. */
  status?: RunListStatus[];
  /** The flow file or its name. */
  flow?: string;
  /**
   * The ending error's code (its head or its root cause: `code=RUNTIME_CRASHED` finds a run that
   * gave up after crashes) / its category. `anyCode` / `anyCategory`: any error occurrence of the
   * run, whatever became of it.
   */
  code?: string;
  category?: string;
  anyCode?: string;
  anyCategory?: string;
  /** Runs with any occurrence of this issue (its fingerprint), whatever became of it. */
  issue?: string;
  /** Substring of the run id, flow, flow name or last error message. */
  text?: string;
  /** Window on the start time. */
  since?: number;
  until?: number;
}

/** Runs matching a filter: the status chips (every filter but status) and the flow picker (every filter but flow). */
export interface RunCounts {
  total: number;
  /** `waiting-limit` counts runs that are also counted in their own status (`running`). */
  byStatus: Partial<Record<RunListStatus, number>>;
  byFlow: { flow: string; flowName: string; count: number }[];
  /**
   * Counting stopped at a cap (a text filter: 2,000 runs; an error or issue filter: 10,000): more
   * runs match, and every number is a lower bound (core/store/queries/run-counts.ts).
   */
  atLeast?: true;
  /** With `atLeast`: `total` alone is exact (counted again under every filter, status and flow included). */
  totalExact?: true;
}

export interface ListRunsInput extends RunFilterInput {
  sort?: RunSort;
  limit?: number;
  cursor?: string;
}

/**
 * A live event with its global position in this service instance (1, 2, 3, ... without gaps);
 * SSE's Last-Event-ID carries it, prefixed with the instance (`<instance>.<id>`) on the wire.
 */
export interface LiveEvent {
  id: number;
  event: HivewatchEvent;
}

export interface CommandAck {
  commandId: string;
  accepted: boolean;
  message?: string;
}

export interface BulkRunsInput {
  action: BulkAction;
  /** By id, or `where` (the Runs list's filter, resolved on the server when the call arrives). */
  runIds?: string[];
  where?: RunFilterInput;
  /**
   * With `where`: the operator means every run of its statuses. A filter that names nothing but
   * statuses (or nothing) is refused without it (400 `broad_filter`): a filter never widens to
   * every run by accident, an empty text or a dropped key included (docs/triage.md "Bulk actions").
   */
  all?: boolean;
  /** Say what would happen to each run, and do nothing (the confirmation's preview). */
  dryRun?: boolean;
  /** A cancel's reason, journaled with each cancel. */
  reason?: string;
}

export interface HivewatchApi {
  startRun(input: StartRunInput): Promise<{ runId: string }>;
  cancelRun(input: { runId: string; reason?: string }): Promise<CommandAck>;
  retryRun(input: { runId: string }): Promise<{ runId: string }>;
  resumeRun(input: { runId: string }): Promise<{ runId: string }>;
  skipBackoff(input: { runId: string; taskId: string }): Promise<CommandAck>;

  listRuns(input: ListRunsInput): Promise<Page<RunSummary>>;
  countRuns(input: RunFilterInput): Promise<RunCounts>;
  getRun(input: { runId: string }): Promise<RunDetail | null>;
  getEvents(input: { runId: string; afterSeq?: number; limit?: number }): Promise<JournaledEvent[]>;
  listFlows(): Promise<FlowInfo[]>;
  checkFlow(input: { source: string; file?: string }): Promise<CheckResult>;
  /** Saves a draft that checks into the operator's folder; the saved flow as listFlows shows it. */
  saveFlow(input: SaveFlowInput): Promise<FlowInfo>;
  getNotificationSettings(): Promise<NotificationSettings>;
  setFlowMuted(input: { flow: string; muted: boolean }): Promise<NotificationSettings>;
  /** Occurrences by a dimension; `by: 'handled'` answers one count per disposition (HANDLED_KEYS). */
  errorCounts(input: ErrorFilter & { by: ErrorDimension; limit?: number }): Promise<ErrorCount[]>;
  /** Failures (one per run that ended failed) in a window of end times, by the ending error or the flow. */
  failureCounts(input: ErrorFilter & { by: FailureDimension; limit?: number }): Promise<FailureCounts>;
  errorSeries(input: ErrorFilter & { bucket: Bucket; stackBy: SeriesDimension }): Promise<ErrorSeries>;
  /** `trendBins`: every group's sparkline too, read from the rollups in one query. */
  errorGroups(input: ErrorFilter & { limit?: number; trendBins?: number }): Promise<ErrorGroup[]>;
  listErrors(input: ErrorFilter & { fingerprint?: string; limit?: number; cursor?: string }): Promise<Page<ErrorOccurrence>>;
  listAlertRules(): Promise<AlertRuleView[]>;
  /** Refused with 400 and the CLI's exact message for an unknown condition, a bad duration, a webhook that is not http(s). */
  addAlertRule(input: AlertRuleInput): Promise<AlertRuleView>;
  removeAlertRule(input: { id: string }): Promise<{ removed: boolean }>;
  /** Posts a test delivery of the rule now; the delivery as it ended (sent, or failed and waiting for its retry). */
  testAlertRule(input: { id: string }): Promise<AlertDeliveryView>;
  listAlertDeliveries(input?: { limit?: number }): Promise<AlertDeliveryView[]>;
  /** The firings of desktop-channel rules since `after` (the previous answer's `through`); none without `after` (alerts/desktop-feed.ts). */
  listDesktopAlerts(input?: { after?: number }): Promise<DesktopAlertFeed>;
  /** Tokens and cost per flow of the attempts that ended in the window, costliest first. */
  usageByFlow(input: { since?: number; until?: number; flow?: string }): Promise<FlowUsageView[]>;
  /** The runs started in the window that spent most, costliest first (at most `limit`, default 20). */
  costliestRuns(input: { since?: number; until?: number; flow?: string; limit?: number }): Promise<CostlyRunView[]>;
  /** What failure costs under the Errors screen's filters: failed runs, retried attempts, successful work, by flow, with a trend. */
  costSplit(input: CostSplitInput): Promise<CostSplitAnswerView>;
  /** Every flow with runs: newest run, runs ended by status, success rate, median duration and cost in the window. */
  flowHealth(input: { since?: number; until?: number }): Promise<FlowHealthView[]>;
  /** One action on many runs (ids, or a filter resolved on the server): a result per run (docs/triage.md). */
  bulkRuns(input: BulkRunsInput): Promise<BulkResult>;
  /** Error issues (api-issues.ts): filtered by status, sorted, a page at a time. */
  listIssues(input: ListIssuesInput): Promise<Page<Issue>>;
  /** One issue by its fingerprint or a unique prefix; 404 issue_not_found, 400 issue_ambiguous. */
  getIssue(input: { id: string }): Promise<Issue>;
  /** Resolve, ignore (with a condition) or reopen; journaled with who asked. The issue after it. */
  setIssueStatus(input: SetIssueStatusInput): Promise<Issue>;
  /** Everything about one issue in a period and filters (api-issue-page.ts); 404 issue_not_found, 400 issue_ambiguous. */
  getIssueDetail(input: IssueDetailInput): Promise<IssueDetail>;

  /** Whether this host reaches its database, for the window's banner (docs/postgres.md "When the server goes away"). */
  databaseStatus(): Promise<DatabaseStatus>;

  /** Live events after `afterId` (0: only new ones), delivered in batches in global order. */
  subscribe(listener: (batch: LiveEvent[]) => void, options?: SubscribeOptions): () => void;
}

export interface DatabaseStatus {
  /** How long the database server has been away as this host sees it (ms), or null while it answers. */
  unavailableForMs: number | null;
  /** The runs this host executes, which wait for the database to take their events (0 while it answers). */
  waitingRuns: number;
}

export interface SubscribeOptions {
  /** Resume after this live id (0 or absent: only events from now on). */
  afterId?: number;
  /**
   * Called when `afterId` cannot be resumed without a gap (older than the live buffer, unknown,
   * or from an earlier instance of the service): refetch what you show; the subscription then
   * continues with new events.
   */
  onReset?: () => void;
  /**
   * Called once the subscription is live (and again after each reconnect of a remote one), with
   * the id it continues after: events committed from then on will be delivered.
   */
  onReady?: (startId: number) => void;
  /**
   * Called when a remote subscription's connection dropped or went silent (no heartbeat within
   * its stall time); it keeps reconnecting on its own and calls `onReady` when back.
   */
  onDisconnect?: () => void;
  /**
   * Called when the host's alert engine stored deliveries or recorded a POST: read the delivery
   * log now, and the desktop feed when `change.desktop`. Not called for another host's
   * deliveries, so a notifier still reads on its beat for those and for what a dropped connection
   * missed.
   */
  onAlertDeliveries?: (change: AlertDeliveryChange) => void;
}

export type { ApiMethod } from '../common/api-routes.js';

/** The table (core/common/api-routes.ts) and this interface name the same methods: each fails to compile without the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const tableMatchesInterface: Same<ApiMethodOfTable, Exclude<keyof HivewatchApi, 'subscribe'>> = true;
void tableMatchesInterface;

/** The prefix of the Electron shell's IPC channels (`hivewatch:call`, `hivewatch:subscribe`, …). */
export const IPC_PREFIX = 'hivewatch:';

/** An IPC call's answer: IPC loses error classes, so failures travel as data. */
export type BridgeReply = { ok: true; value: unknown } | { ok: false; error: { status: number; code: string; message: string } };

/** What the live subscription sends over IPC. */
export type BridgeMessage =
  | { kind: 'batch'; events: LiveEvent[] }
  | { kind: 'reset'; startId: number }
  | { kind: 'ready'; startId: number }
  | { kind: 'alerts'; desktop: boolean };

/**
 * `window.hivewatch`: the one object Electron's preload exposes. `invoke` sends a method's name
 * and input on one channel; main answers only the names of API_METHODS. `subscribe` returns its
 * unsubscribe function.
 */
export interface HivewatchBridge {
  invoke(method: ApiMethodOfTable, input?: unknown): Promise<BridgeReply>;
  subscribe(afterId: number, onMessage: (message: BridgeMessage) => void): () => void;
}
