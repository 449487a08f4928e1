import { CancelledError, type HivewatchError } from '../base/errors/hivewatch-error.js';
import type { RetryPolicy } from '../base/errors/retry.js';
import type { AgentSpec } from '../flow/plan.js';
import type { RuntimeRegistry } from '../runtimes/runtime.js';
import type { Clock } from '../base/clock.js';
import type { HivewatchEventBody } from '../base/events.js';
import { analyzeFailure, isInside, type Frame, type ParallelState } from './frames.js';
import { SIBLING_FAILED, type SessionCall } from './interpreter.js';
import type { Limiter } from './limiter.js';
import { cancelledBySibling, resolveStep, type SettledTask } from './resolve.js';
import { taskIdOf } from './resume.js';
import { placesFeedback, promptWithFeedback } from './prompt.js';
import { executeTask, type TaskResult } from './task-executor.js';
import type { TaskWork } from './task-work.js';

/** A session a thread is parked on, waiting for the step that runs it. */
export interface PendingTask {
  call: SessionCall;
  resolve: (output: string) => void;
  reject: (error: unknown) => void;
}

export type StepExecution =
  /** Every task ended; `results` follow the frontier (ascending ordinal). */
  | { kind: 'settled'; results: TaskResult[] }
  /** The run was cancelled (rule 11); `results` holds what each task ended with, where it ended. */
  | { kind: 'cancelled'; results: (TaskResult | undefined)[] };

export interface StepEnv {
  step: number;
  /** Ascending ordinal. */
  frontier: readonly PendingTask[];
  runId: string;
  flow: string;
  project: string | null;
  clock: Clock;
  limiter: Limiter;
  sharedLimiter: Limiter | undefined;
  runSignal: AbortSignal;
  /** Aborted by a forced cancel (F8): in-flight subprocesses get SIGKILL at once. */
  killNow: AbortSignal;
  epoch: () => number;
  /** Journals an event; returns its seq. */
  emit: (body: HivewatchEventBody) => number;
  agentFor: (call: SessionCall) => AgentSpec;
  retryPolicyFor: (call: SessionCall, agent: AgentSpec) => RetryPolicy;
  registry: RuntimeRegistry;
  backoffs: Map<string, (commandId: string) => void>;
  flush: () => Promise<void>;
  /** A task's agent work (issue #10), or null when its session runs without a workspace. */
  workFor: (taskId: string, ordinal: number) => TaskWork | null;
}

interface LiveTask {
  pending: PendingTask;
  ordinal: number;
  taskId: string;
  agent: AgentSpec;
  retry: RetryPolicy;
  controller: AbortController;
  work: TaskWork | null;
}

/**
 * Fail-fast while the step runs (rule 6 as the issue #8 made it normative): a failure at ordinal
 * k cancels the running tasks above k inside the parallels it kills; tasks below k run to their
 * end. An ordinary failure cancels at once: whatever it cancels, any lower-ordinal failure that
 * also kills its parallel would cancel too, so the outcome cannot depend on timing. A system
 * error may kill more (it escapes continue / ignore parallels), so it acts only once every task
 * below it has ended, when `resolveStep` over that prefix is final.
 *
 * It also journals each task's last failure (F6) as soon as the task can be judged: once every
 * lower task of the step that shares a parallel with it has settled (only those can cancel it),
 * so the Errors screen stays live, and a failure that the step will count as cancelled is never
 * journaled as an error, whichever subprocess finished first.
 */
class LiveFailFast {
  private readonly results: (TaskResult | undefined)[];
  private prefix = 0;
  /** For each task, the lower tasks that share a parallel with it: the ones that can cancel it. */
  private readonly judges: number[][];
  /** For each task, the higher tasks it is a judge of. */
  private readonly judgeOf: number[][];
  /** For each task, how many of its judges have not settled; -1 once it was judged. */
  private readonly waiting: number[];

  constructor(private readonly tasks: readonly LiveTask[]) {
    this.results = tasks.map(() => undefined);
    const parallels = tasks.map((t) => parallelsOf(t.pending.call.frames));
    this.judges = tasks.map((_, k) => tasks.flatMap((__, j) => (j < k && sharesParallel(parallels[j] as Set<ParallelState>, parallels[k] as Set<ParallelState>) ? [j] : [])));
    this.waiting = this.judges.map((judges) => judges.length);
    this.judgeOf = tasks.map(() => []);
    this.judges.forEach((judges, k) => judges.forEach((j) => this.judgeOf[j]?.push(k)));
  }

  settled(index: number, result: TaskResult): void {
    this.results[index] = result;
    const task = this.tasks[index] as LiveTask;
    if (result.kind === 'failed' && !result.error.escalates) this.kill(task, result.error);
    while (this.prefix < this.tasks.length && this.results[this.prefix] !== undefined) this.prefix++;
    if (this.results.slice(0, this.prefix).some((r) => r?.kind === 'failed' && r.error.escalates)) {
      resolveStep(this.settledTasks(range(this.prefix))).outcomes.forEach((outcome, i) => {
        if (outcome.kind === 'failed') this.kill(this.tasks[i] as LiveTask, outcome.error);
      });
    }
    for (const k of this.judgeOf[index] as number[]) this.waiting[k] = (this.waiting[k] as number) - 1;
    this.journalJudged();
  }

