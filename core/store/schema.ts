import type { FailureLink, RunStatus } from '../base/events.js';
import type { ErrorEnvelope } from '../base/errors/envelope.js';

/**
 * The projection rows as the rest of the product sees them (camelCase), and the one generic
 * mapping between a row and its table's columns (snake_case of the same names). Replay compares
 * rows through this mapping, so a column added here is compared automatically.
 */

export type StepStatus = 'running' | 'finished' | 'aborted' | 'cancelled' | 'interrupted';
export type TaskStatus = 'pending' | 'running' | 'backoff' | 'succeeded' | 'failed' | 'cancelled' | 'aborted' | 'interrupted';
export type AttemptStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'aborted' | 'interrupted';

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'interrupted'];
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'cancelling'];
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

export interface RunRow {
  id: string;
  /** The flow file as the engine named it in `runStarted` (the key of the `flow` dimension). */
  flow: string;
  flowName: string;
  status: RunStatus;
  /** The run's own clock (virtual for a virtual-clock run), as `durationMs` is. */
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  /** Wall-clock time of `runStarted` / the terminal event, as journaled (see events.wall). */
  startedWall: number;
  endedWall: number | null;
  /** ts of the run's latest event. */
  updatedAt: number;
  lastSeq: number;
  maxSteps: number | null;
  concurrency: number | null;
  clock: string | null;
  defaultAgent: string | null;
  /** The latest `stepStarted` (the resume step before the first one). */
  currentStep: number;
  /** Steps finished, counting the steps a resumed run replayed from its source. */
  steps: number;
  lastCheckpointStep: number;
  taskCount: number;
  attemptCount: number;
  errorCount: number;
  resumedFrom: string | null;
  retryOf: string | null;
  resumeStep: number;
  lastErrorCode: string | null;
  lastErrorCategory: string | null;
  lastErrorMessage: string | null;
  /** Earliest scheduled retry among tasks in backoff: the "retrying" badge. */
  nextAttemptAt: number | null;
  /**
   * Earliest `nextAttemptAt` among tasks waiting out a subscription usage limit (their
   * retryScheduled carries `usageLimit`): the derived state "waiting for the usage limit to
   * reset" and the `waiting-limit` filter (migration 17). Null otherwise.
   */
  waitingUntil: number | null;
  /**
   * Waiting on a person (migration 25, core/store/approval-reducer.ts): when the permission
   * prompt open now opened and what it asks for (`Bash(rm -rf build)`), null when none is open;
   * the total ms the run waited on a person over its prompts that ended.
   */
  approvalSince: number | null;
  approvalLabel: string | null;
  approvalWaitMs: number;
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
  /**
   * The steps its flow takes (runStarted.flowSteps, migration 23): when no session fails, and at
   * most; null when timing decides it, for an external run and for a journal older than the field.
   */
  flowSteps: number | null;
  flowStepsMost: number | null;
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

type Kind = 'text' | 'int' | 'bool' | 'json';

export interface TableSpec<R> {
  table: string;
  /** Columns in order; the column name is the snake_case of the key. */
  columns: readonly (readonly [keyof R & string, Kind])[];
  /** The natural key (also the conflict target of the upsert). */
  key: readonly (keyof R & string)[];
}

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function columnName(key: string): string {
  return snake(key);
}

export const RUNS: TableSpec<RunRow> = {
  table: 'runs',
  key: ['id'],
  columns: [
    ['id', 'text'], ['flow', 'text'], ['flowName', 'text'], ['status', 'text'], ['startedAt', 'int'],
    ['endedAt', 'int'], ['durationMs', 'int'], ['updatedAt', 'int'], ['lastSeq', 'int'], ['maxSteps', 'int'],
    ['concurrency', 'int'], ['clock', 'text'], ['defaultAgent', 'text'], ['currentStep', 'int'], ['steps', 'int'],
    ['lastCheckpointStep', 'int'], ['taskCount', 'int'], ['attemptCount', 'int'], ['errorCount', 'int'],
    ['resumedFrom', 'text'], ['retryOf', 'text'], ['resumeStep', 'int'], ['lastErrorCode', 'text'],
    ['lastErrorCategory', 'text'], ['lastErrorMessage', 'text'], ['nextAttemptAt', 'int'],
    ['cancelCommandId', 'text'], ['cancelReason', 'text'], ['epoch', 'int'], ['error', 'json'],
    ['startedWall', 'int'], ['endedWall', 'int'],
    ['endingCode', 'text'], ['endingCategory', 'text'], ['endingOrigin', 'text'], ['endingMessage', 'text'],
    ['endingStep', 'int'], ['endingTaskId', 'text'], ['endingAttempt', 'int'], ['endingRootCode', 'text'],
    ['endingChain', 'json'], ['waitingUntil', 'int'], ['flowSteps', 'int'], ['flowStepsMost', 'int'],
    ['approvalSince', 'int'], ['approvalLabel', 'text'], ['approvalWaitMs', 'int'],
  ],
};

export const STEPS: TableSpec<StepRow> = {
  table: 'steps',
  key: ['runId', 'step'],
  columns: [
    ['runId', 'text'], ['step', 'int'], ['status', 'text'], ['startedAt', 'int'], ['endedAt', 'int'],
    ['taskCount', 'int'], ['frontier', 'json'], ['writes', 'int'], ['checkpointed', 'bool'],
  ],
};

export const TASKS: TableSpec<TaskRow> = {
  table: 'tasks',
  key: ['runId', 'taskId'],
  columns: [
    ['runId', 'text'], ['taskId', 'text'], ['step', 'int'], ['ordinal', 'int'], ['name', 'text'], ['agent', 'text'],
    ['status', 'text'], ['maxAttempts', 'int'], ['attempts', 'int'], ['startedAt', 'int'], ['endedAt', 'int'],
    ['output', 'text'], ['error', 'json'], ['errorCode', 'text'], ['nextAttemptAt', 'int'], ['staleReceipts', 'int'], ['waitingUntil', 'int'],
    ['template', 'text'],
  ],
};

export const ATTEMPTS: TableSpec<AttemptRow> = {
  table: 'attempts',
  key: ['runId', 'taskId', 'attempt'],
  columns: [
    ['runId', 'text'], ['taskId', 'text'], ['attempt', 'int'], ['step', 'int'], ['ordinal', 'int'], ['status', 'text'],
    ['startedAt', 'int'], ['endedAt', 'int'], ['durationMs', 'int'], ['error', 'json'], ['errorCode', 'text'],
    ['errorCategory', 'text'], ['delayMs', 'int'], ['strategy', 'text'], ['nextAttemptAt', 'int'],
    ['backoffSkippedBy', 'text'], ['cancelledBy', 'text'], ['lateResult', 'json'],
  ],
};

export const ERRORS: TableSpec<ErrorRow> = {
  table: 'errors',
  key: ['runId', 'seq'],
  columns: [
    ['runId', 'text'], ['seq', 'int'], ['ts', 'int'], ['category', 'text'], ['code', 'text'], ['origin', 'text'],
    ['message', 'text'], ['fingerprint', 'text'], ['caught', 'bool'], ['retrying', 'bool'], ['recoverable', 'bool'],
    ['recoveryHint', 'text'], ['context', 'json'], ['timestamp', 'int'], ['project', 'text'], ['flow', 'text'],
    ['step', 'int'], ['taskId', 'text'], ['attempt', 'int'], ['disposition', 'text'], ['ending', 'bool'],
  ],
};

export const CHECKPOINTS: TableSpec<CheckpointRow> = {
  table: 'checkpoints',
  key: ['runId', 'step'],
  columns: [['runId', 'text'], ['step', 'int'], ['ts', 'int'], ['channels', 'json'], ['delta', 'bool']],
};

/**
 * JSON of error envelopes already serialised once: an envelope is in the journal payloads of
 * `attemptFailed`, `errorOccurred` and `taskFailed`, stored on its attempt, its task (and a
 * failed run) and re-written when those rows change in later batches; it is stringified once.
 * Other JSON columns (a step's frontier, an error's context, checkpoint channels) are
 * written about once each and not remembered (a cache entry per value cost more than it saved).
 */
const jsonOf = new WeakMap<object, string>();

/** `JSON.stringify(value)` of an object that is never mutated, serialised once (see above). */
export function rememberedJson(value: object): string {
  let text = jsonOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonOf.set(value, text);
  }
  return text;
}

