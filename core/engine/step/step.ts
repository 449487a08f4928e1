import { CancelledError } from '../../base/errors/hivewatch-error.js';
import type { RetryPolicy } from '../../base/errors/retry.js';
import type { AgentSpec } from '../../flow/plan/plan.js';
import { sessionTitle } from '../../flow/check/specs.js';
import type { RuntimeRegistry } from '../../runtimes/runtime.js';
import type { Clock } from '../../base/clock.js';
import type { HivewatchEventBody } from '../../base/events.js';
import { analyzeFailure, type Frame } from '../interpret/frames.js';
import type { SessionCall } from '../interpret/interpreter.js';
import type { Limiter } from '../task/limiter.js';
import { LiveJudgment } from './live-judgment.js';
import { taskIdOf } from './resume.js';
import { placesFeedback, promptWithFeedback } from './prompt.js';
import { executeTask, type TaskResult } from '../task/task-executor.js';
import type { TaskWork } from '../task/task-work.js';

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
  /** A task's agent work, or null when its session runs without a workspace. */
  workFor: (taskId: string, ordinal: number) => TaskWork | null;
  /** Replaces the flow's secrets in a text (what the journal boundary does), before a name cuts it. */
  redact: (text: string) => string;
}

interface LiveTask {
  pending: PendingTask;
  ordinal: number;
  taskId: string;
  frames: readonly Frame[];
  agent: AgentSpec;
  retry: RetryPolicy;
  controller: AbortController;
  work: TaskWork | null;
}

/**
 * A task's name: its prompt filled in with the values its attempts run with, which are known
 * when its step starts (a step's writes are visible only once it commits). A lookup that throws
 * leaves the written name: the attempt renders the prompt again and fails there, as a failure of
 * the task, never of its name.
 */
function taskName(call: SessionCall, redact: (text: string) => string): string {
  try {
    return sessionTitle(call.spec.prompt, call.spec.ordinal, call.lookup, redact);
  } catch {
    return call.spec.name;
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
      frames: pending.call.frames,
      agent,
      retry: env.retryPolicyFor(pending.call, agent),
      controller: new AbortController(),
      work: env.workFor(taskId, pending.call.spec.ordinal),
    };
  });
  const names = tasks.map((t) => taskName(t.pending.call, env.redact));
  env.emit({ type: 'stepStarted', step, frontier: tasks.map((t, i) => ({ ordinal: t.ordinal, taskId: t.taskId, name: names[i] as string })) });
  tasks.forEach((t, i) => {
    const name = names[i] as string;
    const written = t.pending.call.spec.name;
    env.emit({
      type: 'taskStarted',
      step,
      ordinal: t.ordinal,
      taskId: t.taskId,
      name,
      ...(name !== written ? { template: written } : {}),
      agent: t.agent.name,
      maxAttempts: Math.max(1, t.retry.retries + 1),
    });
  });
  const onRunAbort = (): void => tasks.forEach((t) => t.controller.abort(env.runSignal.reason));
  env.runSignal.addEventListener('abort', onRunAbort, { once: true });

  const judgment = new LiveJudgment(tasks);
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
      judgment.settled(index, { kind: 'cancelled', attempts: 0 });
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
        caught: (error) => analyzeFailure(t.frames, error.escalates).kind === 'caught',
        awaiting: () => judgment.awaiting(index),
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
    judgment.settled(index, result);
  };
  await Promise.all(tasks.map(runOne));
  env.runSignal.removeEventListener('abort', onRunAbort);
  if (env.runSignal.aborted) return { kind: 'cancelled', results };
  return { kind: 'settled', results: results as TaskResult[] };
}
