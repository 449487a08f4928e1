import type { FailureLink, HivewatchEventBody } from '../../base/events.js';
import type { TokenUsage } from '../../base/usage.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ExternalSessionRow } from '../../store/queries/external.js';
import { readPromptState, writePromptState, type PromptState } from './session-state.js';
import { endPendingApproval } from '../approval/session-approval.js';
import { isClaudeSubagentSession } from '../subagents.js';

/**
 * The events one session's run gets, planned against its bookkeeping (pure): how a prompt task
 * ends (succeeded, or failed with the failure that ended its last request), how an attempt
 * fails, and how the quiet period ends the session — with the status its last prompt had, and a
 * request still in flight ended as RUNTIME_TIMEOUT (docs/otel.md "Sessions").
 */

/** Every external run has one step: the session; its prompts are the step's tasks. */
export const SESSION_STEP = 1;

export type PlannedEvent = HivewatchEventBody & { ts: number };

export interface AttemptRef {
  step: number;
  ordinal: number;
  taskId: string;
  attempt: number;
}

export class SessionJournal {
  readonly events: PlannedEvent[] = [];
  readonly row: ExternalSessionRow;
  state: PromptState;
  /** The run's seq before this plan: the n-th planned event gets `baseSeq + n`. */
  private readonly baseSeq: number;

  constructor(row: ExternalSessionRow) {
    this.row = { ...row };
    this.baseSeq = row.lastSeq;
    this.state = readPromptState(row.promptState);
  }

  /**
   * The session was sent from inside a Hivewatch attempt (its `hivewatch.*` resource attributes)
   * and is the attempt's own agent, whose failures the attempt's result reports. A Claude Code
   * subagent of it carries the same attributes, but no result reports its failures: they stay its
   * own run's (it still ends with the attempt, `row.parent`).
   */
  get linked(): boolean {
    return this.row.parent !== null && !isClaudeSubagentSession(this.row.sessionId);
  }

  /** The row as the plan leaves it, its prompt state included. */
  finish(): ExternalSessionRow {
    return { ...this.row, promptState: writePromptState(this.state) };
  }

  /** Pushes an event and returns the seq it will be journaled at. */
  push(event: PlannedEvent): number {
    this.events.push(event);
    return this.baseSeq + this.events.length;
  }

  /** The next attempt of the open task (which must be open). */
  nextAttempt(): AttemptRef {
    const r = this.row;
    r.openTaskAttempts += 1;
    return { step: SESSION_STEP, ordinal: r.taskCount - 1, taskId: r.openTask as string, attempt: r.openTaskAttempts };
  }

  /** The attempt started earlier and still open (a stream in flight). */
  openAttemptRef(attempt: number): AttemptRef {
    return { step: SESSION_STEP, ordinal: this.row.taskCount - 1, taskId: this.row.openTask as string, attempt };
  }

  succeeded(ref: AttemptRef, ts: number, durationMs: number, usage?: TokenUsage): void {
    this.push({ type: 'attemptSucceeded', ts, ...ref, durationMs, ...(usage ? { usage } : {}) });
    this.state.outcome = 'succeeded';
    this.state.failure = null;
    this.state.open = null;
  }

  /**
   * A failed attempt (already started) and its error. `retrying`: the CLI tried the request
   * again, so the failure is handled at once; otherwise it stays pending, and is the prompt's
   * failure until something succeeds after it.
   */
  failed(ref: AttemptRef, ts: number, durationMs: number, error: ErrorEnvelope, retrying: boolean, usage?: TokenUsage): void {
    // A session sent from inside a Hivewatch attempt is part of that attempt: its request failures are shown
    // there (the attempt's own result is the one failure, counted once), never error occurrences of their own.
    const occurrence = this.linked
      ? null
      : this.push({ type: 'errorOccurred', ts, error, caught: false, retrying, step: SESSION_STEP, ordinal: ref.ordinal, taskId: ref.taskId });
    const failedAt = this.push({ type: 'attemptFailed', ts, ...ref, durationMs, error, ...(usage ? { usage } : {}) });
    const seq = occurrence ?? failedAt;
    this.state.open = null;
    if (!retrying) {
      this.state.outcome = 'failed';
      this.state.failure = { seq, error };
    }
  }

