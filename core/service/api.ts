/**
 * The one API every shell serves (in-process, HTTP + SSE, Electron IPC) and the renderer talks
 * to. Types only, plus plain constants: the renderer imports this file and nothing else of core/.
 */
import type { ErrorEnvelope } from '../base/errors/envelope.js';
import type { FailureLink, HivewatchEvent, RunStatus } from '../base/events.js';
import type { Diagnostic } from '../flow/ast.js';
import type { HighlightKind, HighlightSpan } from '../flow/highlight.js';

export type { ErrorEnvelope,  FailureLink, HivewatchEvent, RunStatus, Diagnostic, HighlightKind, HighlightSpan };
;
// The error views' shapes have a file of their own; callers keep importing them from here.
export { BUCKETS, ERROR_DIMENSIONS,  FAILURE_DIMENSIONS, HANDLED_KEYS, SERIES_DIMENSIONS } from './api-errors.js';
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
// The bulk actions' shapes (docs/triage.md "Bulk actions") have a file of their own too.
export { BULK_ACTIONS, BULK_MAX_RUNS } from './api-bulk.js';
export type { BulkAction, BulkResult, BulkRunResult } from './api-bulk.js';
import type { BulkAction, BulkResult } from './api-bulk.js';
import type { Bucket, ErrorCount, ErrorDimension, ErrorFilter, ErrorGroup, ErrorOccurrence, ErrorSeries, FailureCounts, FailureDimension, SeriesDimension } from './api-errors.js';

export const RUN_STATUSES = ['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running', 'cancelling'];
export const ERROR_CATEGORY_NAMES = ['system', 'runtime', 'agent', 'scope', 'verification', 'git', 'user', 'policy'] as const;
export const RUN_SORTS = [
  '-started', 'started', '-ended', 'ended', '-duration', 'duration', '-errors', 'errors', '-attempts', 'attempts',
  '-step', 'step', 'status', '-status', 'flow', '-flow',
] as const;
export type RunSort = (typeof RUN_SORTS)[number];

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. null on the last page. */
  nextCursor: string | null;
}

export interface RunSummary {
  id: string;
  flow: string;
  flowName: string;
  status: RunStatus;
  /** The run's clock: `startedAt`, `endedAt` and `durationMs` are on it (virtual: runs ahead). */
  clock: 'real' | 'virtual';
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  /** Wall-clock start and end (what "2 min ago" and a real duration are made of). */
  startedWall: number;
  endedWall: number | null;
  step: number;
  maxSteps: number;
  attempts: number;
  errorCount: number;
  /** Set while a task waits in backoff: the "retrying" badge and its countdown. */
  retrying: { taskId: string; nextAttemptAt: number; delayMs: number } | null;
  resumedFrom: string | null;
  retryOf: string | null;
  /** The newest error occurrence of the run, whatever became of it (a live run's retry, say). */
  lastError: { code: string; message: string } | null;
  /**
   * Why the run ended (rule 16): set for a run that ended `failed` or `cancelled` (and
   * `interrupted`), null otherwise. This, not `lastError`, is what "why did it fail" shows.
   */
  endingError: EndingError | null;
  /**
   * Where an external run comes from (an agent session seen through its telemetry: `runtime:claude-code`,
   * `runtime:codex-cli`); absent for the runs Hivewatch executes. An external run cannot be cancelled from here.
   */
  source?: string;
}

/** A run's ending error: its head link's fields, where it happened, and the whole chain. */
export interface EndingError {
  code: string;
  category: string;
  origin: string;
  message: string;
  step: number | null;
  taskId: string | null;
  attempt: number | null;
  /** The code of the chain's last link (the root cause); equal to `code` for a one-link chain. */
  rootCode: string;
  /** Head (the ending error) first, root cause last. */
  chain: FailureLink[];
}

export type AttemptStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'stale';

/** What an attempt answered after it was stopped: a result that raced a sibling's cancel, or one after the operator's (rule 12). */
export type LateResult = { outcome: 'succeeded'; output?: string } | { outcome: 'failed'; error?: ErrorEnvelope };

export interface AttemptView {
  attempt: number;
  startedAt: number;
  endedAt: number | null;
  status: AttemptStatus;
  error: ErrorEnvelope | null;
  /** The backoff journaled after this attempt, if another attempt followed. */
  delayAfterMs: number | null;
  strategy: string | null;
  nextAttemptAt: number | null;
  /** Present when a fail-fast sibling's failure stopped it (rule 18): cancelled, not an error of its own. */
  cancelledBy?: 'sibling';
  /** Present when it answered after it was stopped; acted on by nothing. */
  lateResult?: LateResult;
  /**
   * The agent CLI's own telemetry sent from inside this attempt (issue #11 part 5): its session's
   * external run, with the API calls and errors (the CLI's internal retries) it reported.
   */
  telemetry?: AttemptTelemetry[];
}

