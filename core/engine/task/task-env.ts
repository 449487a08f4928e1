import type { RetryPolicy } from '../../base/errors/retry.js';
import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Clock } from '../../base/clock.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { AgentSpec, SessionSpec } from '../../flow/plan/plan.js';
import type { SessionRuntime } from '../../runtimes/runtime.js';
import type { TaskWork } from './task-work.js';

/** What a task is given by its step: who it is, what runs it, and the run's signals, clock and journal. */
export interface TaskEnv {
  runId: string;
  flow: string;
  project: string | null;
  step: number;
  ordinal: number;
  taskId: string;
  spec: SessionSpec;
  agent: AgentSpec;
  runtime: SessionRuntime;
  retry: RetryPolicy;
  /** The rendered prompt; `feedback` is the previous attempt's failure for sessions that get it. */
  prompt: (feedback: string | null) => string;
  /** Worktree, checks and commit around each attempt, or null. */
  work: TaskWork | null;
  /** Whether a retry is told the previous failure: sessions with a workspace, or a prompt with `{feedback}`. */
  givesFeedback: boolean;
  context: () => Record<string, unknown>;
  clock: Clock;
  /** Aborts in-flight attempts and sleeps: run cancellation or a fail-fast sibling. */
  signal: AbortSignal;
  /** Aborted by a forced cancel (a second cancel, F8): subprocesses get SIGKILL at once. */
  killNow?: AbortSignal | undefined;
  /** The epoch at the start of an attempt; a result from an older epoch is stale (rule 12). */
  epoch: () => number;
  /** Whether the flow catches a failure of this task (it depends on the error: system errors escalate). */
  caught: (error: HivewatchError) => boolean;
  /** The lower tasks of the step (ids) that could still cancel this one, not ended yet: what its last failure waits for. */
  awaiting?: (() => readonly string[]) | undefined;
  /** Journals an event; returns its seq. */
  emit: (body: HivewatchEventBody) => number;
  /** Makes what was emitted durable now (an attempt's process must be on record before a crash can orphan it). */
  flush?: (() => Promise<void>) | undefined;
  /** Lets an operator cut a backoff short ("retry now"). */
  onBackoff: (skip: (commandId: string) => void) => () => void;
}

/** Where a task's events belong: its step, its ordinal in the step, its id. */
export type TaskRef = { step: number; ordinal: number; taskId: string };

/** The body of one event type, as a task journals it. */
export type EventBodyOf<T extends HivewatchEventBody['type']> = Extract<HivewatchEventBody, { type: T }>;
