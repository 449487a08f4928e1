import { CancelledError, HivewatchError } from '../errors/hivewatch-error.js';
import { decideRetry, type RetryPolicy } from '../errors/retry.js';
import type { AgentSpec, SessionSpec } from '../flow/plan.js';
import type { AttemptProcessReport, AttemptResult, SessionRuntime } from '../runtimes/runtime.js';
import { endTrace, startTrace } from './attempt-trace.js';
import type { Clock } from './clock.js';
import type { HivewatchEventBody } from './events.js';
import { feedbackFor, type TaskWork } from './task-work.js';

/**
 * The retry executor: the one layer that retries a failed attempt (rule 3). Attempt events are
 * journaled live so an operator sees the timeline grow; the task's own outcome is reported to
 * the step, which journals it in ordinal order when the step settles.
 */

export type TaskResult =
  /** `commit`: the task's work on its branch, merged at the step's commit (null: no workspace or no change). */
  | { kind: 'succeeded'; output: string; attempts: number; commit?: string | null }
  | { kind: 'failed'; error: HivewatchError; attempts: number }
  | { kind: 'cancelled'; attempts: number };

export class SkipBackoff extends Error {
  constructor(readonly commandId: string) {
    super('backoff skipped');
  }
}

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
  /** Worktree, checks and commit around each attempt (issue #10), or null. */
  work: TaskWork | null;
  /** Whether a retry is told the previous failure: sessions with a workspace, or a prompt with `{feedback}`. */
  givesFeedback: boolean;
  context: () => Record<string, unknown>;
  clock: Clock;
  /** Aborts in-flight attempts and sleeps: run cancellation or a fail-fast sibling. */
  signal: AbortSignal;
  /** The epoch at the start of an attempt; a result from an older epoch is stale (rule 12). */
  epoch: () => number;
  /** Whether the flow catches a failure of this task (it depends on the error: system errors escalate). */
  caught: (error: HivewatchError) => boolean;
  emit: (body: HivewatchEventBody) => void;
  /** Makes what was emitted durable now (an attempt's process must be on record before a crash can orphan it). */
  flush?: (() => Promise<void>) | undefined;
  /** Lets an operator cut a backoff short ("retry now"). */
  onBackoff: (skip: (commandId: string) => void) => () => void;
}

function reportProcess(env: TaskEnv, ref: { step: number; ordinal: number; taskId: string }, attempt: number, report: AttemptProcessReport): void {
  if (report.kind === 'started') {
    env.emit({ type: 'attemptProcess', ...ref, attempt, pid: report.pid, startTime: report.startTime, hostname: report.hostname });
    // The write itself is synchronous; a failure is the next flush's to report (it retries).
    env.flush?.().catch(() => undefined);
    return;
  }
  env.emit({
    type: 'attemptProcessEscaped',
    ...ref,
    attempt,
    pid: report.pid,
    message: `a process outside the attempt's process group ${report.pid} (started with setsid?) kept its output open after the group ended; it may still be running and was not stopped`,
  });
}

/** The runtime's argv for the record; a runtime failing to say is not the attempt's failure (execute reports that). */
function commandLineOf(env: TaskEnv, prompt: string): readonly string[] | null {
  try {
    return env.runtime.commandLine?.(env.agent, prompt) ?? null;
  } catch {
    return null;
  }
}

