import { randomUUID } from 'node:crypto';
import { CancelledError, HivewatchError, toHivewatchError } from '../base/errors/hivewatch-error.js';
import type { ErrorEnvelope } from '../base/errors/envelope.js';
import { flowDigest } from '../flow/plan/digest.js';
import { flowSteps } from '../flow/plan/step-count.js';
import type { AgentSpec, SessionSpec } from '../flow/plan/plan.js';
import { Redactor } from '../runtimes/secrets/secrets.js';
import { resolveAgent, retryPolicyFor } from './agents.js';
import { RealClock, type Clock } from '../base/clock.js';
import type { HivewatchEvent, HivewatchEventBody, RunStatus } from '../base/events.js';
import { FailureChain } from './failure-chain.js';
import { FlowFailure } from './interpreter.js';
import { createLimiter, type Limiter } from './limiter.js';
import { problemBeforeStepZero } from './preflight.js';
import { resolveStep } from './resolve.js';
import type { ResumePoint } from '../base/resume-point.js';
import { ENGINE_SEMANTICS, resumeProblem } from './resume.js';
import { RunCancellation } from './run-cancellation.js';
import { RunChannels } from './run-channels.js';
import { commitStep, settledInOrder } from './run-commit.js';
import { newRunId } from '../base/ids.js';
import { flowNameOf, type RunConfig, type RunResult } from './run-config.js';
import { RunThreads } from './run-threads.js';
import { mergeStepWork, openRunWork, type StepMerge } from './run-work.js';
import { executeStep, type PendingTask, type StepExecution } from './step.js';
import { deliver, journalOutcomes, journalRunCancelled, replayedResults, type StepRecordEnv } from './step-record.js';
import type { TaskResult } from './task-executor.js';
import type { RunWork } from './task-work.js';

export type { RunConfig, RunResult } from './run-config.js';

/**
 * One execution of a flow: the superstep loop. Frontier → run tasks → judge them in ordinal
 * order → let the threads move on → commit the step's writes atomically → checkpoint, until the
 * program ends, fails, is cancelled or runs out of steps. Between the tasks settling and the
 * commit the only wait is the threads moving on; the commit itself, with the outcomes it
 * journals, happens in one synchronous stretch after checking for a cancel, so a cancel that
 * lands before it leaves no commit-scoped event (rule 11).
 *
 * The roles live in files of their own: cancellation in run-cancellation.ts, the commit and the
 * ordinal order it depends on in run-commit.ts, the threads in run-threads.ts, the channels in
 * run-channels.ts; this file is the loop and the run's endings.
 */
export class FlowRun {
  readonly runId: string;
  private readonly clock: Clock;
  private readonly maxSteps: number;
  private readonly limiter: Limiter;
  private seq = 0;
  private statusValue: RunStatus = 'queued';
  private readonly cancellation = new RunCancellation();
  private readonly channels: RunChannels;
  private threads: RunThreads | null = null;
  private stepNumber = 0;
  private readonly backoffs = new Map<string, (commandId: string) => void>();
  private readonly listeners = new Set<(event: HivewatchEvent) => void>();
  private work: RunWork | null = null;
  private readonly secrets: Redactor;

  constructor(private readonly config: RunConfig) {
    this.secrets = Redactor.ofAgents(config.plan.agents.values());
    this.runId = config.runId ?? newRunId();
    this.clock = config.clock ?? new RealClock();
    this.maxSteps = config.maxSteps ?? 100;
    this.limiter = createLimiter(config.concurrency ?? 4);
    this.channels = new RunChannels(config.reducers ?? {}, config.resume?.throughStep ?? 0);
    const problem = config.resume ? resumeProblem(config.resume, config.plan.program.source) : null;
    if (problem !== null) throw new HivewatchError('USER_INVALID_CONFIG', { message: problem, origin: 'user' });
  }

  get status(): RunStatus {
    return this.statusValue;
  }

  get epoch(): number {
    return this.cancellation.epoch;
  }

