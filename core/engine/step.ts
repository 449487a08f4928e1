import { CancelledError, type HivewatchError } from '../errors/hivewatch-error.js';
import type { RetryPolicy } from '../errors/retry.js';
import type { AgentSpec } from '../flow/plan.js';
import type { RuntimeRegistry } from '../runtimes/runtime.js';
import type { Clock } from './clock.js';
import type { HivewatchEventBody } from './events.js';
import { analyzeFailure, isInside, type ParallelState } from './frames.js';
import type { SessionCall } from './interpreter.js';
import type { Limiter } from './limiter.js';
import { resolveStep, type SettledTask } from './resolve.js';
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
  epoch: () => number;
  emit: (body: HivewatchEventBody) => void;
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

const SIBLING_FAILED = 'a sibling branch failed (fail-fast)';

/**
 * Fail-fast while the step runs (rule 6 as the issue #8 made it normative): a failure at ordinal
 * k cancels the running tasks above k inside the parallels it kills; tasks below k run to their
 * end. An ordinary failure cancels at once: whatever it cancels, any lower-ordinal failure that
 * also kills its parallel would cancel too, so the outcome cannot depend on timing. A system
 * error may kill more (it escapes continue / ignore parallels), so it acts only once every task
 * below it has ended, when `resolveStep` over that prefix is final.
 */
class LiveFailFast {
  private readonly results: (TaskResult | undefined)[];
  private prefix = 0;

  constructor(private readonly tasks: readonly LiveTask[]) {
    this.results = tasks.map(() => undefined);
  }

  settled(index: number, result: TaskResult): void {
    this.results[index] = result;
    const task = this.tasks[index] as LiveTask;
    if (result.kind === 'failed' && !result.error.escalates) this.kill(task, result.error);
    while (this.prefix < this.tasks.length && this.results[this.prefix] !== undefined) this.prefix++;
    if (this.results.slice(0, this.prefix).some((r) => r?.kind === 'failed' && r.error.escalates)) {
      const settledPrefix: SettledTask[] = this.tasks.slice(0, this.prefix).map((t, i) => ({
        ordinal: t.ordinal,
        frames: t.pending.call.frames,
        result: this.results[i] as TaskResult,
      }));
      resolveStep(settledPrefix).outcomes.forEach((outcome, i) => {
        if (outcome.kind === 'failed') this.kill(this.tasks[i] as LiveTask, outcome.error);
      });
    }
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
