import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { RealClock, VirtualClock, type Clock } from '../../base/clock.js';
import type { EventSink } from '../../base/events.js';
import { createLimiter, type Limiter } from '../../engine/task/limiter.js';
import type { ResumePoint } from '../../base/resume-point.js';
import { FlowRun } from '../../engine/run/run.js';
import { FanoutSink } from '../../engine/run/sinks.js';
import type { WorkspaceMode } from '../../flow/plan/agent-work.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import { createRuntimeRegistry, type HivewatchRuntimeRegistry } from '../../runtimes/registry.js';
import type { DurableSink, HivewatchStore, RunRow } from '../../store/index.js';
import { gitAgentWork } from '../../workspace/git-run-work.js';
import { resolveRunRepo } from '../../workspace/repo.js';
import { ApiError } from '../../common/api-errors.js';
import { applyPendingCommands } from './remote-commands.js';
import type { HivewatchServiceOptions, HostedRunResult } from '../service-types.js';

/**
 * The runs this process executes (../service.ts): each its own FlowRun, all sharing one limiter,
 * journaling through one sink. Kept until the run ends, for cancel, skipBackoff, run commands
 * from other processes, and the host watch: a run another host interrupted while this one was
 * not heard from is no longer this host's, and is stopped here without journaling more of it.
 */

/** How a run runs, as its `runStarted.options` records it. */
export interface RunSettings {
  maxSteps: number;
  concurrency: number;
  virtual: boolean;
  defaultAgent: string | null;
}

/** The settings an earlier run ran with (retry and resume keep them). */
export function settingsOfRow(row: RunRow): RunSettings {
  return { maxSteps: row.maxSteps ?? 100, concurrency: row.concurrency ?? 4, virtual: row.clock === 'virtual', defaultAgent: row.defaultAgent };
}

export interface LaunchOptions extends RunSettings {
  plan: FlowPlan;
  /** The flow's file: its repository (or its `repo:`) is where agent work happens. */
  flowPath: string;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  explicitRepo?: string | null;
  fallbackDir?: string;
  workspaceMode?: WorkspaceMode | null;
  observe?: ((clock: Clock) => EventSink) | undefined;
}

export interface LiveRun {
  run: FlowRun;
  done: Promise<HostedRunResult>;
}