function toJson(value: unknown, remember: boolean): string {
  if (!remember || typeof value !== 'object' || value === null) return JSON.stringify(value);
  return rememberedJson(value);
}

interface Layout {
  keys: string[];
  kinds: Kind[];
  /** JSON columns holding an error envelope (`error`): their text is remembered. */
  remember: boolean[];
}

/** Column keys and kinds of a spec as flat arrays (rowParams runs once per written row). */
const layouts = new WeakMap<TableSpec<unknown>, Layout>();

function layoutOf<R>(spec: TableSpec<R>): Layout {
  let layout = layouts.get(spec as TableSpec<unknown>);
  if (!layout) {
    layout = {
      keys: spec.columns.map(([key]) => key),
      kinds: spec.columns.map(([, kind]) => kind),
      remember: spec.columns.map(([key, kind]) => kind === 'json' && key === 'error'),
    };
    layouts.set(spec as TableSpec<unknown>, layout);
  }
  return layout;
}

/** Positional parameters for the spec's column order. Rows (and what they hold) are never mutated. */
export function rowParams<R>(spec: TableSpec<R>, row: R): unknown[] {
  const { keys, kinds, remember } = layoutOf(spec);
  const record = row as Record<string, unknown>;
  const params = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const value = record[keys[i] as string];
    if (value === undefined || value === null) params[i] = null;
    else {
      const kind = kinds[i];
      if (kind === 'bool') params[i] = value ? 1 : 0;
      else if (kind === 'json') params[i] = toJson(value, remember[i] as boolean);
      else params[i] = value;
    }
  }
  return params;
}

/** A row read back from the database (`SELECT *` keyed by column name; either engine). */
export function rowFromDb<R>(spec: TableSpec<R>, record: Record<string, unknown>): R {
  const row: Record<string, unknown> = {};
  for (const [key, kind] of spec.columns) {
    const value = record[snake(key)];
    if (value === null || value === undefined) row[key] = null;
    else if (kind === 'bool') row[key] = value === 1 || value === 1n || value === true;
    // PostgreSQL hands a json / jsonb column back already parsed; SQLite keeps the text.
    else if (kind === 'json') row[key] = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    else row[key] = value;
  }
  return row as R;
}

/** `INSERT ... ON CONFLICT(key) DO UPDATE SET every other column`: never a delete, so no cascade. */
export function upsertSql<R>(spec: TableSpec<R>): string {
  const cols = spec.columns.map(([key]) => snake(key));
  const keys = spec.key.map(snake);
  const updates = cols.filter((c) => !keys.includes(c)).map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${spec.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

export function insertSql<R>(spec: TableSpec<R>): string {
  const cols = spec.columns.map(([key]) => snake(key));
  return `INSERT INTO ${spec.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
}