export interface AttemptTelemetry {
  runId: string;
  sessionId: string;
  origin: string;
  apiCalls: number;
  errors: number;
}

export type TaskStatus = 'running' | 'waiting' | 'succeeded' | 'failed' | 'cancelled';

export interface TaskView {
  taskId: string;
  step: number;
  ordinal: number;
  name: string;
  agent: string;
  status: TaskStatus;
  maxAttempts: number;
  attempts: AttemptView[];
  error: ErrorEnvelope | null;
  output: string | null;
}

export interface StepView {
  step: number;
  status: 'running' | 'finished' | 'aborted' | 'cancelled';
  startedAt: number;
  endedAt: number | null;
  taskIds: string[];
}

/** A run named from another one's lineage: enough for a link and its status. */
export interface RelatedRun {
  id: string;
  status: RunStatus;
  startedWall: number;
}

/** The other direction of `retryOf` / `resumedFrom`, and the flow's run just before this one (to compare with). */
interface RunLineage {
  /** Runs started as retries of this one, oldest first (at most 50, the newest). */
  retries: RelatedRun[];
  /** Runs resumed from this one, oldest first (at most 50, the newest). */
  resumes: RelatedRun[];
  previous: RelatedRun | null;
}

/**
 * A journal event as `getEvents` answers it: with `wall`, the wall-clock time it was journaled at.
 * On a real clock that is its `ts`; a virtual-clock run's `ts` is its own clock, which runs ahead
 * of the wall (it jumps over every backoff), so "when" is `wall`.
 */
export type JournaledEvent = HivewatchEvent & { wall: number };

export interface RunDetail {
  run: RunSummary;
  steps: StepView[];
  tasks: TaskView[];
  lastSeq: number;
  lineage: RunLineage;
}

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
  /** Where its agent work happens (issue #10), in words; null when no session works in a worktree. */
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
   * The flow id the draft was made from. The window shows `env:` secrets as `[env NAME]`; the
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
  status?: RunStatus[];
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
  /** Substring of the run id, flow, flow name or last error message. */
  text?: string;
  /** Window on the start time. */
  since?: number;
  until?: number;
}

/** Runs matching a filter: the status chips (every filter but status) and the flow picker (every filter but flow). */
export interface RunCounts {
  total: number;
  byStatus: Partial<Record<RunStatus, number>>;
  byFlow: { flow: string; flowName: string; count: number }[];
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
  /** One action on many runs (ids, or a filter resolved on the server): a result per run (docs/triage.md). */
  bulkRuns(input: BulkRunsInput): Promise<BulkResult>;

  /** Live events after `afterId` (0: only new ones), delivered in batches in global order. */
  subscribe(listener: (batch: LiveEvent[]) => void, options?: SubscribeOptions): () => void;
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
}

/** Every API call by name, for the HTTP routes and the IPC channels. */
export const API_METHODS = [
  'startRun',
  'cancelRun',
  'retryRun',
  'resumeRun',
  'skipBackoff',
  'listRuns',
  'countRuns',
  'getRun',
  'getEvents',
  'listFlows',
  'checkFlow',
  'saveFlow',
  'getNotificationSettings',
  'setFlowMuted',
  'errorCounts',
  'failureCounts',
  'errorSeries',
  'errorGroups',
  'listErrors',
  'bulkRuns',
] as const;
export type ApiMethod = (typeof API_METHODS)[number];

/** The channel prefix of every IPC call (`hivewatch:<method>`) in the Electron shell. */
export const IPC_PREFIX = 'hivewatch:';

/** An IPC call's answer: IPC loses error classes, so failures travel as data. */
export type BridgeReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { status: number; code: string; message: string } };

/** What the live subscription sends over IPC. */
export type BridgeMessage =
  | { kind: 'batch'; events: LiveEvent[] }
  | { kind: 'reset'; startId: number }
  | { kind: 'ready'; startId: number };

/**
 * `window.hivewatch`: the one object Electron's preload exposes. `invoke` rejects a method that
 * is not in API_METHODS; `subscribe` returns its unsubscribe function.
 */
export interface HivewatchBridge {
  invoke(method: ApiMethod, input?: unknown): Promise<BridgeReply>;
  subscribe(afterId: number, onMessage: (message: BridgeMessage) => void): () => void;
}