  /** Events as they are appended, for live views; the sink remains the record. */
  onEvent(listener: (event: HivewatchEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rules 9–11 and 18 (run-cancellation.ts): a run that ended takes no cancel. */
  cancel(options: { commandId?: string; reason?: string } = {}): { commandId: string; accepted: boolean } {
    const commandId = options.commandId ?? `cmd_${randomUUID().slice(0, 8)}`;
    const reason = options.reason ?? 'cancelled by operator';
    const terminal = this.statusValue === 'completed' || this.statusValue === 'failed' || this.statusValue === 'cancelled';
    if (terminal) return { commandId, accepted: false };
    const accepted = this.cancellation.request(
      { commandId, reason },
      (body) => this.emit(body),
      () => (this.statusValue = 'cancelling'),
    );
    return { commandId, accepted };
  }

  /** An operator's "retry now" for a task waiting in backoff. False when it is not waiting. */
  skipBackoff(taskId: string, commandId = `cmd_${randomUUID().slice(0, 8)}`): boolean {
    const skip = this.backoffs.get(taskId);
    if (!skip) return false;
    skip(commandId);
    return true;
  }

  /** Journals an event (the boundary no secret of the flow's agents crosses) and returns its seq for failure chains. */
  private emit(body: HivewatchEventBody): number {
    const event = { runId: this.runId, seq: ++this.seq, ts: this.clock.now(), ...this.secrets.deep(body) } as HivewatchEvent;
    this.config.sink.append(event);
    for (const listener of this.listeners) listener(event);
    return event.seq;
  }

  async start(): Promise<RunResult> {
    if (this.statusValue !== 'queued') throw new Error(`run ${this.runId} was already started`);
    this.statusValue = 'running';
    const { plan } = this.config;
    const resume = this.config.resume ?? null;
    this.emit({
      type: 'runStarted',
      flow: plan.file,
      flowName: flowNameOf(plan.file),
      options: {
        maxSteps: this.maxSteps,
        concurrency: this.config.concurrency ?? 4,
        clock: this.clock.kind,
        defaultAgent: this.config.defaultAgent ?? null,
      },
      resumedFrom: resume?.fromRunId ?? null,
      retryOf: this.config.retryOf ?? null,
      resumeStep: resume?.throughStep ?? 0,
      semantics: ENGINE_SEMANTICS,
      flowDigest: flowDigest(plan.program.source),
      flowText: plan.program.source,
      flowSteps: flowSteps(plan.program),
    });
    try {
      const problem = problemBeforeStepZero(plan, this.config.defaultAgent ?? null);
      if (problem) return await this.fail(problem);
      const opened = await openRunWork(
        {
          runId: this.runId,
          plan,
          registry: this.config.registry,
          workspace: this.config.workspace ?? null,
          agentOf: (spec) => this.agentOfSpec(spec),
          emit: (body) => this.emit(body),
        },
        resume,
      );
      if (!opened.ok) return await this.fail(opened.error);
      this.work = opened.work;
      return await this.loop(resume);
    } catch (unexpected) {
      return await this.fail(toHivewatchError(unexpected));
    } finally {
      // Worktrees go with the run; the run branch stays. What a crash leaves, start-up removes.
      await this.work?.close().catch(() => undefined);
    }
  }

  private agentOfSpec(spec: SessionSpec): AgentSpec {
    return resolveAgent(this.config.plan, spec.agent ?? this.config.defaultAgent ?? 'fake') as AgentSpec;
  }

  private async loop(resume: ResumePoint | null): Promise<RunResult> {
    const threads = new RunThreads(
      this.config.plan.program.body,
      this.channels,
      (ordinal) => {
        const spec = this.config.plan.sessions[ordinal];
        if (!spec) throw new Error(`no session with ordinal ${ordinal}`);
        return spec;
      },
      (error) => error.withCorrelation(this.correlation(), this.clock.now()),
    );
    this.threads = threads;
    await threads.settle();
    for (;;) {
      if (threads.root.settled) return this.finish(threads.root.error);
      if (this.cancellation.requested) return this.cancelled();
      const frontier = threads.takeFrontier();
      if (frontier.length === 0) {
        return this.fail(new HivewatchError('SYSTEM_INVARIANT_VIOLATED', { message: 'the program is blocked with no ready session' }));
      }
      const step = this.stepNumber + 1;
      if (step > this.maxSteps) {
        return this.fail(
          new HivewatchError('POLICY_MAX_STEPS_EXCEEDED', {
            message: `the run reached max-steps (${this.maxSteps}) with ${frontier.length} session(s) still ready`,
            origin: 'policy',
            context: { maxSteps: this.maxSteps },
          }),
        );
      }
      this.stepNumber = step;
      const ended = await this.step(step, frontier, threads, resume === null || step > resume.throughStep ? null : resume);
      if (ended !== null) return ended;
    }
  }

  /** One step: run (or replay) its tasks, judge them, let the threads move on, commit. A result when the run ended. */
  private async step(step: number, frontier: PendingTask[], threads: RunThreads, replayFrom: ResumePoint | null): Promise<RunResult | null> {
    const live = replayFrom === null;
    const record = this.recordEnv(step);
    let execution: StepExecution;
    if (live) {
      execution = await this.runStep(step, frontier);
    } else {
      const replayed = replayedResults(step, frontier, replayFrom);
      if (!replayed.ok) return this.fail(replayed.error);
      execution = { kind: 'settled', results: replayed.results };
    }
    if (execution.kind === 'cancelled') {
      journalRunCancelled(record, frontier, execution.results, this.cancellation.reason);
      return this.cancelled();
    }
    const { results } = execution;
    const settled = settledInOrder(frontier, results);
    const resolution = resolveStep(settled);
    if (resolution.unhandled) {
      if (live) journalOutcomes(record, frontier, results, resolution);
      return this.fail(resolution.unhandled.chain);
    }
    for (const parallel of resolution.killed) parallel.dead = true;
    deliver(frontier, settled, resolution, this.channels);
    await threads.settle();
    const merge = live ? await this.mergeStep(step, frontier, results) : null;
    if (this.cancellation.requested && live) {
      // Rule 11: the step has not committed, so its tasks end cancelled; what they did stays on the record.
      journalRunCancelled(record, frontier, results, this.cancellation.reason);
      return this.cancelled();
    }
    if (live) journalOutcomes(record, frontier, results, resolution);
    // A merge conflict aborts the step like any commit failure: it needs a person.
    if (merge && !merge.ok) return this.fail(merge.error);
    const rejected = this.commit(step, live, merge);
    if (rejected) return this.fail(rejected);
    const raised = threads.takeRaised();
    if (live) {
      for (const { chain, caught } of raised) this.emitError(chain, caught);
      await this.config.sink.flush();
    }
    return null;
  }

  private recordEnv(step: number): StepRecordEnv {
    return {
      step,
      emit: (body) => this.emit(body),
      cancellation: (taskId, reason) =>
        new HivewatchError('SYSTEM_CANCELLED', {
          message: reason,
          timestamp: this.clock.now(),
          correlation: { project: this.config.project ?? null, flow: this.config.plan.file, run: this.runId, step, task: taskId },
        }),
    };
  }

  /** Applies the writes made since the last commit; returns the error that rejects them all, or null. */
  private commit(step: number, live: boolean, merge: StepMerge | null = null): HivewatchError | null {
    const rejected = commitStep({ step, channels: this.channels, work: this.work, emit: live ? (body) => this.emit(body) : null, merge });
    return rejected === null ? null : rejected.withCorrelation({ ...this.correlation(), step }, this.clock.now());
  }

  private runStep(step: number, frontier: PendingTask[]): Promise<StepExecution> {
    return executeStep({
      step,
      frontier,
      runId: this.runId,
      flow: this.config.plan.file,
      project: this.config.project ?? null,
      clock: this.clock,
      limiter: this.limiter,
      sharedLimiter: this.config.sharedLimiter,
      runSignal: this.cancellation.stop,
      killNow: this.cancellation.killNow,
      epoch: () => this.cancellation.epoch,
      emit: (body) => this.emit(body),
      agentFor: (call) => this.agentOfSpec(call.spec),
      retryPolicyFor: (call, agent) => retryPolicyFor(call.spec, agent),
      registry: this.config.registry,
      backoffs: this.backoffs,
      flush: () => this.config.sink.flush(),
      workFor: (taskId, ordinal) => this.work?.forTask(taskId, ordinal) ?? null,
      redact: (text) => this.secrets.text(text),
    });
  }

  /** The step's task commits merged into the run's branch, in ordinal order (W5). */
  private async mergeStep(step: number, frontier: readonly PendingTask[], results: readonly (TaskResult | undefined)[]): Promise<StepMerge | null> {
    const merge = await mergeStepWork(this.work, step, frontier, results);
    return merge?.ok === false ? { ok: false, error: merge.error.withCorrelation({ ...this.correlation(), step }, this.clock.now()) } : merge;
  }

  private correlation(): { project: string | null; flow: string; run: string; step: number | null } {
    return { project: this.config.project ?? null, flow: this.config.plan.file, run: this.runId, step: this.stepNumber || null };
  }

  /** The errorOccurred of a chain's head (a throw, or a failure of the run itself); the head's occurrence gets its seq. */
  private emitError(chain: FailureChain, caught: boolean): void {
    const error = chain.envelope();
    chain.head.occurrence.seq = this.emit({ type: 'errorOccurred', error, caught, retrying: false, step: error.correlation.step, ordinal: null, taskId: null });
  }

  /** The throws of the current stretch, journaled with the run's end. */
  private journalRaised(): void {
    for (const { chain, caught } of this.threads?.takeRaised() ?? []) this.emitError(chain, caught);
  }

  private async finish(rootError: unknown): Promise<RunResult> {
    // The program ended; only writes it made since the last commit (a flow with no session) are left to commit.
    if (this.cancellation.requested && this.channels.uncommitted > 0) return this.cancelled();
    if (rootError instanceof CancelledError) return this.cancelled();
    // Writes of a program that never reached a session (`let x = "a"` alone) are committed in a
    // step of their own, so the journal has no stepFinished without its stepStarted.
    if (this.channels.uncommitted > 0 && this.stepNumber === 0) {
      this.stepNumber = 1;
      this.emit({ type: 'stepStarted', step: 1, frontier: [] });
    }
    const rejected = this.channels.uncommitted > 0 ? this.commit(this.stepNumber, true) : null;
    if (rejected) return this.fail(rejected);
    if (rootError instanceof FlowFailure) return this.fail(rootError.chain);
    if (rootError !== null) return this.fail(toHivewatchError(rootError));
    this.journalRaised();
    this.statusValue = 'completed';
    this.emit({ type: 'runCompleted', steps: this.stepNumber });
    return this.result('completed', null, await this.flushTerminal());
  }

  /**
   * Ends the run failed (rule 16): with a failure chain whose occurrences were journaled where
   * they happened (tasks, throws), or with an error the run itself raised (max steps, invalid
   * policy, missing agent, invariant, merge conflict, rejected commit), journaled here as a
   * one-link chain. `runFailed` carries the ending error with its causes nested, and the links.
   */
  private async fail(failure: HivewatchError | FailureChain): Promise<RunResult> {
    this.journalRaised();
    let chain: FailureChain;
    if (failure instanceof HivewatchError) {
      const located = failure.correlation.run === null ? failure.withCorrelation(this.correlation(), this.clock.now()) : failure;
      chain = FailureChain.of(located);
      this.emitError(chain, false);
    } else {
      chain = failure;
    }
    this.statusValue = 'failed';
    const error = chain.envelope();
    this.emit({ type: 'runFailed', error, chain: chain.flat() });
    return this.result('failed', error, await this.flushTerminal());
  }

  private async cancelled(): Promise<RunResult> {
    const command = this.cancellation.requested ?? { commandId: 'internal', reason: 'cancelled' };
    this.statusValue = 'cancelled';
    this.threads?.takeRaised();
    this.channels.discardUncommitted();
    this.emit({
      type: 'runCancelled',
      cause: { commandId: command.commandId, reason: command.reason },
      correlation: { run: this.runId, step: this.stepNumber || null, epoch: this.cancellation.epoch },
      ...(this.cancellation.forced ? { forced: true } : {}),
    });
    return this.result('cancelled', null, await this.flushTerminal());
  }

  /**
   * The last flush of a run. A journal that cannot be written must not give the run a second
   * ending (a write failure caught by start() after runCompleted): the terminal events stay
   * buffered in the sink and the result says they are not on disk yet.
   */
  private async flushTerminal(): Promise<HivewatchError | null> {
    try {
      await this.config.sink.flush();
      return null;
    } catch (error) {
      return toHivewatchError(error);
    }
  }

  private result(status: RunResult['status'], error: ErrorEnvelope | null, unjournaled: HivewatchError | null = null): RunResult {
    const result: RunResult = { runId: this.runId, status, error, steps: this.stepNumber, channels: this.channels.snapshot() };
    if (unjournaled !== null) result.unjournaled = unjournaled.toEnvelope();
    return result;
  }
}