export async function executeTask(env: TaskEnv): Promise<TaskResult> {
  const ref = { step: env.step, ordinal: env.ordinal, taskId: env.taskId };
  let feedback: string | null = null;
  for (let attempt = 1; ; attempt++) {
    if (env.signal.aborted) return { kind: 'cancelled', attempts: attempt - 1 };
    const prompt = env.prompt(feedback);
    const asked = startTrace(prompt, commandLineOf(env, prompt), env.agent.env);
    env.emit({ type: 'attemptStarted', ...ref, attempt, ...(feedback !== null ? { feedback } : {}), ...asked });
    // A cancel may arrive from a listener of attemptStarted itself: then nothing is started.
    if (env.signal.aborted) return { kind: 'cancelled', attempts: attempt };
    const startedEpoch = env.epoch();
    const started = env.clock.now();
    let result: AttemptResult;
    let commit: string | null = null;
    // What the runtime answered, before agent work judged it: the inspector shows both.
    let answered: AttemptResult | null = null;
    try {
      const cwd = env.work ? await env.work.prepare(attempt, env.signal) : null;
      result = await env.runtime.execute(
        {
          runId: env.runId,
          taskId: env.taskId,
          ordinal: env.ordinal,
          attempt,
          prompt,
          agent: env.agent,
          simulate: env.spec.simulate,
          timeoutMs: env.spec.timeoutMs ?? env.agent.timeoutMs,
          context: env.context(),
          ...(cwd !== null ? { cwd } : {}),
          reportProcess: (report) => reportProcess(env, ref, attempt, report),
        },
        env.signal,
      );
      answered = result;
      if (result.kind === 'succeeded' && env.work && !env.signal.aborted && env.epoch() === startedEpoch) {
        const inspection = await env.work.inspect(attempt, result.output, env.signal);
        if (env.signal.aborted) result = { kind: 'cancelled' };
        else if (inspection.ok) commit = inspection.commit;
        else result = { kind: 'failed', error: inspection.error };
      }
    } catch (thrown) {
      if (thrown instanceof HivewatchError) {
        // Agent work failing around the attempt (a worktree, setup, a commit) fails the attempt.
        result = env.signal.aborted ? { kind: 'cancelled' } : { kind: 'failed', error: thrown };
      } else {
        // Runtimes must not throw; one that does broke an invariant, which is a system error.
        result = {
          kind: 'failed',
          error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
            message: `runtime ${env.runtime.name} threw instead of returning a result: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
          }),
        };
      }
    }
    const durationMs = env.clock.now() - started;
    if (env.epoch() !== startedEpoch) {
      if (result.kind !== 'cancelled') {
        env.emit({
          type: 'receiptIgnoredStale',
          ...ref,
          attempt,
          epoch: startedEpoch,
          currentEpoch: env.epoch(),
          outcome: result.kind,
        });
      }
      return { kind: 'cancelled', attempts: attempt };
    }
    if (result.kind === 'cancelled') {
      if (env.signal.aborted) return { kind: 'cancelled', attempts: attempt };
      // Only a stop the engine asked for ends an attempt as cancelled; anything else is a bug of the runtime.
      result = {
        kind: 'failed',
        error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
          message: `runtime ${env.runtime.name} reported the attempt cancelled although nothing cancelled it`,
        }),
      };
    }
    const ended = answered ? endTrace(answered, env.agent.env) : null;
    const trace = ended ? { trace: ended } : {};
    if (result.kind === 'succeeded') {
      env.emit({ type: 'attemptSucceeded', ...ref, attempt, durationMs, ...trace });
      return { kind: 'succeeded', output: result.output, attempts: attempt, ...(env.work ? { commit } : {}) };
    }

    const correlation = { project: env.project, flow: env.flow, run: env.runId, step: env.step, task: env.taskId, attempt };
    const error = result.error.withCorrelation(correlation, env.clock.now());
    const decision = decideRetry(env.retry, error, attempt);
    env.emit({ type: 'attemptFailed', ...ref, attempt, durationMs, error: error.toEnvelope(), ...trace });
    env.emit({ type: 'errorOccurred', error: error.toEnvelope(), caught: env.caught(error), retrying: decision.retry, ...ref });
    if (env.givesFeedback) feedback = feedbackFor(error, attempt);
    if (!decision.retry) {
      if (decision.strategy !== 'exhausted' || env.retry.retries === 0) return { kind: 'failed', error, attempts: attempt };
      const exhausted = new HivewatchError('POLICY_RETRY_LIMIT_EXCEEDED', {
        message: `gave up after ${attempt} attempts: ${error.message}`,
        origin: 'policy',
        context: { attempts: attempt, lastError: error.toEnvelope() },
        timestamp: env.clock.now(),
        correlation,
      });
      env.emit({ type: 'errorOccurred', error: exhausted.toEnvelope(), caught: env.caught(exhausted), retrying: false, ...ref });
      return { kind: 'failed', error: exhausted, attempts: attempt };
    }

    // Journal the computed delay before sleeping (rule 2), so a crash mid-sleep still shows it.
    env.emit({
      type: 'retryScheduled',
      ...ref,
      attempt,
      delayMs: decision.delayMs,
      strategy: decision.strategy,
      nextAttemptAt: env.clock.now() + decision.delayMs,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
    const sleep = new AbortController();
    const onAbort = (): void => sleep.abort(env.signal.reason ?? new CancelledError());
    env.signal.addEventListener('abort', onAbort, { once: true });
    const release = env.onBackoff((commandId) => sleep.abort(new SkipBackoff(commandId)));
    try {
      await env.clock.sleep(decision.delayMs, sleep.signal);
    } catch (interrupted) {
      if (!(sleep.signal.reason instanceof SkipBackoff)) {
        // A sleep ended by cancellation is cancellation, not an error (rule 4).
        if (interrupted instanceof CancelledError || env.signal.aborted) return { kind: 'cancelled', attempts: attempt };
        throw interrupted;
      }
      env.emit({ type: 'backoffSkipped', ...ref, attempt, commandId: sleep.signal.reason.commandId });
    } finally {
      release();
      env.signal.removeEventListener('abort', onAbort);
    }
  }
}
