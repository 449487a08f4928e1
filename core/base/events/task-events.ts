import type { ErrorEnvelope } from '../errors/envelope.js';

/**
 * A task's events: one session of a step, from its start through its retries to its end. Its
 * attempts' events are attempt-events.ts's.
 */

/** Where a task stands: its step, its ordinal in the step, its id. */
export interface TaskRef {
  step: number;
  ordinal: number;
  taskId: string;
}

export type TaskEventBody =
  | (TaskRef & {
      type: 'taskStarted';
      /**
       * The task's prompt as its attempts run it, filled in and shortened (core/flow/check/specs.ts
       * `sessionTitle`); in journals older than `template`, the prompt as written.
       */
      name: string;
      /** The prompt as the flow wrote it, when `name` filled in values; absent when the two are the same. */
      template?: string;
      agent: string;
      maxAttempts: number;
    })
  | (TaskRef & {
      type: 'retryScheduled';
      attempt: number;
      delayMs: number;
      strategy: string;
      nextAttemptAt: number;
      /** Why the delay is not the policy's own (a runtime's reset time); absent when the policy explains it. */
      reason?: string;
      /**
       * The failure was a subscription usage limit: the line the CLI printed
       * and the reset instant read from it (epoch ms, null when unreadable), as reported;
       * `movedFrom`: the reset the task waited for before, when the CLI now names another. The
       * wait itself is `nextAttemptAt` (the reset, capped: docs/presets.md "Usage limits").
       */
      usageLimit?: { reported: string; resetAt: number | null; movedFrom?: number };
    })
  | (TaskRef & { type: 'backoffSkipped'; attempt: number; commandId: string })
  | (TaskRef & { type: 'taskSucceeded'; attempts: number; output: string })
  | (TaskRef & {
      type: 'taskFailed';
      attempts: number;
      error: ErrorEnvelope;
      cancelled: boolean;
      /**
       * For a cancelled task that had already finished when the cancel (of the run, or of a
       * failed fail-fast sibling) reached it: what it finished with. On the record only; the
       * step treats the task as cancelled.
       */
      settled?: { outcome: 'succeeded' } | { outcome: 'failed'; error: ErrorEnvelope };
    });
