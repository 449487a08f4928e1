import { randomUUID } from 'node:crypto';
import { CancelledError, HivewatchError, toHivewatchError } from '../errors/hivewatch-error.js';
import type { ErrorEnvelope } from '../errors/envelope.js';
import { validateRetryPolicy } from '../errors/retry.js';
import { flowDigest } from '../flow/digest.js';
import type { WorkspaceMode } from '../flow/agent-work.js';
import type { AgentSpec, FlowPlan, SessionSpec } from '../flow/plan.js';
import type { RuntimeRegistry } from '../runtimes/runtime.js';
import { resolveAgent, retryPolicyFor } from './agents.js';
import {
  commitWrites,
  emptyChannelState,
  replaceReducer,
  snapshotChannels,
  type ChannelDef,
  type ChannelState,
  type Reducer,
  type UpdatePolicy,
} from './channels.js';
import { RealClock, type Clock } from './clock.js';
import type { EventSink, HivewatchEvent, HivewatchEventBody, RunStatus } from './events.js';
import { insideDeadParallel } from './frames.js';
import { FlowFailure, Interpreter, type SessionCall } from './interpreter.js';
import { createLimiter, type Limiter } from './limiter.js';
import { resolveStep } from './resolve.js';
import { ENGINE_SEMANTICS, resumeProblem, taskIdOf, type ResumePoint } from './resume.js';
import { executeStep, type PendingTask, type StepExecution } from './step.js';
import { deliver, journalOutcomes, journalRunCancelled, replayedResults, SIBLING_FAILED, type StepRecordEnv } from './step-record.js';
import type { TaskResult } from './task-executor.js';
import type { RunWork } from './task-work.js';
import { WriteLog } from './write-log.js';
import { openGitRunWork, planNeedsWorkspace } from '../workspace/git-run-work.js';