  /** Ends the open task with its outcome; the next prompt starts afresh. */
  closeOpenTask(ts: number): void {
    endPromptTask(this, ts);
  }
}

/** What ends the open prompt failed: a refused tool call, else its last failure when its last request or tool failed. */
function promptFailure(j: SessionJournal): { seq: number; error: ErrorEnvelope } | null {
  return j.state.refused ?? (j.state.outcome === 'failed' ? j.state.failure : null);
}

/** The open task's ending: failed with its failure (promptFailure), else succeeded. */
function endPromptTask(j: SessionJournal, ts: number): void {
  const r = j.row;
  if (r.openTask !== null) {
    const ref = { ts, step: SESSION_STEP, ordinal: r.taskCount - 1, taskId: r.openTask, attempts: r.openTaskAttempts };
    const failure = promptFailure(j);
    if (failure) j.push({ type: 'taskFailed', ...ref, error: failure.error, cancelled: false });
    else j.push({ type: 'taskSucceeded', ...ref, output: '' });
  }
  r.openTask = null;
  r.openTaskAttempts = 0;
}

/** The link of a run's ending chain for the failure that ended its last prompt. */
function linkOf(failure: { seq: number; error: ErrorEnvelope }): FailureLink {
  const { error } = failure;
  const c = error.correlation ?? {};
  return {
    seq: failure.seq,
    code: error.code,
    category: error.category,
    origin: error.origin,
    message: error.message,
    step: c.step ?? null,
    taskId: c.task ?? null,
    attempt: c.attempt ?? null,
    how: null,
  };
}

