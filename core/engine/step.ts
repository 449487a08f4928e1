import { CancelledError, HivewatchError } from '../errors/hivewatch-error.js';
import type { AgentSpec } from '../flow/plan.js';
import { renderTemplate } from '../flow/template.js';
import type { RuntimeRegistry } from '../runtimes/runtime.js';
import type { StagedWrite } from './channels.js';
import type { Clock } from './clock.js';
import type { HivewatchEventBody } from './events.js';
import { analyzeFailure, insideDeadParallel, isInside } from './frames.js';
import { FlowFailure, type SessionCall } from './interpreter.js';
import type { Limiter } from './limiter.js';
import { taskIdOf } from './resume.js';
import { executeTask, type TaskResult } from './task-executor.js';

/** A session a thread is parked on, waiting for the step that runs it. */
export interface PendingTask {
  call: SessionCall;
  resolve: (output: string) => void;
  reject: (error: unknown) => void;
}

export type StepOutcome =
  /** Every failure is caught by the flow: commit `writes`, then `deliver` outcomes to the threads. */
  | { kind: 'committable'; writes: StagedWrite[]; deliver: () => void }
  /** An uncaught task failure: no commit, the run fails with the earliest ordinal's error (rules 5, 6). */
  | { kind: 'aborted'; error: HivewatchError }
  | { kind: 'cancelled' }
  | { kind: 'corrupt'; error: HivewatchError };

export interface StepEnv {
  step: number;
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
  registry: RuntimeRegistry;
  backoffs: Map<string, (commandId: string) => void>;
  flush: () => Promise<void>;
}

function cancellationError(env: StepEnv, taskId: string, reason: string): HivewatchError {
  return new HivewatchError('SYSTEM_CANCELLED', {
    message: reason,
    timestamp: env.clock.now(),
    correlation: { project: env.project, flow: env.flow, run: env.runId, step: env.step, task: taskId },
  });
}

export async function executeStep(env: StepEnv): Promise<StepOutcome> {
  const { step, frontier } = env;
  // A step's predecessors are durable before it starts (crash safety of the journal).
  await env.flush();
  if (env.runSignal.aborted) return { kind: 'cancelled' };
  const tasks = frontier.map((pending) => ({
    pending,
    ordinal: pending.call.spec.ordinal,
    taskId: taskIdOf(step, pending.call.spec.ordinal),
    agent: env.agentFor(pending.call),
    controller: new AbortController(),
    // The handlers around a task are static: who catches its failure is known before it runs.
    reach: analyzeFailure(pending.call.frames),
  }));
  env.emit({ type: 'stepStarted', step, frontier: tasks.map((t) => ({ ordinal: t.ordinal, taskId: t.taskId, name: t.pending.call.spec.name })) });
  for (const t of tasks) {
    env.emit({
      type: 'taskStarted',
      step,
      ordinal: t.ordinal,
      taskId: t.taskId,
      name: t.pending.call.spec.name,
      agent: t.agent.name,
      maxAttempts: Math.max(1, t.pending.call.spec.retry.retries + 1),
    });
  }
  const onRunAbort = (): void => tasks.forEach((t) => t.controller.abort(env.runSignal.reason));
  env.runSignal.addEventListener('abort', onRunAbort, { once: true });

  const results = new Map<number, TaskResult>();
  const runOne = async (t: (typeof tasks)[number]): Promise<void> => {
    let releases: (() => void)[] = [];
    try {
      releases.push(await env.limiter.acquire(t.controller.signal));
      if (env.sharedLimiter) releases.push(await env.sharedLimiter.acquire(t.controller.signal));
    } catch (error) {
      releases.forEach((release) => release());
      releases = [];
      if (!(error instanceof CancelledError)) throw error;
      results.set(t.ordinal, { kind: 'cancelled', attempts: 0 });
      return;
    }
    try {
      const result = await executeTask({
        runId: env.runId,
        flow: env.flow,
        project: env.project,
        step,
        ordinal: t.ordinal,
        taskId: t.taskId,
        spec: t.pending.call.spec,
        agent: t.agent,
        runtime: env.registry.forAgent(t.agent),
        retry: t.pending.call.spec.retry,
        prompt: () => {
          const template = t.pending.call.spec.prompt;
          return template === null ? '' : renderTemplate(template, t.pending.call.lookup);
        },
        context: () => Object.fromEntries(t.pending.call.spec.context.map((name) => [name, t.pending.call.lookup([name])])),
        clock: env.clock,
        signal: t.controller.signal,
        epoch: env.epoch,
        caught: t.reach.caught,
        emit: env.emit,
        onBackoff: (skip) => {
          env.backoffs.set(t.taskId, skip);
          return () => env.backoffs.delete(t.taskId);
        },
      });
      results.set(t.ordinal, result);
      if (result.kind === 'failed') {
        // Fail-fast: the failure escapes these parallels, so their other branches stop now.
        for (const parallel of t.reach.killed) {
          parallel.dead = true;
          for (const other of tasks) {
            if (other !== t && isInside(other.pending.call.frames, parallel)) {
              other.controller.abort(new CancelledError('a sibling branch failed (fail-fast)'));
            }
          }
        }
      }
    } finally {
      releases.forEach((release) => release());
    }
  };
  await Promise.all(tasks.map(runOne));
  env.runSignal.removeEventListener('abort', onRunAbort);

  if (env.runSignal.aborted) {
    // Rule 11: every frontier task fails with the cancellation, in ascending ordinal; no commit.
    const reason = env.runSignal.reason instanceof Error ? env.runSignal.reason.message : 'cancelled';
    for (const t of tasks) {
      const result = results.get(t.ordinal);
      env.emit({
        type: 'taskFailed',
        step,
        ordinal: t.ordinal,
        taskId: t.taskId,
        attempts: result?.attempts ?? 0,
        error: cancellationError(env, t.taskId, reason).toEnvelope(),
        cancelled: true,
      });
    }
    return { kind: 'cancelled' };
  }

  const uncaught: { ordinal: number; error: HivewatchError }[] = [];
  const writes: StagedWrite[] = [];
  const answers: (() => void)[] = [];
  for (const t of tasks) {
    const result = results.get(t.ordinal) as TaskResult;
    const ref = { step, ordinal: t.ordinal, taskId: t.taskId, attempts: result.attempts };
    if (result.kind === 'succeeded') {
      env.emit({ type: 'taskSucceeded', ...ref, output: result.output });
      if (t.pending.call.targetKey !== null && !insideDeadParallel(t.pending.call.frames)) {
        writes.push({ key: t.pending.call.targetKey, value: result.output, ordinal: t.ordinal });
      }
      answers.push(() => t.pending.resolve(result.output));
    } else if (result.kind === 'failed') {
      env.emit({ type: 'taskFailed', ...ref, error: result.error.toEnvelope(), cancelled: false });
      if (!t.reach.caught) uncaught.push({ ordinal: t.ordinal, error: result.error });
      answers.push(() => t.pending.reject(new FlowFailure(result.error, t.ordinal)));
    } else {
      const reason = 'cancelled: a sibling branch failed (fail-fast)';
      env.emit({ type: 'taskFailed', ...ref, error: cancellationError(env, t.taskId, reason).toEnvelope(), cancelled: true });
      answers.push(() => t.pending.reject(new CancelledError(reason)));
    }
  }
  const first = uncaught.sort((a, b) => a.ordinal - b.ordinal)[0];
  if (first) return { kind: 'aborted', error: first.error };
  return { kind: 'committable', writes, deliver: () => answers.forEach((answer) => answer()) };
}
