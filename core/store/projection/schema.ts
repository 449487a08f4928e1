import type { FailureLink, RunStatus } from '../../base/events.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import type { RunFields } from '../../common/run-fields.js';

/**
 * The projection rows as the rest of the product sees them (camelCase), and the one generic
 * mapping between a row and its table's columns (snake_case of the same names). Replay compares
 * rows through this mapping, so a column added here is compared automatically.
 */

export type StepStatus = 'running' | 'finished' | 'aborted' | 'cancelled' | 'interrupted';
export type TaskStatus = 'pending' | 'running' | 'backoff' | 'succeeded' | 'failed' | 'cancelled' | 'aborted' | 'interrupted';
export type AttemptStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'aborted' | 'interrupted';

export const RESUMABLE_RUN_STATUSES: readonly RunStatus[] = ['failed', 'cancelled', 'interrupted'];
export const OPEN_TASK_STATUSES: readonly TaskStatus[] = ['pending', 'running', 'backoff'];

/**
 * An error occurrence's disposition (rule 17, docs/semantics.md F3): `unhandled` when it is
 * a link of its run's ending-error chain, `handled` otherwise, `pending` until its run ends (a
 * retried attempt's error is `handled` at once). The same words as the API's `ERROR_DISPOSITIONS`.
 */
export const DISPOSITIONS = ['pending', 'handled', 'unhandled'] as const;
export type ErrorDisposition = (typeof DISPOSITIONS)[number];

/** What an attempt reported after it was stopped (attemptCancelled.reported, receiptIgnoredStale). */
type LateResult = { outcome: 'succeeded'; output?: string } | { outcome: 'failed'; error?: ErrorEnvelope };

/**
 * The run row: the fields the window shows too, set by the shared rule (core/common/run-fields.ts),
 * and the store's own columns.
 */
export interface RunRow extends RunFields {
  id: string;
  /** ts of the run's latest event. */
  updatedAt: number;
  lastSeq: number;
  concurrency: number | null;
  defaultAgent: string | null;
  /** Steps finished, counting the steps a resumed run replayed from its source. */
  steps: number;
  lastCheckpointStep: number;
  taskCount: number;
  resumeStep: number;
  /** Earliest scheduled retry among tasks in backoff: the "retrying" badge. */
  nextAttemptAt: number | null;
  /**
   * Earliest `nextAttemptAt` among tasks waiting out a subscription usage limit (their
   * retryScheduled carries `usageLimit`): the derived state "waiting for the usage limit to
   * reset" and the `waiting-limit` filter (migration 17). Null otherwise.
   */
  waitingUntil: number | null;
  cancelCommandId: string | null;
  cancelReason: string | null;
  epoch: number;
  /** The terminal error of a failed or interrupted run. */
  error: ErrorEnvelope | null;
  /**
   * The run's ending error (rule 16): its head link's fields, the chain's root code and the
   * whole chain, head first. Set by `runFailed`, `runCancelled` (SYSTEM_CANCELLED) and
   * `runInterrupted`; null while the run is live and for a completed one.
   */
  endingCode: string | null;
  endingCategory: string | null;
  endingOrigin: string | null;
  endingMessage: string | null;
  endingStep: number | null;
  endingTaskId: string | null;
  endingAttempt: number | null;
  endingRootCode: string | null;
  endingChain: FailureLink[] | null;
}

export interface StepRow {
  runId: string;
  step: number;
  status: StepStatus;
  startedAt: number;
  endedAt: number | null;
  taskCount: number;
  frontier: { ordinal: number; taskId: string; name: string }[];
  writes: number;
  checkpointed: boolean;
}

export interface TaskRow {
  runId: string;
  taskId: string;
  step: number;
  ordinal: number;
  /** Its prompt as run, filled in (taskStarted.name). */
  name: string;
  /** Its prompt as the flow wrote it, when `name` filled in values (taskStarted.template, migration 23); else null. */
  template: string | null;
  agent: string | null;
  status: TaskStatus;
  maxAttempts: number | null;
  attempts: number;
  startedAt: number | null;
  endedAt: number | null;
  output: string | null;
  error: ErrorEnvelope | null;
  errorCode: string | null;
  nextAttemptAt: number | null;
  /** `nextAttemptAt` while the backoff waits out a usage limit (see RunRow.waitingUntil), else null. */
  waitingUntil: number | null;
  staleReceipts: number;
}

export interface AttemptRow {
  runId: string;
  taskId: string;
  attempt: number;
  step: number;
  ordinal: number;
  status: AttemptStatus;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  error: ErrorEnvelope | null;
  errorCode: string | null;
  errorCategory: string | null;
  /** The backoff journaled (`retryScheduled`) after this attempt failed. */
  delayMs: number | null;
  strategy: string | null;
  nextAttemptAt: number | null;
  /** The command that skipped the backoff, if one did. */
  backoffSkippedBy: string | null;
  /** `sibling`: a fail-fast sibling's failure stopped it (attemptCancelled, rule 18); not an error of its own. */
  cancelledBy: 'sibling' | null;
  /** What it answered after it was stopped (a result racing the cancel); acted on by nothing. */
  lateResult: LateResult | null;
  /**
   * `runtime:<agent>` when its CLI was started with its exporter pointed at the receiver
   * (`attemptProcess.telemetry`): its silence is watched from the attempt's start on.
   */
  telemetryOrigin: string | null;
}

/** One `errorOccurred`: the unit every error count is made of. */
export interface ErrorRow {
  runId: string;
  seq: number;
  ts: number;
  category: string;
  code: string;
  origin: string;
  message: string;
  fingerprint: string;
  caught: boolean;
  retrying: boolean;
  recoverable: boolean;
  recoveryHint: string | null;
  context: Record<string, unknown>;
  /**
   * The envelope's own timestamp, on the run's clock. `ts` is the wall-clock time the error was
   * journaled at (its event's wall): windows, rollups and groups are real time.
   */
  timestamp: number;
  project: string | null;
  /** The run's flow (falls back to the envelope's correlation): the rollups' `flow`. */
  flow: string;
  step: number | null;
  taskId: string | null;
  attempt: number | null;
  /** Settled in the transaction of the run's terminal event (see ErrorDisposition). */
  disposition: ErrorDisposition;
  /** This occurrence is the head of its failed run's ending-error chain: the run's one failure. */
  ending: boolean;
}

export interface CheckpointRow {
  runId: string;
  step: number;
  ts: number;
  /** The whole state, or with `delta` only what the step changed (see `checkpointSaved`). */
  channels: Record<string, unknown>;
  delta: boolean;
}
