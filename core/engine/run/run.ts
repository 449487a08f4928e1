import { randomUUID } from 'node:crypto';
import { CancelledError, HivewatchError, toHivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { flowDigest } from '../../flow/plan/digest.js';
import { flowSteps } from '../../flow/plan/step-count.js';
import type { AgentSpec, SessionSpec } from '../../flow/plan/plan.js';
import { Redactor } from '../../runtimes/secrets/secrets.js';
import { resolveAgent } from '../task/agents.js';
import { RealClock, type Clock } from '../../base/clock.js';
import type { HivewatchEvent, RunStatus } from '../../base/events.js';
import { FailureChain } from '../interpret/failure-chain.js';
import { FlowFailure } from '../interpret/thread-failures.js';
import { createLimiter, type Limiter } from '../task/limiter.js';
import { problemBeforeStepZero } from './preflight.js';
import type { ResumePoint } from '../../base/resume-point.js';
import { ENGINE_SEMANTICS, resumeProblem } from '../step/resume.js';
import { RunCancellation } from './run-cancellation.js';
import { RunChannels } from './run-channels.js';
import { newRunId } from '../../base/ids.js';
import { flowNameOf, type RunConfig, type RunResult } from './run-config.js';
import { RunJournal } from './run-journal.js';
import { RunStep } from './run-step.js';
import { RunThreads } from './run-threads.js';
import { openRunWork } from './run-work.js';
import type { RunWork } from '../task/task-work.js';

export type { RunConfig, RunResult } from './run-config.js';

/**
 * One execution of a flow: the superstep loop. Frontier → run tasks → judge them in ordinal
 * order → let the threads move on → commit the step's writes atomically → checkpoint, until the
 * program ends, fails, is cancelled or runs out of steps. Between the tasks settling and the
 * commit the only wait is the threads moving on; the commit itself, with the outcomes it
 * journals, happens in one synchronous stretch after checking for a cancel, so a cancel that
 * lands before it leaves no commit-scoped event (rule 11).
 *
 * The roles live in files of their own: one step in run-step.ts, the journal boundary in
 * run-journal.ts, cancellation in run-cancellation.ts, the commit and the ordinal order it depends
 * on in run-commit.ts, the threads in run-threads.ts, the channels in run-channels.ts; this file
 * is the loop and the run's endings.
 */
export class FlowRun {
  readonly runId: string;
  private readonly clock: Clock;
  private readonly maxSteps: number;
  private readonly limiter: Limiter;
  private statusValue: RunStatus = 'queued';
  private readonly cancellation = new RunCancellation();
  private readonly channels: RunChannels;
  private threads: RunThreads | null = null;
  private stepNumber = 0;
  private readonly backoffs = new Map<string, (commandId: string) => void>();
  private work: RunWork | null = null;
  private readonly journal: RunJournal;
  private readonly steps: RunStep;

  constructor(private readonly config: RunConfig) {
    const secrets = Redactor.ofAgents(config.plan.agents.values());
    this.runId = config.runId ?? newRunId();
    this.clock = config.clock ?? new RealClock();
    this.journal = new RunJournal(this.runId, this.clock, config.sink, secrets);
    this.maxSteps = config.maxSteps ?? 100;
    this.limiter = createLimiter(config.concurrency ?? 4);
    this.channels = new RunChannels(config.reducers ?? {}, config.resume?.throughStep ?? 0);
    const problem = config.resume ? resumeProblem(config.resume, config.plan.program.source) : null;
    if (problem !== null) throw new HivewatchError('USER_INVALID_CONFIG', { message: problem, origin: 'user' });
    this.steps = new RunStep({
      config,
      runId: this.runId,
      clock: this.clock,
      limiter: this.limiter,
      cancellation: this.cancellation,
      channels: this.channels,
      journal: this.journal,
      backoffs: this.backoffs,
      work: () => this.work,
      agentOf: (spec) => this.agentOfSpec(spec),
      correlation: () => this.correlation(),
      fail: (failure) => this.fail(failure),
      cancelled: () => this.cancelled(),
    });
  }

  get status(): RunStatus {
    return this.statusValue;
  }

  get epoch(): number {
    return this.cancellation.epoch;
  }

  /** Events as they are appended, for live views; the sink remains the record. */
  onEvent(listener: (event: HivewatchEvent) => void): () => void {
    return this.journal.onEvent(listener);
  }

  /** Rules 9–11 and 18 (run-cancellation.ts): a run that ended takes no cancel. */
  cancel(options: { commandId?: string; reason?: string } = {}): { commandId: string; accepted: boolean } {
    const commandId = options.commandId ?? `cmd_${randomUUID().slice(0, 8)}`;
    const reason = options.reason ?? 'cancelled by operator';
    const terminal = this.statusValue === 'completed' || this.statusValue === 'failed' || this.statusValue === 'cancelled';
    if (terminal) return { commandId, accepted: false };
    const accepted = this.cancellation.request(
      { commandId, reason },
      (body) => this.journal.emit(body),
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

  async start(): Promise<RunResult> {
    if (this.statusValue !== 'queued') throw new Error(`run ${this.runId} was already started`);
    this.statusValue = 'running';
    const { plan } = this.config;
    const resume = this.config.resume ?? null;
    this.journal.emit({
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
          emit: (body) => this.journal.emit(body),
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
      const ended = await this.steps.run(step, frontier, threads, resume === null || step > resume.throughStep ? null : resume);
      if (ended !== null) return ended;
    }
  }

  private correlation(): { project: string | null; flow: string; run: string; step: number | null } {
    return { project: this.config.project ?? null, flow: this.config.plan.file, run: this.runId, step: this.stepNumber || null };
  }

  /** The throws of the current stretch, journaled with the run's end. */
  private journalRaised(): void {
    for (const { chain, caught } of this.threads?.takeRaised() ?? []) this.journal.emitError(chain, caught);
  }

  private async finish(rootError: unknown): Promise<RunResult> {
    // The program ended; only writes it made since the last commit (a flow with no session) are left to commit.
    if (this.cancellation.requested && this.channels.uncommitted > 0) return this.cancelled();
    if (rootError instanceof CancelledError) return this.cancelled();
    // Writes of a program that never reached a session (`let x = "a"` alone) are committed in a
    // step of their own, so the journal has no stepFinished without its stepStarted.
    if (this.channels.uncommitted > 0 && this.stepNumber === 0) {
      this.stepNumber = 1;
      this.journal.emit({ type: 'stepStarted', step: 1, frontier: [] });
    }
    const rejected = this.channels.uncommitted > 0 ? this.steps.commit(this.stepNumber, true) : null;
    if (rejected) return this.fail(rejected);
    if (rootError instanceof FlowFailure) return this.fail(rootError.chain);
    if (rootError !== null) return this.fail(toHivewatchError(rootError));
    this.journalRaised();
    this.statusValue = 'completed';
    this.journal.emit({ type: 'runCompleted', steps: this.stepNumber });
    return this.result('completed', null, await this.journal.flushTerminal());
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
      this.journal.emitError(chain, false);
    } else {
      chain = failure;
    }
    this.statusValue = 'failed';
    const error = chain.envelope();
    this.journal.emit({ type: 'runFailed', error, chain: chain.flat() });
    return this.result('failed', error, await this.journal.flushTerminal());
  }

  private async cancelled(): Promise<RunResult> {
    const command = this.cancellation.requested ?? { commandId: 'internal', reason: 'cancelled' };
    this.statusValue = 'cancelled';
    this.threads?.takeRaised();
    this.channels.discardUncommitted();
    this.journal.emit({
      type: 'runCancelled',
      cause: { commandId: command.commandId, reason: command.reason },
      correlation: { run: this.runId, step: this.stepNumber || null, epoch: this.cancellation.epoch },
      ...(this.cancellation.forced ? { forced: true } : {}),
    });
    return this.result('cancelled', null, await this.journal.flushTerminal());
  }

  private result(status: RunResult['status'], error: ErrorEnvelope | null, unjournaled: HivewatchError | null = null): RunResult {
    const result: RunResult = { runId: this.runId, status, error, steps: this.stepNumber, channels: this.channels.snapshot() };
    if (unjournaled !== null) result.unjournaled = unjournaled.toEnvelope();
    return result;
  }
}
