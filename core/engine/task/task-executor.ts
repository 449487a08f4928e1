import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { decideRetry } from '../../base/errors/retry.js';
import { nextUsageLimitWait } from '../../base/errors/usage-limit-wait.js';
import type { AttemptResult } from '../../runtimes/runtime.js';
import type { TokenUsage } from '../../base/usage.js';
import { usageProblem } from '../../base/usage-check.js';
import { FailureChain, Occurrence } from '../interpret/failure-chain.js';
import { commandLineOf, runAttempt, unaskedCancel, type AttemptEnd } from './attempt.js';
import { endTrace, startTrace } from './attempt-trace.js';
import { backoff, withUsageLimit } from './backoff.js';
import { journalCancelledBySibling, journalStale } from './late-answer.js';
import type { EventBodyOf, TaskEnv, TaskRef } from './task-env.js';
import { feedbackFor } from './task-work.js';

/**
 * The retry executor: the one layer that retries a failed attempt (rule 3). Every attempt's end
 * is journaled the moment it happens (a fact: exit code, signal, output tail, time), so an
 * operator sees the timeline grow and a failure as it happens, whatever its siblings do; the
 * task's own outcome is reported to the step, which journals it in ordinal order when the step
 * settles.
 *
 * What a task's last failure means can depend on its lower siblings (a fail-fast sibling's failure
 * makes it count as cancelled, rule 6), so that judgment is the step's (live-judgment.ts): it
 * calls `judge.counts()` (the errorOccurred, then the retry limit's) or `judge.cancelled()`
 * (`attemptJudgedCancelled`, no error of its own) once no lower sibling can change it. Whether an
 * error counts never depends on which subprocess finished first; when it is known does.
 */

/** The step's verdict on a task's last failure (F6): exactly one of these is called, `cancelled` possibly after `counts` (a system error, live-judgment.ts). */
interface LastFailureJudge {
  /** The failure counts: journals its errorOccurred (and the retry limit's), giving the chain's occurrences their seqs. */
  counts(): void;
  /** A lower sibling's failure makes the task count as cancelled: journals attemptJudgedCancelled. */
  cancelled(): void;
}

export type TaskResult =
  /** `commit`: the task's work on its branch, merged at the step's commit (null: no workspace or no change). */
  | { kind: 'succeeded'; output: string; attempts: number; commit?: string | null }
  /**
   * `error` is the chain's head with its causes nested. `judge`: what the step calls once it knows
   * whether the failure counts; absent for a failure with nothing left to journal (a replayed step).
   */
  | { kind: 'failed'; error: HivewatchError; chain: FailureChain; attempts: number; judge?: LastFailureJudge }
  | { kind: 'cancelled'; attempts: number };

