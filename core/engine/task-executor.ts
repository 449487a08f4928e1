import { CancelledError, HivewatchError, isCancelled } from '../base/errors/hivewatch-error.js';
import { decideRetry, type RetryPolicy } from '../base/errors/retry.js';
import { movedResetReason, nextUsageLimitWait, type UsageLimitWait } from '../base/errors/usage-limit-wait.js';
import type { AgentSpec, SessionSpec } from '../flow/plan/plan.js';
import type { AttemptProcessReport, AttemptResult, SessionRuntime } from '../runtimes/runtime.js';
import { endTrace, JOURNAL_OUTPUT_CHARS, keepHead, redactSecrets, startTrace } from './attempt-trace.js';
import type { Clock } from '../base/clock.js';
import type { HivewatchEventBody } from '../base/events.js';
import type { TokenUsage } from '../base/usage.js';
import { usageProblem } from '../base/usage-check.js';
import { FailureChain, Occurrence } from './failure-chain.js';
import { feedbackFor, type TaskWork } from './task-work.js';

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

/** An operator's "retry now" ending a backoff sleep: caught where the sleep is, journaled as backoffSkipped. */
class SkipBackoff extends HivewatchError {
  constructor(readonly commandId: string) {
    super('SYSTEM_BACKOFF_SKIPPED', { message: 'backoff skipped', context: { commandId } });
    this.name = 'SkipBackoff';
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

function reportProcess(env: TaskEnv, ref: { step: number; ordinal: number; taskId: string }, attempt: number, report: AttemptProcessReport): void {
  if (report.kind === 'started') {
    const telemetry = report.telemetry !== undefined ? { telemetry: report.telemetry } : {};
    env.emit({ type: 'attemptProcess', ...ref, attempt, pid: report.pid, startTime: report.startTime, hostname: report.hostname, ...telemetry });
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

type Ref = { step: number; ordinal: number; taskId: string };
type BodyOf<T extends HivewatchEventBody['type']> = Extract<HivewatchEventBody, { type: T }>;

/** One attempt as it ended: the result after agent work judged it, and what the runtime answered before that. */
interface AttemptEnd {
  result: AttemptResult;
  answered: AttemptResult | null;
  commit: string | null;
  durationMs: number;
}

export async function executeTask(env: TaskEnv): Promise<TaskResult> {
  const ref: Ref = { step: env.step, ordinal: env.ordinal, taskId: env.taskId };
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
    const failed: BodyOf<'attemptFailed'> = { type: 'attemptFailed', ...ref, attempt, durationMs: end.durationMs, error: error.toEnvelope(), ...trace };
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

/** A retry decision after a usage limit: the wait journaled with it, and a reset that moved said first in its reason. */
function withUsageLimit<D extends { reason?: string }>(decision: D, usageLimit: UsageLimitWait): D & { usageLimit: UsageLimitWait } {
  const moved = movedResetReason(usageLimit);
  if (moved === null) return { ...decision, usageLimit };
  return { ...decision, usageLimit, reason: decision.reason === undefined ? moved : `${moved}; ${decision.reason}` };
}

/** The answer's usage when it is one the journal accepts (a runtime's bad figures never refuse the batch). */
function usageOfAnswer(answer: AttemptResult): TokenUsage | undefined {
  if (answer.kind === 'cancelled' || answer.usage === undefined) return undefined;
  return usageProblem(answer.usage) === null ? answer.usage : undefined;
}

/** Runs one attempt (agent work around it when the task has a workspace); never throws. */
async function runAttempt(env: TaskEnv, ref: Ref, attempt: number, prompt: string, startedEpoch: number, started: number): Promise<AttemptEnd> {
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
        ...(env.killNow ? { killNow: env.killNow } : {}),
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
    // A cancellation thrown here is no failure of agent work: like any other throw it is a broken invariant.
    if (thrown instanceof HivewatchError && !isCancelled(thrown)) {
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
  return { result, answered, commit, durationMs: env.clock.now() - started };
}

/** Only a stop the engine asked for ends an attempt as cancelled; anything else is a bug of the runtime. */
function unaskedCancel(env: TaskEnv): AttemptResult {
  return {
    kind: 'failed',
    error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', {
      message: `runtime ${env.runtime.name} reported the attempt cancelled although nothing cancelled it`,
    }),
  };
}

/** What an answer carried, bounded like an attempt trace (attempt-trace.ts), for the record only. */
function carried(env: TaskEnv, attempt: number, answer: AttemptResult): { output?: string; error?: HivewatchError } | null {
  if (answer.kind === 'succeeded') return { output: keepHead(redactSecrets(answer.output, env.agent), JOURNAL_OUTPUT_CHARS) };
  if (answer.kind === 'failed') {
    const correlation = { project: env.project, flow: env.flow, run: env.runId, step: env.step, task: env.taskId, attempt };
    return { error: answer.error.withCorrelation(correlation, env.clock.now()) };
  }
  return null;
}

/** Rule 12: a result of an older epoch changes nothing; what it carried stays on the record. */
function journalStale(env: TaskEnv, ref: Ref, attempt: number, epoch: number, answer: AttemptResult): void {
  const what = carried(env, attempt, answer);
  if (what === null || answer.kind === 'cancelled') return;
  env.emit({
    type: 'receiptIgnoredStale',
    ...ref,
    attempt,
    epoch,
    currentEpoch: env.epoch(),
    outcome: answer.kind,
    ...(what.output !== undefined ? { output: what.output } : {}),
    ...(what.error !== undefined ? { error: what.error.toEnvelope() } : {}),
  });
}

function journalCancelledBySibling(env: TaskEnv, ref: Ref, attempt: number, durationMs: number, answer: AttemptResult): void {
  const what = carried(env, attempt, answer);
  const reported: BodyOf<'attemptCancelled'>['reported'] =
    what === null
      ? undefined
      : what.error
        ? { outcome: 'failed', error: what.error.toEnvelope() }
        : { outcome: 'succeeded', ...(what.output !== undefined ? { output: what.output } : {}) };
  env.emit({ type: 'attemptCancelled', ...ref, attempt, durationMs, by: 'sibling', ...(reported ? { reported } : {}) });
}

/**
 * The task's last failure: its own error, or POLICY_RETRY_LIMIT_EXCEEDED caused by it (rule 16).
 * The attempt's end is journaled now, with the lower siblings it waits for; its errors are the
 * step's to journal (`judge`), once no lower sibling can cancel the task, and the occurrences get
 * their seqs then.
 */
function lastFailure(
  env: TaskEnv,
  ref: Ref,
  last: { attempt: number; error: HivewatchError; exhausted: boolean; failed: BodyOf<'attemptFailed'>; durationMs: number },
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

/** Journals the computed delay before sleeping (rule 2), then sleeps; false when a cancel ended the sleep. */
async function backoff(
  env: TaskEnv,
  ref: Ref,
  attempt: number,
  decision: { delayMs: number; strategy: string; reason?: string; usageLimit?: UsageLimitWait },
): Promise<boolean> {
  env.emit({
    type: 'retryScheduled',
    ...ref,
    attempt,
    delayMs: decision.delayMs,
    strategy: decision.strategy,
    nextAttemptAt: env.clock.now() + decision.delayMs,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.usageLimit === undefined ? {} : { usageLimit: decision.usageLimit }),
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
      if (interrupted instanceof CancelledError || env.signal.aborted) return false;
      throw interrupted;
    }
    env.emit({ type: 'backoffSkipped', ...ref, attempt, commandId: sleep.signal.reason.commandId });
  } finally {
    release();
    env.signal.removeEventListener('abort', onAbort);
  }
  return true;
}