export const newCommandId = (): string => `cmd_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

export class HostedRuns {
  private readonly runs = new Map<string, LiveRun>();
  /** Runs another host interrupted: stopped here, with why. */
  private readonly takenOver = new Map<string, string>();
  private readonly sharedLimiter: Limiter;
  private readonly realClock = new RealClock();
  private readonly realRegistry: HivewatchRuntimeRegistry;
  private closing = false;
  /** Run commands other processes journaled for these runs: applied one pass at a time. */
  private applying: Promise<void> | null = null;
  private applyAgain = false;

  constructor(
    private readonly store: HivewatchStore,
    private readonly sink: () => DurableSink,
    private readonly options: Pick<HivewatchServiceOptions, 'globalConcurrency' | 'killGraceMs' | 'telemetry' | 'project' | 'gitEnv' | 'worktreeRoot'>,
    /** Makes the run's first events durable (a 503 when the journal cannot be written). */
    private readonly writePending: () => Promise<void>,
  ) {
    this.sharedLimiter = createLimiter(options.globalConcurrency ?? 8);
    this.realRegistry = createRuntimeRegistry({ clock: this.realClock, killGraceMs: options.killGraceMs, telemetry: options.telemetry });
  }

  get(runId: string): LiveRun | undefined {
    return this.runs.get(runId);
  }

  ids(): string[] {
    return [...this.runs.keys()];
  }

  async launch(launch: LaunchOptions): Promise<{ runId: string; done: Promise<HostedRunResult> }> {
    if (this.closing) throw new ApiError('closing', 'the service is shutting down');
    const { options } = this;
    const clock: Clock = launch.virtual ? new VirtualClock(Date.now()) : this.realClock;
    const registry = launch.virtual ? createRuntimeRegistry({ clock, killGraceMs: options.killGraceMs, telemetry: options.telemetry }) : this.realRegistry;
    // The run's own view of the journal: its flush rejects once the database refused its events (sink.ts).
    const sink = this.sink().forRun();
    const run = new FlowRun({
      plan: launch.plan,
      registry,
      sink: launch.observe ? new FanoutSink([sink, launch.observe(clock)]) : sink,
      clock,
      maxSteps: launch.maxSteps,
      concurrency: launch.concurrency,
      sharedLimiter: this.sharedLimiter,
      defaultAgent: launch.defaultAgent,
      project: options.project ?? null,
      resume: launch.resume ?? null,
      retryOf: launch.retryOf ?? null,
      workspace: {
        agentWork: gitAgentWork,
        repo: () =>
          resolveRunRepo({
            explicit: launch.explicitRepo ?? null,
            flowRepo: launch.plan.repo,
            flowFile: launch.flowPath,
            fallbackDir: launch.fallbackDir ?? dirname(launch.flowPath),
            gitEnv: options.gitEnv,
          }),
        ...(launch.workspaceMode !== undefined ? { defaultMode: launch.workspaceMode } : {}),
        ...(options.worktreeRoot !== undefined ? { worktreeRoot: options.worktreeRoot } : {}),
        ...(options.gitEnv !== undefined ? { gitEnv: options.gitEnv } : {}),
        ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      },
    });
    const done = run.start().then((result): HostedRunResult => {
      const taken = this.takenOver.get(run.runId);
      this.takenOver.delete(run.runId);
      return taken === undefined ? result : { ...result, takenOver: taken };
    });
    this.runs.set(run.runId, { run, done });
    done.then(
      () => this.runs.delete(run.runId),
      () => this.runs.delete(run.runId),
    );
    // `runStarted` is appended synchronously by start(); make it durable so the run is listed at once.
    await this.writePending();
    return { runId: run.runId, done };
  }

  /**
   * Runs another host interrupted are no longer this host's (host-liveness.ts says when that can
   * happen): nothing more of them is journaled, and each is cancelled here so its agents stop.
   */
  stopTaken(runIds: readonly string[]): void {
    this.sink().drop(runIds);
    for (const runId of runIds) {
      const live = this.runs.get(runId);
      if (!live || this.takenOver.has(runId)) continue;
      const message = `run ${runId} was interrupted by another host while this one was not heard from; this host stopped it and journaled nothing more of it`;
      this.takenOver.set(runId, message);
      live.run.cancel({ commandId: newCommandId(), reason: message });
    }
  }

  /** Applies the run commands other processes journaled for these runs (one pass at a time; a request meanwhile runs another). */
  pickUpCommands(): Promise<void> {
    if (this.applying) {
      this.applyAgain = true;
      return this.applying;
    }
    this.applying = (async () => {
      do {
        this.applyAgain = false;
        const hosted = new Map([...this.runs].map(([id, live]) => [id, live.run] as const));
        await applyPendingCommands(this.store, hosted, () => this.sink().flush()).catch(() => 0);
      } while (this.applyAgain);
    })().finally(() => {
      this.applying = null;
    });
    return this.applying;
  }

  /** The pass of run commands in flight, if any. */
  get commandsInFlight(): Promise<void> | null {
    return this.applying;
  }

  /** Refuses new runs, cancels the ones still executing and waits for them, at most `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true;
    const pending = [...this.runs.values()];
    for (const { run } of pending) run.cancel({ commandId: newCommandId(), reason: 'Hivewatch is shutting down' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(pending.map((r) => r.done)), timeout]);
    clearTimeout(timer);
  }

  /** Waits for a pass of run commands in flight. */
  async drained(): Promise<void> {
    await this.applying;
  }
}
