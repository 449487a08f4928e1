import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Clock } from '../../base/clock.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { ResumePoint } from '../../base/resume-point.js';
import type { AgentSpec, SessionSpec } from '../../flow/plan/plan.js';
import type { FailureChain } from '../interpret/failure-chain.js';
import { resolveStep } from '../step/resolve.js';
import { executeStep, type PendingTask, type StepExecution } from '../step/step.js';
import { deliver, journalOutcomes, journalRunCancelled, replayedResults, type StepRecordEnv } from '../step/step-record.js';
import { retryPolicyFor } from '../task/agents.js';
import type { Limiter } from '../task/limiter.js';
import type { TaskResult } from '../task/task-executor.js';
import type { RunWork } from '../task/task-work.js';
import type { RunCancellation } from './run-cancellation.js';
import type { RunChannels } from './run-channels.js';
import { commitStep, settledInOrder } from './run-commit.js';
import type { RunConfig, RunResult } from './run-config.js';
import type { RunJournal } from './run-journal.js';
import type { RunThreads } from './run-threads.js';
import { mergeStepWork, type StepMerge } from './run-work.js';

/** Where a run's errors happened, as far as the run knows. */
interface RunCorrelation {
  project: string | null;
  flow: string;
  run: string;
  step: number | null;
}

/** What a step of a run needs of its run: the run's parts, and its two endings, which stay the run's. */
export interface RunStepEnv {
  config: RunConfig;
  runId: string;
  clock: Clock;
  limiter: Limiter;
  cancellation: RunCancellation;
  channels: RunChannels;
  journal: RunJournal;
  backoffs: Map<string, (commandId: string) => void>;
  /** The run's agent work once it is open (null before, and when no session needs one). */
  work: () => RunWork | null;
  agentOf: (spec: SessionSpec) => AgentSpec;
  correlation: () => RunCorrelation;
  fail: (failure: HivewatchError | FailureChain) => Promise<RunResult>;
  cancelled: () => Promise<RunResult>;
}

/**
 * One step of a run, live or replayed: run (or replay) its tasks, judge them in ordinal order, let
 * the threads move on, merge the tasks' work, commit. A replayed step journals nothing of its tasks
 * (the source journal has them) and commits exactly what the live step did.
 *
 * Determinism: after the tasks settled everything here is a function of their results in frontier
 * order (`settledInOrder`, `resolveStep`); the only wait before the commit is the threads moving
 * on and the merge, and the cancel check comes after both, so the commit and every outcome it
 * journals happen in one synchronous stretch, or not at all (rule 11).
 */
export class RunStep {
  constructor(private readonly env: RunStepEnv) {}

  /** One step; the run's result when the step ended the run, null when the run goes on. */
  async run(step: number, frontier: PendingTask[], threads: RunThreads, replayFrom: ResumePoint | null): Promise<RunResult | null> {
    const { env } = this;
    const live = replayFrom === null;
    const record = this.recordEnv(step);
    let execution: StepExecution;
    if (live) {
      execution = await this.execute(step, frontier);
    } else {
      const replayed = replayedResults(step, frontier, replayFrom);
      if (!replayed.ok) return env.fail(replayed.error);
      execution = { kind: 'settled', results: replayed.results };
    }
    if (execution.kind === 'cancelled') {
      journalRunCancelled(record, frontier, execution.results, env.cancellation.reason);
      return env.cancelled();
    }
    const { results } = execution;
    const settled = settledInOrder(frontier, results);
    const resolution = resolveStep(settled);
    if (resolution.unhandled) {
      if (live) journalOutcomes(record, frontier, results, resolution);
      return env.fail(resolution.unhandled.chain);
    }
    for (const parallel of resolution.killed) parallel.dead = true;
    deliver(frontier, settled, resolution, env.channels);
    await threads.settle();
    const merge = live ? await this.merge(step, frontier, results) : null;
    if (env.cancellation.requested && live) {
      // Rule 11: the step has not committed, so its tasks end cancelled; what they did stays on the record.
      journalRunCancelled(record, frontier, results, env.cancellation.reason);
      return env.cancelled();
    }
    if (live) journalOutcomes(record, frontier, results, resolution);
    // A merge conflict aborts the step like any commit failure: it needs a person.
    if (merge && !merge.ok) return env.fail(merge.error);
    const rejected = this.commit(step, live, merge);
    if (rejected) return env.fail(rejected);
    const raised = threads.takeRaised();
    if (live) {
      for (const { chain, caught } of raised) env.journal.emitError(chain, caught);
      await env.journal.flush();
    }
    return null;
  }

  /** Applies the writes made since the last commit; returns the error that rejects them all, or null. */
  commit(step: number, live: boolean, merge: StepMerge | null = null): HivewatchError | null {
    const { env } = this;
    const emit = live ? (body: HivewatchEventBody) => env.journal.emit(body) : null;
    const rejected = commitStep({ step, channels: env.channels, work: env.work(), emit, merge });
    return rejected === null ? null : rejected.withCorrelation({ ...env.correlation(), step }, env.clock.now());
  }

  private recordEnv(step: number): StepRecordEnv {
    const { env } = this;
    return {
      step,
      emit: (body) => env.journal.emit(body),
      cancellation: (taskId, reason) =>
        new HivewatchError('SYSTEM_CANCELLED', {
          message: reason,
          timestamp: env.clock.now(),
          correlation: { project: env.config.project ?? null, flow: env.config.plan.file, run: env.runId, step, task: taskId },
        }),
    };
  }

  private execute(step: number, frontier: PendingTask[]): Promise<StepExecution> {
    const { env } = this;
    return executeStep({
      step,
      frontier,
      runId: env.runId,
      flow: env.config.plan.file,
      project: env.config.project ?? null,
      clock: env.clock,
      limiter: env.limiter,
      sharedLimiter: env.config.sharedLimiter,
      runSignal: env.cancellation.stop,
      killNow: env.cancellation.killNow,
      epoch: () => env.cancellation.epoch,
      emit: (body) => env.journal.emit(body),
      agentFor: (call) => env.agentOf(call.spec),
      retryPolicyFor: (call, agent) => retryPolicyFor(call.spec, agent),
      registry: env.config.registry,
      backoffs: env.backoffs,
      flush: () => env.journal.flush(),
      workFor: (taskId, ordinal) => env.work()?.forTask(taskId, ordinal) ?? null,
      redact: (text) => env.journal.redact(text),
    });
  }

  /** The step's task commits merged into the run's branch, in ordinal order (W5). */
  private async merge(step: number, frontier: readonly PendingTask[], results: readonly (TaskResult | undefined)[]): Promise<StepMerge | null> {
    const { env } = this;
    const merge = await mergeStepWork(env.work(), step, frontier, results);
    return merge?.ok === false ? { ok: false, error: merge.error.withCorrelation({ ...env.correlation(), step }, env.clock.now()) } : merge;
  }
}
