import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { usageLimitWaitOf } from '../../base/errors/usage-limit-wait.js';
import type { ExternalSessionRow } from '../../store/queries/external.js';
import { SESSION_STEP, SessionJournal, type AttemptRef, type PlannedEvent } from './session-journal.js';
import { approvalHold, endPendingApproval } from '../approval/session-approval.js';
import { readPromptState } from './session-state.js';
import { EXTERNAL_FLOW_PREFIX } from '../mapping.js';

/**
 * An external session stopped by a subscription usage limit (docs/otel.md
 * "Usage limits of external sessions"). Hivewatch cannot restart a CLI it did not start, so the
 * stop is a state it shows, not a wait it ends: the session's task waits until the reset the CLI
 * reported (`externalLimitReached`, which the store projects like a usage-limit backoff: the run's
 * `waiting_until`, the `waiting-limit` filter); any later telemetry of the session lifts it
 * (`externalLimitLifted`); the quiet period only counts from the reset; the operator's cancel
 * ends the run as cancelled ("stop watching").
 */

/**
 * After an API failure journaled on `ref`: when it is a usage limit whose reset lies ahead, the
 * session stops until then. A linked session (sent from inside a Hivewatch attempt) never does:
 * its attempt's own retry waits for the reset (docs/presets.md "Usage limits").
 */
export function stopAtUsageLimit(j: SessionJournal, ref: AttemptRef, ts: number, error: ErrorEnvelope): void {
  if (j.linked) return;
  const limit = usageLimitWaitOf(error);
  if (limit === null || limit.resetAt === null || limit.resetAt <= ts) return;
  j.push({
    type: 'externalLimitReached',
    ts,
    step: SESSION_STEP,
    ordinal: ref.ordinal,
    taskId: ref.taskId,
    attempt: ref.attempt,
    resetAt: limit.resetAt,
    reported: limit.reported,
  });
  j.state.limit = { taskId: ref.taskId, ordinal: ref.ordinal, at: ts, resetAt: limit.resetAt };
}

/** Claude Code repeats a request's final failure in this event: it is the same stop, not the session going on. */
const REPEATS_THE_FAILURE = new Set(['claude_code.api_retries_exhausted']);

/**
 * Whether a record of the stopped session lifts the stop: one timed after the failure that stopped
 * it, unless it only repeats that failure (`repeat`: a stream's later error event, or the name above).
 */
export function liftsLimit(j: SessionJournal, ts: number, name: string, repeat: boolean): boolean {
  const limit = j.state.limit ?? null;
  return limit !== null && ts > limit.at && !repeat && !REPEATS_THE_FAILURE.has(name);
}

/** The session runs again: its stopped task leaves the wait. */
export function liftLimit(j: SessionJournal, ts: number): void {
  const limit = j.state.limit ?? null;
  if (limit === null) return;
  j.push({ type: 'externalLimitLifted', ts, step: SESSION_STEP, ordinal: limit.ordinal, taskId: limit.taskId, resetAt: limit.resetAt });
  j.state.limit = null;
}

/**
 * When the quiet period may end the session (wall ms): `quietMs` after its last event, and for a
 * session stopped by a usage limit not before `quietMs` after the reset — the CLI may wait for the
 * reset itself, or its user resume it then.
 */
export function quietDeadline(row: ExternalSessionRow, quietMs: number): number {
  const state = readPromptState(row.promptState);
  const limit = state.limit ?? null;
  // A person may take hours to answer a prompt: the session stays open while one is pending (up to APPROVAL_HOLD_MS).
  return Math.max(Math.max(row.lastEventAt, limit?.resetAt ?? 0) + quietMs, approvalHold(state.approval));
}

/** Whether the session is stopped by a usage limit now. */
function stoppedByLimit(row: ExternalSessionRow): boolean {
  return !row.idle && (readPromptState(row.promptState).limit ?? null) !== null;
}

/** Whether a permission prompt of the session waits on a person now. */
function waitingOnPerson(row: ExternalSessionRow): boolean {
  return !row.idle && (readPromptState(row.promptState).approval?.pending ?? null) !== null;
}

/**
 * Whether the operator's cancel may stop watching the session now: it is paused on something only
 * outside Hivewatch can end (a usage limit's reset, a person's answer), and Hivewatch did not start
 * it. A session sent from a Hivewatch attempt ends with that attempt instead.
 */
export function stoppableSession(row: ExternalSessionRow): boolean {
  return row.parent === null && (stoppedByLimit(row) || waitingOnPerson(row));
}

/**
 * The operator's cancel of a session stopped by its usage limit or waiting on a person: Hivewatch
 * cannot stop the CLI, so it stops watching — a prompt still open ends (its wait counted up to
 * now, so the run's time waited stops growing), the open task ends cancelled, the run `cancelled`
 * (the cause names the command and the reason), and the row is closed like a quiet one, so
 * telemetry that comes later reopens the run (`externalRunReopened`) rather than being lost.
 */
export function planStopWatching(
  row: ExternalSessionRow,
  now: number,
  cause: { commandId: string; reason: string },
): { events: PlannedEvent[]; row: ExternalSessionRow } {
  const j = new SessionJournal(row);
  const r = j.row;
  endPendingApproval(j, now, 'hivewatch.stopped_watching');
  if (r.openTask !== null) {
    const error = new HivewatchError('SYSTEM_CANCELLED', {
      message: cause.reason,
      timestamp: now,
      correlation: { flow: `${EXTERNAL_FLOW_PREFIX}${r.origin.replace(/^runtime:/, '')}`, run: r.runId, step: SESSION_STEP, task: r.openTask },
    }).toEnvelope();
    j.push({
      type: 'taskFailed',
      ts: now,
      step: SESSION_STEP,
      ordinal: r.taskCount - 1,
      taskId: r.openTask,
      attempts: r.openTaskAttempts,
      error,
      cancelled: true,
    });
  }
  j.push({ type: 'runCancelled', ts: now, cause, correlation: { run: r.runId, step: SESSION_STEP, epoch: 0 } });
  r.openTask = null;
  r.openTaskAttempts = 0;
  // The last wait stays known: a late report of it after the session reopens is not counted again.
  j.state = { promptId: null, anonymous: false, open: null, outcome: null, failure: null, limit: null, approval: j.state.approval ?? null };
  return { events: j.events, row: { ...j.finish(), idle: true } };
}
