import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { programOrder } from '../../flow/syntax/ast.js';
import type { HivewatchEventBody } from '../../base/events.js';
import { FailureChain } from '../interpret/failure-chain.js';
import { BranchCancelled, FlowFailure, SIBLING_FAILED } from '../interpret/thread-failures.js';
import { resumesThread, settledBeforeCancel, type SettledTask, type StepResolution } from './resolve.js';
import type { ResumePoint } from '../../base/resume-point.js';
import { taskIdOf } from './resume.js';
import type { PendingTask } from './step.js';
import type { TaskResult } from '../task/task-executor.js';
import type { LoggedWrite } from '../interpret/write-log.js';

/**
 * What a step leaves behind once it settled: its outcomes on the journal (in ordinal order, so
 * the journal says what the step decided whatever order the tasks finished in), the answers to
 * the threads parked on it, and the results of a replayed step for a resumed run.
 */

export interface StepRecordEnv {
  step: number;
  emit: (body: HivewatchEventBody) => void;
  cancellation: (taskId: string, reason: string) => HivewatchError;
}

const envelopeOfSettled = (
  result: TaskResult | undefined,
): { outcome: 'succeeded' } | { outcome: 'failed'; error: ReturnType<HivewatchError['toEnvelope']> } | null => {
  const settled = result ? settledBeforeCancel(result) : null;
  if (settled === null) return null;
  return settled.outcome === 'succeeded' ? settled : { outcome: 'failed', error: settled.error.toEnvelope() };
};

/** taskSucceeded / taskFailed for every task of a step that settled, in ascending ordinal. */
export function journalOutcomes(env: StepRecordEnv, tasks: readonly PendingTask[], results: readonly TaskResult[], resolution: StepResolution): void {
  tasks.forEach((task, index) => {
    const ordinal = task.call.spec.ordinal;
    const taskId = taskIdOf(env.step, ordinal);
    const ref = { step: env.step, ordinal, taskId, attempts: (results[index] as TaskResult).attempts };
    const outcome = resolution.outcomes[index];
    if (outcome?.kind === 'succeeded') {
      env.emit({ type: 'taskSucceeded', ...ref, output: outcome.output });
    } else if (outcome?.kind === 'failed') {
      env.emit({ type: 'taskFailed', ...ref, error: outcome.error.toEnvelope(), cancelled: false });
    } else {
      const settled = envelopeOfSettled(results[index]);
      const error = env.cancellation(taskId, SIBLING_FAILED).toEnvelope();
      env.emit({ type: 'taskFailed', ...ref, error, cancelled: true, ...(settled ? { settled } : {}) });
    }
  });
}

/** Rule 11: every frontier task fails with the run's cancellation, in ascending ordinal; what had finished stays on the record. */
export function journalRunCancelled(env: StepRecordEnv, tasks: readonly PendingTask[], results: readonly (TaskResult | undefined)[], reason: string): void {
  tasks.forEach((task, index) => {
    const ordinal = task.call.spec.ordinal;
    const taskId = taskIdOf(env.step, ordinal);
    const settled = envelopeOfSettled(results[index]);
    env.emit({
      type: 'taskFailed',
      step: env.step,
      ordinal,
      taskId,
      attempts: results[index]?.attempts ?? 0,
      error: env.cancellation(taskId, reason).toEnvelope(),
      cancelled: true,
      ...(settled ? { settled } : {}),
    });
  });
}

/**
 * Answers the threads parked on the step: successes are staged as writes (in ordinal order,
 * before any thread moves on) and resolved; failures travel up as FlowFailure; a thread inside
 * a parallel that died is cancelled, and unwinds through its `finally` blocks (F5, resolve.ts).
 */
export function deliver(
  tasks: readonly PendingTask[],
  settled: readonly SettledTask[],
  resolution: StepResolution,
  log: { stage(write: LoggedWrite): void },
): void {
  tasks.forEach((task, index) => {
    const outcome = resolution.outcomes[index];
    const { call } = task;
    if (outcome === undefined || !resumesThread(settled[index] as SettledTask, outcome, resolution.killed)) {
      task.reject(new BranchCancelled());
    } else if (outcome.kind === 'succeeded') {
      if (call.targetKey !== null) {
        log.stage({ key: call.targetKey, value: outcome.output, ordinal: call.spec.ordinal, thread: call.thread, pos: call.spec.pos, frames: call.frames });
      }
      task.resolve(outcome.output);
    } else if (outcome.kind === 'failed') {
      task.reject(new FlowFailure(outcome.chain, programOrder(call.spec.pos)));
    }
  });
}

/** The results of a step a resumed run replays from its source's journal, or the state-corruption error when the journal does not fit the flow. */
export function replayedResults(
  step: number,
  tasks: readonly PendingTask[],
  resume: ResumePoint,
): { ok: true; results: TaskResult[] } | { ok: false; error: HivewatchError } {
  const results: TaskResult[] = [];
  for (const task of tasks) {
    const taskId = taskIdOf(step, task.call.spec.ordinal);
    const outcome = resume.outcomes.get(taskId);
    const corrupt = (why: string): { ok: false; error: HivewatchError } => ({
      ok: false,
      error: new HivewatchError('SYSTEM_STATE_CORRUPTION', {
        message: `cannot resume: ${why}; was the flow changed since?`,
        context: { taskId, fromRunId: resume.fromRunId },
      }),
    });
    if (!outcome) return corrupt(`the journal of ${resume.fromRunId} has no outcome for task ${taskId}`);
    if (outcome.ok) {
      results.push({ kind: 'succeeded', output: outcome.output, attempts: 0 });
    } else if (outcome.cancelled) {
      results.push({ kind: 'cancelled', attempts: 0 });
    } else {
      try {
        const chain = FailureChain.fromEnvelope(outcome.error);
        results.push({ kind: 'failed', error: chain.error, chain, attempts: 0 });
      } catch (invalid) {
        return corrupt(
          `the journal of ${resume.fromRunId} holds an invalid error for task ${taskId} (${invalid instanceof Error ? invalid.message : String(invalid)})`,
        );
      }
    }
  }
  return { ok: true, results };
}