export async function executeTask(env: TaskEnv): Promise<TaskResult> {
  const ref: TaskRef = { step: env.step, ordinal: env.ordinal, taskId: env.taskId };
  let feedback: string | null = null;
  // The reset the last usage-limit wait was for: a resume that meets the limit again says whether it moved.
  let waitedForReset: number | null = null;
  for (let attempt = 1; ; attempt++) {
    if (env.signal.aborted) return { kind: 'cancelled', attempts: attempt - 1 };
    const startedEpoch = env.epoch();
    const prompt = env.prompt(feedback);
    const asked = startTrace(prompt, commandLineOf(env, prompt), env.agent);
    env.emit({ type: 'attemptStarted', ...ref, attempt, ...(feedback !== null ? { feedback } : {}), ...asked });
    const started = env.clock.now();
    // A cancel may arrive from a listener of attemptStarted itself: then nothing is started.
    const end: AttemptEnd = env.signal.aborted
      ? { result: { kind: 'cancelled' }, answered: null, commit: null, durationMs: 0 }
      : await runAttempt(env, ref, attempt, prompt, startedEpoch, started);
    if (env.epoch() !== startedEpoch) {
      journalStale(env, ref, attempt, startedEpoch, end.answered ?? end.result);
      return { kind: 'cancelled', attempts: attempt };
    }
    if (env.signal.aborted) {
      // The run's epoch is unchanged, so a fail-fast sibling stopped it (F6): not an error of its own.
      journalCancelledBySibling(env, ref, attempt, end.durationMs, end.answered ?? end.result);
      return { kind: 'cancelled', attempts: attempt };
    }
    const result = end.result.kind === 'cancelled' ? unaskedCancel(env) : end.result;
    const ended = end.answered ? endTrace(end.answered, env.agent) : null;
    // What the agent consumed is on the runtime's answer, also when agent work failed it afterwards.
    const used = usageOfAnswer(end.answered ?? result);
    const trace = { ...(ended ? { trace: ended } : {}), ...(used ? { usage: used } : {}) };
    if (result.kind === 'succeeded') {
      env.emit({ type: 'attemptSucceeded', ...ref, attempt, durationMs: end.durationMs, ...trace });
      return { kind: 'succeeded', output: result.output, attempts: attempt, ...(env.work ? { commit: end.commit } : {}) };
    }
    if (result.kind !== 'failed') throw new Error('unreachable: a cancelled attempt was handled above');

    const correlation = { project: env.project, flow: env.flow, run: env.runId, step: env.step, task: env.taskId, attempt };
    const error = result.error.withCorrelation(correlation, env.clock.now());
    const decision = decideRetry(env.retry, error, attempt);
    const failed: EventBodyOf<'attemptFailed'> = { type: 'attemptFailed', ...ref, attempt, durationMs: end.durationMs, error: error.toEnvelope(), ...trace };
    if (!decision.retry) {
      const exhausted = decision.strategy === 'exhausted' && env.retry.retries > 0;
      return lastFailure(env, ref, { attempt, error, exhausted, failed, durationMs: end.durationMs });
    }
    // A retried attempt's error is never a link of a chain: it is journaled live (F3).
    env.emit(failed);
    env.emit({ type: 'errorOccurred', error: error.toEnvelope(), caught: env.caught(error), retrying: true, ...ref });
    if (env.givesFeedback) feedback = feedbackFor(error, attempt);
    const usageLimit = nextUsageLimitWait(error, waitedForReset);
    waitedForReset = usageLimit?.resetAt ?? null;
    if (!(await backoff(env, ref, attempt, usageLimit === null ? decision : withUsageLimit(decision, usageLimit))))
      return { kind: 'cancelled', attempts: attempt };
  }
}

/** The answer's usage when it is one the journal accepts (a runtime's bad figures never refuse the batch). */
function usageOfAnswer(answer: AttemptResult): TokenUsage | undefined {
  if (answer.kind === 'cancelled' || answer.usage === undefined) return undefined;
  return usageProblem(answer.usage) === null ? answer.usage : undefined;
}

/**
 * The task's last failure: its own error, or POLICY_RETRY_LIMIT_EXCEEDED caused by it (rule 16).
 * The attempt's end is journaled now, with the lower siblings it waits for; its errors are the
 * step's to journal (`judge`), once no lower sibling can cancel the task, and the occurrences get
 * their seqs then.
 */
function lastFailure(
  env: TaskEnv,
  ref: TaskRef,
  last: { attempt: number; error: HivewatchError; exhausted: boolean; failed: EventBodyOf<'attemptFailed'>; durationMs: number },
): TaskResult {
  const { attempt, error } = last;
  const awaiting = env.awaiting?.() ?? [];
  env.emit({ ...last.failed, ...(awaiting.length > 0 ? { awaiting: [...awaiting] } : {}) });
  const own = new Occurrence();
  let chain = FailureChain.of(error, own);
  const limit = new Occurrence();
  if (last.exhausted) {
    const gaveUp = new HivewatchError('POLICY_RETRY_LIMIT_EXCEEDED', {
      message: `gave up after ${attempt} attempts: ${error.message}`,
      origin: 'policy',
      context: { attempts: attempt },
      timestamp: env.clock.now(),
      correlation: error.correlation,
    });
    chain = FailureChain.of(gaveUp, limit).causedBy('retry-limit', chain);
  }
  const judge: LastFailureJudge = {
    counts: () => {
      own.seq = env.emit({ type: 'errorOccurred', error: error.toEnvelope(), caught: env.caught(error), retrying: false, ...ref });
      if (last.exhausted) {
        const head = chain.head.error;
        limit.seq = env.emit({ type: 'errorOccurred', error: chain.envelope(), caught: env.caught(head), retrying: false, ...ref });
      }
    },
    cancelled: () => {
      env.emit({ type: 'attemptJudgedCancelled', ...ref, attempt, by: 'sibling' });
    },
  };
  return { kind: 'failed', error: chain.error, chain, attempts: attempt, judge };
}
