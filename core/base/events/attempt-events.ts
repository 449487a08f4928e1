import type { ErrorEnvelope } from '../errors/envelope.js';
import type { TokenUsage } from '../usage.js';
import type { TaskRef } from './task-events.js';

/**
 * An attempt's events: one call of a task's runtime, from what it was asked through its process
 * to how it ended, and the judgments the step makes of it afterwards (cancelled by a sibling, a
 * stale receipt).
 */

export type AttemptEventBody =
  | (TaskRef & {
      type: 'attemptStarted';
      attempt: number;
      /** The previous attempt's failure as given to this one; absent on first attempts. */
      feedback?: string;
      /**
       * What the attempt was asked (attempt-trace.ts): the rendered prompt, or for a
       * runtime that runs the operator's command line its argv. Bounded, env values redacted;
       * absent in journals older than the fields.
       */
      prompt?: string;
      argv?: string[];
    })
  /**
   * The attempt's subprocess, journaled as soon as it is spawned: it leads its own process group
   * (pgid = pid), and `startTime` (field 22 of /proc/<pid>/stat, null without /proc) tells it
   * from a later process given the same pid. Start-up recovery ends the group of an attempt a
   * dead host left running on this `hostname`. `telemetry`: the origin (`runtime:<agent>`) whose
   * exporter the child was started with, pointed at this host's receiver (a preset with the receiver
   * on); from then on its silence is watched (docs/otel.md "Telemetry health"). Absent otherwise.
   */
  | (TaskRef & { type: 'attemptProcess'; attempt: number; pid: number; startTime: string | null; hostname: string; telemetry?: string })
  /** After the attempt's group was ended its output pipes stayed open: a process outside the group (setsid) outlives the attempt. */
  | (TaskRef & { type: 'attemptProcessEscaped'; attempt: number; pid: number; message: string })
  /**
   * `trace`: the agent's output and how its process ended, bounded (attempt-trace.ts); absent when the runtime reported neither.
   * `usage`: the tokens and cost the agent reported for this attempt; absent when it reported none.
   */
  | (TaskRef & { type: 'attemptSucceeded'; attempt: number; durationMs: number; trace?: AttemptEndTrace; usage?: TokenUsage })
  /**
   * Journaled the moment the attempt ends, whatever its siblings do (a fact). `awaiting`: on a
   * task's last failure, the lower tasks of its step (task ids) that could still cancel it (rule 6)
   * and had not ended yet; whether the failure counts comes once they have: `errorOccurred` when it
   * does, `attemptJudgedCancelled` when it does not. Absent when nothing was awaited. Which tasks
   * had ended is timing, so the canonical journal leaves it out (core/engine/model/canonical.ts).
   */
  | (TaskRef & {
      type: 'attemptFailed';
      attempt: number;
      durationMs: number;
      error: ErrorEnvelope;
      trace?: AttemptEndTrace;
      usage?: TokenUsage;
      awaiting?: string[];
    })
  | (TaskRef & {
      type: 'receiptIgnoredStale';
      attempt: number;
      epoch: number;
      currentEpoch: number;
      outcome: 'succeeded' | 'failed';
      /** What the stale result carried (bounded like an attempt trace); absent in older journals. */
      output?: string;
      error?: ErrorEnvelope;
    })
  /**
   * An attempt stopped because a fail-fast sibling failed (rule 18: cancelled-by-sibling, not an
   * error of its own). `reported`: what the attempt answered when it ended anyway (a result that
   * raced the cancel), kept on the record and acted on by nothing; no errorOccurred is journaled.
   */
  | (TaskRef & {
      type: 'attemptCancelled';
      attempt: number;
      durationMs: number;
      by: 'sibling';
      reported?: { outcome: 'succeeded'; output?: string } | { outcome: 'failed'; error: ErrorEnvelope };
    })
  /**
   * A judgment, not an end: the task's last attempt had already ended failed (its `attemptFailed`
   * is the fact) and the step counts the task as cancelled by a lower sibling whose failure killed
   * a fail-fast parallel around it (rules 6, 18). The failure is not an error of its own: no
   * `errorOccurred` follows. Rarely it follows one: a lower sibling's system error, which escapes
   * continue and ignore parallels (rule 14b), may cancel a task whose failure already counted;
   * that occurrence stays on the record, handled (docs/semantics.md F7).
   */
  | (TaskRef & { type: 'attemptJudgedCancelled'; attempt: number; by: 'sibling' });

/**
 * How an attempt's process ended, as journaled on its end event: bounded by the engine before it is
 * emitted (core/engine/task/attempt-trace.ts keeps the budgets and the redaction).
 */
export interface AttemptEndTrace {
  /** The agent's answer (a successful runtime result, also when agent work failed it afterwards). */
  output?: string;
  exitCode: number | null;
  signal: string | null;
  stdoutTail: string;
  stderrTail: string;
}