  /** Journals, in ordinal order, the last failures of the tasks that can now be judged. */
  private journalJudged(): void {
    this.tasks.forEach((_, k) => {
      const result = this.results[k];
      if (result === undefined || this.waiting[k] !== 0) return;
      this.waiting[k] = -1;
      if (result.kind !== 'failed' || !result.journalEnd) return;
      result.journalEnd(cancelledBySibling(this.settledTasks([...(this.judges[k] as number[]), k])));
    });
  }

  private settledTasks(indices: readonly number[]): SettledTask[] {
    return indices.map((i) => {
      const t = this.tasks[i] as LiveTask;
      return { ordinal: t.ordinal, frames: t.pending.call.frames, result: this.results[i] as TaskResult };
    });
  }

  private kill(failed: LiveTask, error: HivewatchError): void {
    const killed: ParallelState[] = analyzeFailure(failed.pending.call.frames, error.escalates).killed;
    for (const parallel of killed) {
      for (const other of this.tasks) {
        if (other.ordinal > failed.ordinal && isInside(other.pending.call.frames, parallel)) {
          other.controller.abort(new CancelledError(SIBLING_FAILED));
        }
      }
    }
  }
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function parallelsOf(frames: readonly Frame[]): Set<ParallelState> {
  return new Set(frames.flatMap((f) => (f.kind === 'parallel' ? [f.state] : [])));
}

function sharesParallel(a: ReadonlySet<ParallelState>, b: ReadonlySet<ParallelState>): boolean {
  for (const p of a) if (b.has(p)) return true;
  return false;
}

/** Runs one step's tasks to their end; journals stepStarted, taskStarted and the attempts, nothing after. */
export async function executeStep(env: StepEnv): Promise<StepExecution> {
  const { step, frontier } = env;
  // A step's predecessors are durable before it starts (crash safety of the journal).
  await env.flush();
  if (env.runSignal.aborted) return { kind: 'cancelled', results: frontier.map(() => undefined) };
  const tasks: LiveTask[] = frontier.map((pending) => {
    const agent = env.agentFor(pending.call);
    const taskId = taskIdOf(step, pending.call.spec.ordinal);
    return {
      pending,
      ordinal: pending.call.spec.ordinal,
      taskId,
      agent,
      retry: env.retryPolicyFor(pending.call, agent),
      controller: new AbortController(),
      work: env.workFor(taskId, pending.call.spec.ordinal),
    };
  });
  env.emit({ type: 'stepStarted', step, frontier: tasks.map((t) => ({ ordinal: t.ordinal, taskId: t.taskId, name: t.pending.call.spec.name })) });
  for (const t of tasks) {
    env.emit({
      type: 'taskStarted',
      step,
      ordinal: t.ordinal,
      taskId: t.taskId,
      name: t.pending.call.spec.name,
      agent: t.agent.name,
      maxAttempts: Math.max(1, t.retry.retries + 1),
    });
  }
  const onRunAbort = (): void => tasks.forEach((t) => t.controller.abort(env.runSignal.reason));
  env.runSignal.addEventListener('abort', onRunAbort, { once: true });

  const failFast = new LiveFailFast(tasks);
  const results: (TaskResult | undefined)[] = tasks.map(() => undefined);
  const runOne = async (t: LiveTask, index: number): Promise<void> => {
    let releases: (() => void)[] = [];
    let result: TaskResult;
    try {
      releases.push(await env.limiter.acquire(t.controller.signal));
      if (env.sharedLimiter) releases.push(await env.sharedLimiter.acquire(t.controller.signal));
    } catch (error) {
      releases.forEach((release) => release());
      releases = [];
      if (!(error instanceof CancelledError)) throw error;
      results[index] = { kind: 'cancelled', attempts: 0 };
      failFast.settled(index, { kind: 'cancelled', attempts: 0 });
      return;
    }
    try {
      result = await executeTask({
        runId: env.runId,
        flow: env.flow,
        project: env.project,
        step,
        ordinal: t.ordinal,
        taskId: t.taskId,
        spec: t.pending.call.spec,
        agent: t.agent,
        runtime: env.registry.forAgent(t.agent),
        retry: t.retry,
        prompt: (feedback) => promptWithFeedback(t.pending.call, feedback),
        work: t.work,
        givesFeedback: t.work !== null || placesFeedback(t.pending.call.spec),
        context: () => Object.fromEntries(t.pending.call.spec.context.map((name) => [name, t.pending.call.lookup([name])])),
        clock: env.clock,
        signal: t.controller.signal,
        killNow: env.killNow,
        epoch: env.epoch,
        caught: (error) => analyzeFailure(t.pending.call.frames, error.escalates).kind === 'caught',
        emit: env.emit,
        flush: env.flush,
        onBackoff: (skip) => {
          env.backoffs.set(t.taskId, skip);
          return () => env.backoffs.delete(t.taskId);
        },
      });
    } finally {
      releases.forEach((release) => release());
    }
    results[index] = result;
    failFast.settled(index, result);
  };
  await Promise.all(tasks.map(runOne));
  env.runSignal.removeEventListener('abort', onRunAbort);
  if (env.runSignal.aborted) return { kind: 'cancelled', results };
  return { kind: 'settled', results: results as TaskResult[] };
}