export interface RunConfig {
  plan: FlowPlan;
  registry: RuntimeRegistry;
  sink: EventSink;
  clock?: Clock;
  runId?: string;
  /** The run stops before starting step maxSteps + 1 (rule 8). Default 100. */
  maxSteps?: number;
  /** Tasks of one step running at once. Default 4. */
  concurrency?: number;
  /** A limit shared with other runs (the service's global concurrency). */
  sharedLimiter?: Limiter;
  /** Agent for sessions that name none: a flow agent or a built-in preset. */
  defaultAgent?: string | null;
  project?: string | null;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** Custom reducers by channel name (the language's default replaces the value). */
  reducers?: Readonly<Record<string, Reducer>>;
  /** The repository of agent work (issue #10); sessions that work in a worktree need it. */
  workspace?: RunWorkspaceConfig | null;
}

export interface RunWorkspaceConfig {
  /** A folder inside the repository, or how to find one: asked only when a session needs it. */
  repo: string | (() => Promise<string | null>);
  /** The run's `--workspace`: where sessions work unless they or their agent say. */
  defaultMode?: WorkspaceMode | null;
  worktreeRoot?: string;
  gitEnv?: Record<string, string>;
  killGraceMs?: number;
}

export interface RunResult {
  runId: string;
  status: 'completed' | 'failed' | 'cancelled';
  error: ErrorEnvelope | null;
  steps: number;
  channels: Record<string, unknown>;
  /**
   * Set when the run's last events could not be journaled (SYSTEM_EVENT_WRITE_FAILED, e.g. a full
   * disk): they wait in the sink's buffer, written by its next successful flush.
   */
  unjournaled?: ErrorEnvelope;
}

type StepMerge = { ok: true; head: string; merged: { taskId: string; commit: string }[] } | { ok: false; error: HivewatchError };

interface CancelCommand {
  commandId: string;
  reason: string;
}

export function newRunId(): string {
  return `run_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/**
 * One execution of a flow: the superstep loop. Frontier → run tasks → judge them in ordinal
 * order → let the threads move on → commit the step's writes atomically → checkpoint, until the
 * program ends, fails, is cancelled or runs out of steps. Between the tasks settling and the
 * commit the only wait is the threads moving on; the commit itself, with the outcomes it
 * journals, happens in one synchronous stretch after checking for a cancel, so a cancel that
 * lands before it leaves no commit-scoped event (rule 11).
 */
export class FlowRun {
  readonly runId: string;
  private readonly clock: Clock;
  private readonly maxSteps: number;
  private readonly limiter: Limiter;
  private seq = 0;
  private epochValue = 0;
  private statusValue: RunStatus = 'queued';
  private cancelCommand: CancelCommand | null = null;
  private readonly cancelController = new AbortController();
  private readonly channelDefs = new Map<string, ChannelDef>();
  private channels: ChannelState = emptyChannelState();
  private readonly log = new WriteLog();
  /** `throw "message"` errors of the threads' current stretch, journaled with its commit. */
  private raisedErrors: { error: HivewatchError; caught: boolean }[] = [];
  private pending: PendingTask[] = [];
  private stepNumber = 0;
  /** Whether this run journaled a checkpoint yet: a resumed run's first one holds the whole state. */
  private checkpointed = false;
  private readonly backoffs = new Map<string, (commandId: string) => void>();
  private readonly listeners = new Set<(event: HivewatchEvent) => void>();
  private work: RunWork | null = null;

  constructor(private readonly config: RunConfig) {
    this.runId = config.runId ?? newRunId();
    this.clock = config.clock ?? new RealClock();
    this.maxSteps = config.maxSteps ?? 100;
    this.limiter = createLimiter(config.concurrency ?? 4);
    const problem = config.resume ? resumeProblem(config.resume, config.plan.program.source) : null;
    if (problem !== null) throw new HivewatchError('USER_INVALID_CONFIG', { message: problem, origin: 'user' });
  }

  get status(): RunStatus {
    return this.statusValue;
  }

  get epoch(): number {
    return this.epochValue;
  }

  /** Events as they are appended, for live views; the sink remains the record. */
  onEvent(listener: (event: HivewatchEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rules 9–11: journal the command, move to `cancelling`, bump the epoch, stop what runs. */
  cancel(options: { commandId?: string; reason?: string } = {}): { commandId: string; accepted: boolean } {
    const commandId = options.commandId ?? `cmd_${randomUUID().slice(0, 8)}`;
    const reason = options.reason ?? 'cancelled by operator';
    const terminal = this.statusValue === 'completed' || this.statusValue === 'failed' || this.statusValue === 'cancelled';
    if (terminal) return { commandId, accepted: false };
    const alreadyCancelling = this.cancelCommand !== null;
    this.emit({ type: 'cancelRequested', commandId, reason, alreadyCancelling });
    if (alreadyCancelling) return { commandId, accepted: false };
    this.cancelCommand = { commandId, reason };
    this.statusValue = 'cancelling';
    this.epochValue++;
    this.emit({ type: 'runCancelling', epoch: this.epochValue, commandId });
    this.cancelController.abort(new CancelledError(reason));
    return { commandId, accepted: true };
  }

  /** An operator's "retry now" for a task waiting in backoff. False when it is not waiting. */
  skipBackoff(taskId: string, commandId = `cmd_${randomUUID().slice(0, 8)}`): boolean {
    const skip = this.backoffs.get(taskId);
    if (!skip) return false;
    skip(commandId);
    return true;
  }

  private emit(body: HivewatchEventBody): void {
    const event = { runId: this.runId, seq: ++this.seq, ts: this.clock.now(), ...body } as HivewatchEvent;
    this.config.sink.append(event);
    for (const listener of this.listeners) listener(event);
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
    });
    try {
      const problem = this.validateBeforeStepZero();
      if (problem) return await this.fail(problem, true);
      const unready = await this.openWork(resume);
      if (unready) return await this.fail(unready, true);
      return await this.loop(resume);
    } catch (unexpected) {
      return await this.fail(toHivewatchError(unexpected), true);
    } finally {
      // Worktrees go with the run; the run branch stays. What a crash leaves, start-up removes.
      await this.work?.close().catch(() => undefined);
    }
  }

  /** Opens the run's branch when a session works in a worktree; the error that prevents it, or null. */
  private async openWork(resume: ResumePoint | null): Promise<HivewatchError | null> {
    const config = this.config.workspace ?? null;
    const agentOf = (spec: SessionSpec): AgentSpec => this.agentOfSpec(spec);
    if (!planNeedsWorkspace(this.config.plan, agentOf, config?.defaultMode ?? null)) return null;
    try {
      // A resumed run continues in the repository its source worked in, from its head.
      const repo = resume?.repo?.root ?? (typeof config?.repo === 'function' ? await config.repo() : (config?.repo ?? null));
      if (repo === null) {
        return new HivewatchError('USER_INVALID_CONFIG', {
          message: 'sessions of this flow work in a git worktree (workspace, scope, verify or expect-changes): give the run a repository (--repo PATH, or repo: in the flow)',
          origin: 'user',
        });
      }
      this.work = await openGitRunWork({
        runId: this.runId,
        repo,
        plan: this.config.plan,
        agentOf,
        defaultMode: config?.defaultMode ?? null,
        emit: (body) => this.emit(body),
        baseCommit: resume?.repo?.head ?? null,
        ...(config?.worktreeRoot !== undefined ? { worktreeRoot: config.worktreeRoot } : {}),
        ...(config?.gitEnv !== undefined ? { gitEnv: config.gitEnv } : {}),
        ...(config?.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
        runVerifier: (agent, prompt, cwd, signal) => this.runVerifier(agent, prompt, cwd, signal),
      });
      return null;
    } catch (error) {
      return toHivewatchError(error);
    }
  }

  /** One attempt of a verifier agent, outside the step's tasks: its answer is the verdict. */
  private async runVerifier(agentName: string, prompt: string, cwd: string, signal: AbortSignal) {
    const agent = resolveAgent(this.config.plan, agentName);
    if (agent === null) return { ok: false as const, error: new HivewatchError('USER_MISSING_DEPENDENCY', { message: `no verifier agent "${agentName}"`, origin: 'user' }) };
    const result = await this.config.registry.forAgent(agent).execute(
      { runId: this.runId, taskId: `verifier:${agentName}`, ordinal: -1, attempt: 1, prompt, agent, simulate: null, timeoutMs: agent.timeoutMs, context: {}, cwd },
      signal,
    );
    if (result.kind === 'succeeded') return { ok: true as const, output: result.output };
    if (result.kind === 'cancelled') return { ok: false as const, error: new HivewatchError('SYSTEM_CANCELLED', { message: 'the verifier was stopped by a cancel' }) };
    return { ok: false as const, error: result.error };
  }

  private agentOfSpec(spec: SessionSpec): AgentSpec {
    return resolveAgent(this.config.plan, spec.agent ?? this.config.defaultAgent ?? 'fake') as AgentSpec;
  }

  /** Rule 3 and the default agent: everything that can be known wrong before anything runs. */
  private validateBeforeStepZero(): HivewatchError | null {
    const { plan } = this.config;
    const agentName = (ordinal: number): string | null => plan.sessions[ordinal]?.agent ?? this.config.defaultAgent ?? null;
    for (const session of plan.sessions) {
      const name = agentName(session.ordinal);
      const agent = name === null ? null : resolveAgent(plan, name);
      const message = validateRetryPolicy(retryPolicyFor(session, agent));
      if (message !== null) {
        const whose = session.retryExplicit || agent === null ? '' : ` (the retry policy of agent "${agent.name}")`;
        return new HivewatchError('USER_INVALID_FLOW', {
          message: `${plan.file}:${session.pos.line}:${session.pos.column}: session #${session.ordinal}${whose}: ${message}`,
          origin: 'user',
          context: { ordinal: session.ordinal, line: session.pos.line, column: session.pos.column },
        });
      }
    }
    for (const session of plan.sessions) {
      const name = agentName(session.ordinal);
      if (name === null) {
        return new HivewatchError('USER_MISSING_DEPENDENCY', {
          message: `session #${session.ordinal} ("${session.name}") names no agent and no default agent is set; pass --agent NAME or set HIVEWATCH_AGENT (a flow agent or one of fake, claude-code, codex-cli)`,
          origin: 'user',
          context: { ordinal: session.ordinal },
        });
      }
      if (resolveAgent(plan, name) === null) {
        return new HivewatchError('USER_MISSING_DEPENDENCY', {
          message: `session #${session.ordinal} ("${session.name}") uses agent "${name}", which the flow does not define and is not a built-in preset`,
          origin: 'user',
          context: { ordinal: session.ordinal, agent: name },
        });
      }
    }
    return null;
  }

  private agentFor(call: SessionCall): AgentSpec {
    return this.agentOfSpec(call.spec);
  }

  private async loop(resume: ResumePoint | null): Promise<RunResult> {
    const interpreter = new Interpreter({
      submit: (call) =>
        new Promise<string>((resolve, reject) => {
          this.pending.push({ call, resolve, reject });
        }),
      declareChannel: (key, name, scope, policy) => this.declareChannel(key, name, scope, policy),
      stageWrite: (write) => this.log.stage(write),
      readChannel: (key, reader) => this.log.read(key, reader, this.channels, this.channelDefs),
      raised: (error, caught) => this.raisedErrors.push({ error: error.withCorrelation(this.correlation(), this.clock.now()), caught }),
      sessionAt: (ordinal) => {
        const spec = this.config.plan.sessions[ordinal];
        if (!spec) throw new Error(`no session with ordinal ${ordinal}`);
        return spec;
      },
    });
    const root: { settled: boolean; error: unknown } = { settled: false, error: null };
    interpreter.run(this.config.plan.program.body).then(
      () => Object.assign(root, { settled: true }),
      (error: unknown) => Object.assign(root, { settled: true, error }),
    );
    await this.settleThreads();

    for (;;) {
      if (root.settled) return this.finish(root.error);
      if (this.cancelCommand) return this.cancelled();
      const frontier = this.pending.sort((a, b) => a.call.spec.ordinal - b.call.spec.ordinal);
      this.pending = [];
      if (frontier.length === 0) {
        return this.fail(new HivewatchError('SYSTEM_INVARIANT_VIOLATED', { message: 'the program is blocked with no ready session' }), true);
      }
      const step = this.stepNumber + 1;
      if (step > this.maxSteps) {
        return this.fail(
          new HivewatchError('POLICY_MAX_STEPS_EXCEEDED', {
            message: `the run reached max-steps (${this.maxSteps}) with ${frontier.length} session(s) still ready`,
            origin: 'policy',
            context: { maxSteps: this.maxSteps },
          }),
          true,
        );
      }
      this.stepNumber = step;
      const live = resume === null || step > resume.throughStep;
      const record = this.recordEnv(step);
      let execution: StepExecution;
      if (live) {
        execution = await this.runStep(step, frontier);
      } else {
        const replayed = replayedResults(step, frontier, resume);
        if (!replayed.ok) return this.fail(replayed.error, true);
        execution = { kind: 'settled', results: replayed.results };
      }
      if (execution.kind === 'cancelled') {
        journalRunCancelled(record, frontier, execution.results, this.cancelReason());
        return this.cancelled();
      }
      const { results } = execution;
      const settled = frontier.map((task, i) => ({ ordinal: task.call.spec.ordinal, frames: task.call.frames, result: results[i]! }));
      const resolution = resolveStep(settled);
      if (resolution.unhandled) {
        if (live) journalOutcomes(record, frontier, results, resolution);
        return this.fail(resolution.unhandled.error, false);
      }
      for (const parallel of resolution.killed) parallel.dead = true;
      deliver(frontier, settled, resolution, this.log);
      await this.settleThreads();
      const merge = live ? await this.mergeStep(step, frontier, results) : null;
      if (this.cancelCommand && live) {
        // Rule 11: the step has not committed, so its tasks end cancelled; what they did stays on the record.
        journalRunCancelled(record, frontier, results, this.cancelReason());
        return this.cancelled();
      }
      if (live) journalOutcomes(record, frontier, results, resolution);
      // A merge conflict aborts the step like any commit failure: it needs a person.
      if (merge && !merge.ok) return this.fail(merge.error, true);
      const rejected = this.commit(step, live, merge);
      if (rejected) return this.fail(rejected, true);
      if (live) {
        this.journalRaised();
        await this.config.sink.flush();
      } else {
        this.raisedErrors = [];
      }
    }
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

  private cancelReason(): string {
    return this.cancelCommand?.reason ?? 'cancelled';
  }

  /** Applies the writes made since the last commit; returns the error that rejects them all, or null. */
  private commit(step: number, live: boolean, merge: StepMerge | null = null): HivewatchError | null {
    const result = commitWrites(this.channels, this.log.take(), this.channelDefs);
    if (!result.ok) return result.error.withCorrelation({ ...this.correlation(), step }, this.clock.now());
    this.channels = result.state;
    if (!live) return null;
    for (const write of result.applied) {
      this.emit({ type: 'writeApplied', step, channel: write.key, ordinal: write.ordinal, value: write.value });
    }
    if (merge?.ok && this.work) {
      this.emit({ type: 'branchMerged', step, branch: this.work.branch, head: merge.head, merged: merge.merged });
      this.work.advance(merge.head);
    }
    // Only what this step changed, unless the journal has no earlier state to lay it over.
    const whole = !this.checkpointed && this.config.resume != null && this.config.resume.throughStep > 0;
    const channels = whole ? snapshotChannels(this.channels) : changedChannels(this.channels, result.applied);
    this.emit({ type: 'checkpointSaved', step, channels, ...(whole ? {} : { delta: true }) });
    this.checkpointed = true;
    this.emit({ type: 'stepFinished', step });
    return null;
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
      runSignal: this.cancelController.signal,
      epoch: () => this.epochValue,
      emit: (body) => this.emit(body),
      agentFor: (call) => this.agentFor(call),
      retryPolicyFor: (call, agent) => retryPolicyFor(call.spec, agent),
      registry: this.config.registry,
      backoffs: this.backoffs,
      flush: () => this.config.sink.flush(),
      workFor: (taskId, ordinal) => this.work?.forTask(taskId, ordinal) ?? null,
    });
  }

  /**
   * Merges the step's task commits into the run's branch (not yet moving it: that happens inside
   * the commit). Before the cancel check, since it waits on git.
   */
  private async mergeStep(step: number, frontier: readonly PendingTask[], results: readonly (TaskResult | undefined)[]): Promise<StepMerge | null> {
    if (this.work === null) return null;
    const candidates = frontier.flatMap((task, i) => {
      const result = results[i];
      if (result?.kind !== 'succeeded' || !result.commit) return [];
      const ordinal = task.call.spec.ordinal;
      return [{ taskId: taskIdOf(step, ordinal), ordinal, name: task.call.spec.name, commit: result.commit }];
    });
    if (candidates.length === 0) return null;
    const merged = await this.work.merge(candidates);
    if (!merged.ok) return { ok: false, error: merged.error.withCorrelation({ ...this.correlation(), step }, this.clock.now()) };
    return { ok: true, head: merged.head, merged: candidates.map(({ taskId, commit }) => ({ taskId, commit })) };
  }

  /** Let every thread run until it parks on a session or ends; stop the threads of dead parallels. */
  private async settleThreads(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const dead = this.pending.filter((task) => insideDeadParallel(task.call.frames));
      if (dead.length === 0) return;
      this.pending = this.pending.filter((task) => !dead.includes(task));
      for (const task of dead) task.reject(new CancelledError(SIBLING_FAILED));
    }
  }

  private declareChannel(key: string, name: string, scope: 'global' | 'branch', policy: UpdatePolicy): void {
    if (this.channelDefs.has(key)) return;
    this.channelDefs.set(key, { key, name, scope, policy, reducer: this.config.reducers?.[name] ?? replaceReducer });
  }

  private correlation(): { project: string | null; flow: string; run: string; step: number | null } {
    return { project: this.config.project ?? null, flow: this.config.plan.file, run: this.runId, step: this.stepNumber || null };
  }

  private emitError(error: HivewatchError, caught: boolean): void {
    this.emit({ type: 'errorOccurred', error: error.toEnvelope(), caught, retrying: false, step: error.correlation.step, ordinal: null, taskId: null });
  }

  private journalRaised(): void {
    for (const { error, caught } of this.raisedErrors) this.emitError(error, caught);
    this.raisedErrors = [];
  }

  private async finish(rootError: unknown): Promise<RunResult> {
    // The program ended; only writes it made since the last commit (a flow with no session) are left to commit.
    if (this.cancelCommand && this.log.size > 0) return this.cancelled();
    if (rootError instanceof CancelledError) return this.cancelled();
    // Writes of a program that never reached a session (`let x = "a"` alone) are committed in a
    // step of their own, so the journal has no stepFinished without its stepStarted (issue #19).
    if (this.log.size > 0 && this.stepNumber === 0) {
      this.stepNumber = 1;
      this.emit({ type: 'stepStarted', step: 1, frontier: [] });
    }
    const rejected = this.log.size > 0 ? this.commit(this.stepNumber, true) : null;
    if (rejected) return this.fail(rejected, true);
    if (rootError instanceof FlowFailure) return this.fail(rootError.error, false);
    if (rootError !== null) return this.fail(toHivewatchError(rootError), true);
    this.journalRaised();
    this.statusValue = 'completed';
    this.emit({ type: 'runCompleted', steps: this.stepNumber });
    return this.result('completed', null, await this.flushTerminal());
  }

  /** `journal`: the error is new here and needs its errorOccurred; task and throw errors already have theirs. */
  private async fail(error: HivewatchError, journal: boolean): Promise<RunResult> {
    const located = error.correlation.run === null ? error.withCorrelation(this.correlation(), this.clock.now()) : error;
    this.journalRaised();
    if (journal) this.emitError(located, false);
    this.statusValue = 'failed';
    this.emit({ type: 'runFailed', error: located.toEnvelope() });
    return this.result('failed', located.toEnvelope(), await this.flushTerminal());
  }

  private async cancelled(): Promise<RunResult> {
    const command = this.cancelCommand ?? { commandId: 'internal', reason: 'cancelled' };
    this.statusValue = 'cancelled';
    this.raisedErrors = [];
    this.log.clear();
    this.emit({
      type: 'runCancelled',
      cause: { commandId: command.commandId, reason: command.reason },
      correlation: { run: this.runId, step: this.stepNumber || null, epoch: this.epochValue },
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
    const result: RunResult = { runId: this.runId, status, error, steps: this.stepNumber, channels: snapshotChannels(this.channels) };
    if (unjournaled !== null) result.unjournaled = unjournaled.toEnvelope();
    return result;
  }
}

function changedChannels(state: ChannelState, applied: readonly { key: string }[]): Record<string, unknown> {
  const keys = [...new Set(applied.map((w) => w.key))].sort();
  return Object.fromEntries(keys.map((key) => [key, state.values.get(key)]));
}

function flowNameOf(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.prose$/, '');
}