/** The RUNTIME_TIMEOUT of a request that was still in flight when the session went quiet. */
function stalledError(j: SessionJournal, ref: AttemptRef, quietMs: number, now: number, runtime: string): ErrorEnvelope {
  const minutes = Math.round(quietMs / 60_000);
  const period = minutes >= 1 ? `${minutes} min` : `${Math.round(quietMs / 1000)} s`;
  return new HivewatchError('RUNTIME_TIMEOUT', {
    origin: `runtime:${runtime}`,
    message: `${runtime}: no telemetry for ${period} (the quiet period) while a request was in flight: a stalled stream, or the CLI ended without reporting it`,
    recoveryHint: 'Check the agent: it may still be waiting on the provider; the quiet period is hivewatch --otel-idle',
    context: { quietMs, inFlightSince: j.state.open?.since ?? null },
    correlation: { flow: `external:${runtime}`, run: j.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    timestamp: now,
  }).toEnvelope();
}

/**
 * The preset's reading of its attempt's failure, as the call of the linked session its telemetry
 * never reported: the same code and words, marked `source: "preset-output"` (the CLI exited
 * before its exporter sent the request: Codex exits 1 without flushing; docs/otel.md).
 */
function presetReadingOf(j: SessionJournal, ref: AttemptRef, error: ErrorEnvelope, now: number, runtime: string): ErrorEnvelope {
  return {
    ...error,
    message: `${error.message} (from the CLI's output as the preset read it: its telemetry of this request never arrived)`,
    context: { ...error.context, source: 'preset-output' },
    correlation: { project: null, flow: `external:${runtime}`, run: j.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    timestamp: now,
  };
}

/**
 * A request in flight when the attempt it was sent from was stopped (cancelled, aborted,
 * interrupted): the CLI was stopped with it, so the request did not succeed.
 */
function stoppedError(j: SessionJournal, ref: AttemptRef, status: string, now: number, runtime: string): ErrorEnvelope {
  // Hivewatch stopped it, not the CLI: a system error.
  return new HivewatchError('SYSTEM_CANCELLED', {
    origin: 'system',
    message: `${runtime}: the attempt this session was sent from ended ${status} while this request was in flight`,
    context: { attemptStatus: status, inFlightSince: j.state.open?.since ?? null },
    correlation: { flow: `external:${runtime}`, run: j.row.runId, step: SESSION_STEP, task: ref.taskId, attempt: ref.attempt },
    timestamp: now,
  }).toEnvelope();
}

/** Whether the preset's failure says the CLI made an API request (the provider answered it: a status, a usage limit). */
function madeARequest(error: ErrorEnvelope | null): error is ErrorEnvelope {
  const c = error?.context ?? {};
  return typeof c.statusCode === 'number' || c.usageLimit === true;
}

/**
 * A linked session whose attempt ended: a request still in flight ends as the attempt did (its
 * failure as the preset read it, else succeeded), and a session that reported no request while
 * the preset's failure says the CLI made one gets that one, from the preset's reading.
 */
function endWithAttempt(j: SessionJournal, ended: NonNullable<ExternalSessionRow['parentEnded']>, now: number, runtime: string): void {
  const open = j.state.open;
  const failed = ended.status === 'failed' && ended.error !== null;
  if (open !== null && j.row.openTask !== null) {
    const ref = open.attempt !== null ? j.openAttemptRef(open.attempt) : j.nextAttempt();
    if (open.attempt === null) j.push({ type: 'attemptStarted', ts: Math.min(open.since, now), ...ref });
    const durationMs = Math.max(0, now - open.since);
    if (failed) j.failed(ref, now, durationMs, presetReadingOf(j, ref, ended.error as ErrorEnvelope, now, runtime), false);
    else if (ended.status === 'succeeded') j.succeeded(ref, now, durationMs);
    else j.failed(ref, now, durationMs, stoppedError(j, ref, ended.status, now, runtime), false);
    return;
  }
  if (!failed || !madeARequest(ended.error) || j.row.openTaskAttempts > 0 || (j.row.taskCount > 0 && j.row.openTask === null)) return;
  if (j.row.openTask === null) {
    j.row.taskCount += 1;
    j.row.openTask = `prompt-${j.row.taskCount}`;
    j.push({
      type: 'taskStarted',
      ts: now,
      step: SESSION_STEP,
      ordinal: j.row.taskCount - 1,
      taskId: j.row.openTask,
      name: `prompt ${j.row.taskCount}`,
      agent: runtime,
      maxAttempts: 0,
    });
  }
  const ref = j.nextAttempt();
  j.push({ type: 'attemptStarted', ts: now, ...ref });
  j.failed(ref, now, 0, presetReadingOf(j, ref, ended.error, now, runtime), false);
}

/**
 * The events that end a quiet session: a request still in flight ends as RUNTIME_TIMEOUT, its
 * open task ends with its outcome, and the run goes idle — failed with its last prompt's failure
 * when that prompt failed, else completed. A linked session whose attempt ended (`row.parentEnded`,
 * `withAttempt`) ends with it instead: its request in flight ends as the attempt did.
 */
export function planIdle(row: ExternalSessionRow, quietMs: number, now: number, withAttempt = false): { events: PlannedEvent[]; row: ExternalSessionRow } {
  const j = new SessionJournal(row);
  const runtime = row.origin.startsWith('runtime:') ? row.origin.slice('runtime:'.length) : row.origin;
  const open = j.state.open;
  const ended = withAttempt && row.parent !== null ? (row.parentEnded ?? null) : null;
  if (ended !== null) endWithAttempt(j, ended, now, runtime);
  else if (open !== null && row.openTask !== null) {
    const ref = open.attempt !== null ? j.openAttemptRef(open.attempt) : j.nextAttempt();
    if (open.attempt === null) j.push({ type: 'attemptStarted', ts: Math.min(open.since, now), ...ref });
    j.failed(ref, now, Math.max(0, now - open.since), stalledError(j, ref, quietMs, now, runtime), false);
  }
  endPendingApproval(j, now, 'hivewatch.session_ended');
  const failure = promptFailure(j);
  endPromptTask(j, now);
  // A linked session's failure is its attempt's, which the engine counts: the session itself ends without one.
  const ending = failure && !j.linked ? { error: failure.error, chain: [linkOf(failure)] } : {};
  const endedWith = ended !== null && row.parent !== null ? { endedWith: { ...row.parent } } : {};
  j.push({ type: 'externalRunIdle', ts: now, quietMs, lastEventAt: row.lastEventAt, ...ending, ...endedWith });
  // The last wait stays known: a late report of it after the session reopens is not counted again.
  const lastWait = j.state.approval?.lastWait ?? null;
  j.state = {
    promptId: null,
    anonymous: false,
    open: null,
    outcome: null,
    failure: null,
    approval: lastWait ? { pending: null, lastWait, seenAt: null } : null,
  };
  return { events: j.events, row: { ...j.finish(), idle: true } };
}
