import { randomBytes, randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { RealClock, VirtualClock, type Clock } from '../engine/clock.js';
import { createLimiter, type Limiter } from '../engine/limiter.js';
import { resumeProblem, type ResumePoint } from '../engine/resume.js';
import { FlowRun, type RunResult } from '../engine/run.js';
import type { EventSink } from '../engine/events.js';
import { FanoutSink } from '../engine/sinks.js';
import type { WorkspaceMode } from '../flow/agent-work.js';
import type { Diagnostic } from '../flow/ast.js';
import { formatDiagnostic } from '../flow/ast.js';
import { checkFlow } from '../flow/check.js';
import { highlightSpans } from '../flow/highlight.js';
import type { FlowPlan } from '../flow/plan.js';
import type { TelemetryTarget } from '../otel/env.js';
import { EXTERNAL_FLOW_PREFIX } from '../otel/mapping.js';
import { withAttemptTelemetry } from './attempt-telemetry.js';
import { createRuntimeRegistry, type HivewatchRuntimeRegistry } from '../runtimes/registry.js';
import { createDurableSink, type DurableSink, type HivewatchStore, type RunRow } from '../store/index.js';
import { resolveRunRepo } from '../workspace/repo.js';
import { sweepLeftoverWorktrees } from '../workspace/sweep.js';
import type {
  CommandAck,
  ErrorCount,
  ErrorGroup,
  HivewatchApi,
  LiveEvent,
  RunSummary,
  SubscribeOptions,
} from './api.js';
import { ACTIVE_STATUSES } from './api.js';
import { ApiError, asApiError } from './errors.js';
import { checkFlowFileAs } from './flow-file.js';
import { saveUserFlow } from './flow-save.js';
import { restoreSecrets } from './flow-secrets.js';
import { FlowCatalog } from './flows.js';
import { JournalTail, type TailScheduler } from './journal-tail.js';
import { DEFAULT_LIVE_CAPACITY, LiveHub, type LiveSubscribeOptions, type LiveSubscription } from './live.js';
import { applyPendingCommands, deliverCommand } from './remote-commands.js';
import { runErrorCounts, runErrorGroups, runErrorSeries, seriesWindow } from './run-errors.js';
import { withTrends } from './group-trends.js';
import { errorCount, errorGroup, errorOccurrence, errorSeries, failureCounts, retryingOf, runDetail, runSummary } from './mapping.js';
import { readNotificationSettings, setFlowMuted } from './notify-settings.js';
import { parseInput, parseWith, subscribeSchema } from './schemas.js';

/**
 * The Hivewatch service: HivewatchApi over the engine and the store, in one process.
 *
 * - Many runs at once: every run gets its own FlowRun (its own per-step concurrency) and all of
 *   them share one limiter, so at most `globalConcurrency` attempts run in the process at a time.
 * - Every event goes through one durable sink into the store (batched transactions); the live
 *   stream is fed from the store's committed batches, so anything a subscriber sees is already
 *   queryable (getRun after an event shows it).
 * - Live FlowRun handles are kept for cancel and skipBackoff until the run ends.
 * - Every input is validated with the shared schemas, so in-process callers get the same 400s
 *   as HTTP and IPC.
 */

export interface HivewatchServiceOptions {
  store: HivewatchStore;
  /** The bundled examples (flow ids `examples/<file>`). */
  examplesDir: string;
  /** The operator's own flows (flow ids `user/<file>`); none when absent. */
  userFlowsDir?: string | null;
  /** Attempts running at once across all runs of the process (default 8). */
  globalConcurrency?: number;
  /** The default clock of new runs (default real); `startRun({virtualClock})` overrides it. */
  clock?: 'real' | 'virtual';
  /** Agent for sessions that name none (a flow agent or a built-in preset), unless `startRun({agent})`. */
  defaultAgent?: string | null;
  /** Live events kept for resuming subscribers (default 50,000). */
  liveCapacity?: number;
  /**
   * How often the journal is probed for other processes' commits and commands (default 50 ms),
   * and the timer that does it (tests inject one and call `probeJournal()`).
   */
  tailIntervalMs?: number;
  tailScheduler?: TailScheduler;
  /** Waits before each retry of a failed journal write (default: the sink's, about 6 s in all; tests pass []). */
  journalRetryDelaysMs?: readonly number[];
  /** How long a command for a run another process hosts waits for that host's answer (default 2 s). */
  commandAckTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace for subprocess runtimes (default 2000 ms). */
  killGraceMs?: number;
  project?: string | null;
  /** Agent work (issue #10): where task worktrees go, and git's environment (tests isolate it). */
  worktreeRoot?: string;
  gitEnv?: Record<string, string>;
  /** The OTLP receiver the presets' CLIs report to (issue #11 part 5): asked at each attempt, null for none. */
  telemetry?: () => TelemetryTarget | null;
}

/** A flow file run from the command line (`hivewatch run` / `resume` / `retry`). */
export interface RunFileInput {
  file: string;
  /** --repo: the repository of agent work (else the flow's `repo:`, else the one around `cwd`). */
  repo?: string | null;
  /** --workspace: where sessions work unless they say. */
  workspace?: WorkspaceMode | null;
  agent?: string | null;
  virtualClock?: boolean;
  maxSteps?: number;
  concurrency?: number;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** Where the repository is looked for when neither --repo nor the flow names one (default process.cwd()). */
  cwd?: string;
  /** Sees every event as it happens (before commit), given the run's clock: the CLI's progress. */
  observe?: (clock: Clock) => EventSink;
}

export type RunFileResult =
  | { kind: 'invalid'; diagnostics: Diagnostic[] }
  | { kind: 'refused'; message: string }
  | { kind: 'started'; runId: string; done: Promise<RunResult> };

export interface CloseOptions {
  /** How long to wait for cancelled runs to end before closing anyway (default 10 s). */
  timeoutMs?: number;
}

export interface HivewatchService extends HivewatchApi {
  readonly store: HivewatchStore;
  /** This service instance's id: live ids of another instance mean nothing here. */
  readonly instance: string;
  /** The live subscription with what the shells need: where it starts and whether it reset. */
  subscribeLive(options: LiveSubscribeOptions): LiveSubscription;
  /**
   * Probes the journal now: publishes other processes' new commits and applies the run commands
   * addressed to this process. Resolves once those commands are acknowledged.
   */
  probeJournal(): Promise<void>;
  /** Checks a flow file under its key (flow-keys.ts) and, when it checks, executes it here. */
  runFile(input: RunFileInput): Promise<RunFileResult>;
  /** Writes what the journal still holds in memory; throws when it cannot (a full disk). */
  flushJournal(): Promise<void>;
  /** Ids of the runs this process is executing. */
  activeRunIds(): string[];
  /** The result of a run this process executes (null when it is not one of them). */
  whenFinished(runId: string): Promise<RunResult> | null;
  /** Cancels the runs still executing, waits for them (bounded), flushes the journal. The store stays open. */
  close(options?: CloseOptions): Promise<void>;
}

interface LiveRun {
  run: FlowRun;
  done: Promise<RunResult>;
}

interface LaunchOptions {
  plan: FlowPlan;
  /** The flow's file: its repository (or its `repo:`) is where agent work happens. */
  flowPath: string;
  maxSteps: number;
  concurrency: number;
  virtual: boolean;
  defaultAgent: string | null;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  explicitRepo?: string | null;
  fallbackDir?: string;
  workspaceMode?: WorkspaceMode | null;
  observe?: ((clock: Clock) => EventSink) | undefined;
}


const newCommandId = (): string => `cmd_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

function checkedPlan(id: string, source: string): FlowPlan {
  const checked = checkFlow(source, id);
  if (checked.ok && checked.plan !== null) return checked.plan;
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new ApiError(400, 'invalid_flow', first ? `${formatDiagnostic(first)}${more}` : `${id} does not check`);
}

export async function createHivewatchService(options: HivewatchServiceOptions): Promise<HivewatchService> {
  const { store } = options;
  const catalog = new FlowCatalog({ examplesDir: options.examplesDir, userFlowsDir: options.userFlowsDir ?? null });
  const sharedLimiter: Limiter = createLimiter(options.globalConcurrency ?? 8);
  const realClock = new RealClock();
  const realRegistry = createRuntimeRegistry({ clock: realClock, killGraceMs: options.killGraceMs, telemetry: options.telemetry });
  const sink: DurableSink = createDurableSink(store, options.journalRetryDelaysMs !== undefined ? { retryDelaysMs: options.journalRetryDelaysMs } : {});
  const runs = new Map<string, LiveRun>();
  // Run commands other processes journaled for our runs: applied one pass at a time.
  let applying: Promise<void> | null = null;
  let applyAgain = false;
  const pickUpCommands = (): Promise<void> => {
    if (applying) {
      applyAgain = true;
      return applying;
    }
    applying = (async () => {
      do {
        applyAgain = false;
        const hosted = new Map([...runs].map(([id, live]) => [id, live.run] as const));
        await applyPendingCommands(store, hosted, () => sink.flush()).catch(() => 0);
      } while (applyAgain);
    })().finally(() => {
      applying = null;
    });
    return applying;
  };
  const tail = await JournalTail.open({
    store,
    publish: (events, firstId) => liveHub.publish(events, firstId),
    onForeignCommit: () => void pickUpCommands(),
    ...(options.tailIntervalMs !== undefined ? { intervalMs: options.tailIntervalMs } : {}),
    ...(options.tailScheduler !== undefined ? { scheduler: options.tailScheduler } : {}),
  });
  // Live ids are journal commit positions, so the instance is the database's: ids mean the same
  // in every process on it and after a restart (docs/decisions.md).
  const liveHub = new LiveHub(options.liveCapacity ?? DEFAULT_LIVE_CAPACITY, await store.secret('live_instance', () => randomBytes(6).toString('hex')), {
    startId: tail.position,
    backfill: (afterId, upToId) => tail.read(afterId, upToId),
  });
  let closing = false;
  // Worktrees a killed host left behind (its runs are interrupted by now): removed in the background.
  const sweep = sweepLeftoverWorktrees(store, options.worktreeRoot).catch(() => []);

  /** Runs a service method: store errors become ApiErrors, so every caller sees 400/404/409 alike. */
  const guard = async <T>(body: () => T | Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      throw asApiError(error);
    }
  };

  /**
   * Writes what the journal still holds in memory before a command reads a run's state: after a
   * write failure (a full disk) the failed runs' last events wait in the sink, and once there is
   * room they land here, so the run reads failed and can be resumed.
   */
  const writePending = async (): Promise<void> => {
    try {
      await sink.flush();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ApiError(503, 'journal_unwritable', `${message}; free space for the database, then try again`);
    }
  };

  const runRow = async (runId: string): Promise<RunRow> => {
    const row = await store.getRunRow(runId);
    if (!row) throw new ApiError(404, 'run_not_found', `no run ${runId}`);
    return row;
  };

  /** An agent session seen through its telemetry (issue #11): watched, never run by Hivewatch. */
  const isExternal = (row: RunRow): boolean => row.flow.startsWith(EXTERNAL_FLOW_PREFIX);
  const externalRefusal = (row: RunRow, what: string): string =>
    `run ${row.id} is an agent session seen through its telemetry (${row.flowName}); Hivewatch did not start it and cannot ${what}`;
  const refuseExternal = (row: RunRow, what: string): void => {
    if (isExternal(row)) throw new ApiError(409, 'external_run', externalRefusal(row, what));
  };

  const launch = async (launchOptions: LaunchOptions): Promise<{ runId: string; done: Promise<RunResult> }> => {
    if (closing) throw new ApiError(409, 'closing', 'the service is shutting down');
    const clock: Clock = launchOptions.virtual ? new VirtualClock(Date.now()) : realClock;
    const registry: HivewatchRuntimeRegistry = launchOptions.virtual
      ? createRuntimeRegistry({ clock, killGraceMs: options.killGraceMs, telemetry: options.telemetry })
      : realRegistry;
    const run = new FlowRun({
      plan: launchOptions.plan,
      registry,
      sink: launchOptions.observe ? new FanoutSink([sink, launchOptions.observe(clock)]) : sink,
      clock,
      maxSteps: launchOptions.maxSteps,
      concurrency: launchOptions.concurrency,
      sharedLimiter,
      defaultAgent: launchOptions.defaultAgent,
      project: options.project ?? null,
      resume: launchOptions.resume ?? null,
      retryOf: launchOptions.retryOf ?? null,
      workspace: {
        repo: () =>
          resolveRunRepo({
            explicit: launchOptions.explicitRepo ?? null,
            flowRepo: launchOptions.plan.repo,
            flowFile: launchOptions.flowPath,
            fallbackDir: launchOptions.fallbackDir ?? dirname(launchOptions.flowPath),
            gitEnv: options.gitEnv,
          }),
        ...(launchOptions.workspaceMode !== undefined ? { defaultMode: launchOptions.workspaceMode } : {}),
        ...(options.worktreeRoot !== undefined ? { worktreeRoot: options.worktreeRoot } : {}),
        ...(options.gitEnv !== undefined ? { gitEnv: options.gitEnv } : {}),
        ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      },
    });
    const done = run.start();
    runs.set(run.runId, { run, done });
    done.then(
      () => runs.delete(run.runId),
      () => runs.delete(run.runId),
    );
    // `runStarted` is appended synchronously by start(); make it durable so the run is listed at once.
    await writePending();
    return { runId: run.runId, done };
  };
  const launched = async (launchOptions: LaunchOptions): Promise<{ runId: string }> => ({ runId: (await launch(launchOptions)).runId });

  const optionsOfRun = (row: RunRow, plan: FlowPlan, flowPath: string): LaunchOptions => ({
    plan,
    flowPath,
    maxSteps: row.maxSteps ?? 100,
    concurrency: row.concurrency ?? 4,
    virtual: row.clock === 'virtual',
    defaultAgent: row.defaultAgent,
  });

  const summaries = (rows: readonly RunRow[]): Promise<RunSummary[]> =>
    Promise.all(
      rows.map(async (row) => {
        if (row.nextAttemptAt === null) return runSummary(row, null);
        const detail = await store.getRun(row.id);
        return runSummary(row, detail ? retryingOf(detail.tasks, detail.attempts) : null);
      }),
    );

  const service: HivewatchService = {
    store,
    instance: liveHub.instance,

    startRun: (input) =>
      guard(async () => {
        const args = parseInput('startRun', input);
        const flow = await catalog.load(args.flow);
        return launched({
          plan: checkedPlan(flow.id, flow.source),
          flowPath: flow.path,
          maxSteps: args.maxSteps ?? 100,
          concurrency: args.concurrency ?? 4,
          virtual: args.virtualClock ?? options.clock === 'virtual',
          defaultAgent: args.agent ?? options.defaultAgent ?? null,
        });
      }),

    cancelRun: (input) =>
      guard(async (): Promise<CommandAck> => {
        const args = parseInput('cancelRun', input);
        const row = await runRow(args.runId);
        const live = runs.get(args.runId);
        if (!live && isExternal(row)) return { commandId: newCommandId(), accepted: false, message: externalRefusal(row, 'cancel it: stop the agent where it runs') };
        if (!live) {
          const commandId = newCommandId();
          return (ACTIVE_STATUSES as readonly string[]).includes(row.status)
            ? deliverCommand(store, { kind: 'cancel', commandId, runId: args.runId, reason: args.reason }, options.commandAckTimeoutMs)
            : { commandId, accepted: false, message: `run ${args.runId} is ${row.status}; nothing to cancel` };
        }
        const before = live.run.status;
        const ack = live.run.cancel({ commandId: newCommandId(), ...(args.reason !== undefined ? { reason: args.reason } : {}) });
        await sink.flush();
        if (ack.accepted) return ack;
        return { ...ack, message: before === 'cancelling' ? `run ${args.runId} is already cancelling` : `run ${args.runId} is ${before}; nothing to cancel` };
      }),

    retryRun: (input) =>
      guard(async () => {
        const args = parseInput('retryRun', input);
        await writePending();
        const row = await runRow(args.runId);
        refuseExternal(row, 'retry it: start the agent again where it runs');
        if ((ACTIVE_STATUSES as readonly string[]).includes(row.status)) {
          throw new ApiError(409, 'run_active', `run ${args.runId} is ${row.status}; cancel it or let it finish before retrying`);
        }
        const flow = await catalog.loadForRun(args.runId, row.flow);
        return launched({ ...optionsOfRun(row, checkedPlan(flow.id, flow.source), flow.path), retryOf: args.runId });
      }),

    resumeRun: (input) =>
      guard(async () => {
        const args = parseInput('resumeRun', input);
        await writePending();
        const row = await runRow(args.runId);
        refuseExternal(row, 'resume it: the agent resumes its own sessions');
        const resume = await store.resumePointForRun(args.runId);
        const flow = await catalog.loadForRun(args.runId, row.flow);
        const problem = resumeProblem(resume, flow.source);
        if (problem !== null) throw new ApiError(409, 'not_resumable', problem);
        return launched({ ...optionsOfRun(row, checkedPlan(flow.id, flow.source), flow.path), resume });
      }),

    skipBackoff: (input) =>
      guard(async (): Promise<CommandAck> => {
        const args = parseInput('skipBackoff', input);
        const row = await runRow(args.runId);
        const commandId = newCommandId();
        const live = runs.get(args.runId);
        if (!live && isExternal(row)) return { commandId, accepted: false, message: externalRefusal(row, 'skip its backoff: the agent retries on its own schedule') };
        if (!live) {
          return (ACTIVE_STATUSES as readonly string[]).includes(row.status)
            ? deliverCommand(store, { kind: 'skipBackoff', commandId, runId: args.runId, taskId: args.taskId }, options.commandAckTimeoutMs)
            : { commandId, accepted: false, message: `run ${args.runId} is ${row.status}; it is not executed by this process` };
        }
        const accepted = live.run.skipBackoff(args.taskId, commandId);
        await sink.flush();
        return accepted
          ? { commandId, accepted }
          : { commandId, accepted, message: `task ${args.taskId} of run ${args.runId} is not waiting in backoff` };
      }),

    listRuns: (input) =>
      guard(async () => {
        const { cursor, ...query } = parseInput('listRuns', input);
        const page = await store.listRuns({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
        return { items: await summaries(page.runs), nextCursor: page.nextCursor };
      }),

    countRuns: (input) => guard(() => store.countRuns(parseInput('countRuns', input))),

    getRun: (input) =>
      guard(async () => {
        const args = parseInput('getRun', input);
        const detail = await store.getRun(args.runId);
        const lineage = await store.runLineage(args.runId);
        return detail && lineage ? withAttemptTelemetry(runDetail(detail, lineage), store) : null;
      }),

    getEvents: (input) =>
      guard(async () => {
        const args = parseInput('getEvents', input);
        await runRow(args.runId);
        const page = await store.getJournalPage(args.runId, args.afterSeq ?? 0, args.limit ?? 1_000);
        return page.events.map((event, i) => ({ ...event, wall: page.walls[i] ?? event.ts }));
      }),

    listFlows: (...input: unknown[]) =>
      guard(() => {
        parseInput('listFlows', input[0]);
        return catalog.list();
      }),

    checkFlow: (input) =>
      guard(() => {
        const args = parseInput('checkFlow', input);
        const checked = checkFlow(args.source, args.file ?? 'flow.prose');
        return { ok: checked.ok, diagnostics: checked.diagnostics, highlight: highlightSpans(args.source) };
      }),

    saveFlow: (input) =>
      guard(async () => {
        const args = parseInput('saveFlow', input);
        // The window's text hides secrets as [env NAME]: the flow it came from fills them back in.
        const from = args.from === undefined ? null : await catalog.load(args.from);
        const key = await saveUserFlow(options.userFlowsDir ?? null, { ...args, source: restoreSecrets(args.source, from) });
        const saved = (await catalog.list()).find((f) => f.id === key);
        if (!saved) throw new ApiError(404, 'flow_not_found', `no flow ${key}`);
        return saved;
      }),

    getNotificationSettings: (...input: unknown[]) =>
      guard(() => {
        parseInput('getNotificationSettings', input[0]);
        return readNotificationSettings(store);
      }),

    setFlowMuted: (input) =>
      guard(() => {
        const args = parseInput('setFlowMuted', input);
        return setFlowMuted(store, args.flow, args.muted);
      }),

    errorCounts: (input) =>
      guard(async (): Promise<ErrorCount[]> => {
        const { by, limit, runId, ...filter } = parseInput('errorCounts', input);
        if (runId === undefined) return (await store.errorCounts({ ...filter, by, ...(limit !== undefined ? { limit } : {}) })).map(errorCount);
        return runErrorCounts(store, { ...filter, runId }, by, limit ?? 100);
      }),

    failureCounts: (input) =>
      guard(async () => {
        const { limit, ...filter } = parseInput('failureCounts', input);
        return failureCounts(await store.failureCounts({ ...filter, ...(limit !== undefined ? { limit } : {}) }));
      }),

    errorSeries: (input) =>
      guard(async () => {
        const { bucket, stackBy, runId, since, until, ...filter } = parseInput('errorSeries', input);
        const window = seriesWindow(bucket, since, until);
        if (runId === undefined) return errorSeries(await store.errorSeries({ ...filter, ...window, bucket, stackBy }), stackBy);
        return errorSeries(await runErrorSeries(store, { ...filter, runId }, window, bucket, stackBy), stackBy);
      }),

    errorGroups: (input) =>
      guard(async (): Promise<ErrorGroup[]> => {
        const { limit, runId, trendBins, ...filter } = parseInput('errorGroups', input);
        if (runId === undefined) {
          const groups = (await store.errorGroups({ ...filter, ...(limit !== undefined ? { limit } : {}) })).map(errorGroup);
          return trendBins === undefined ? groups : withTrends(store, groups, filter, trendBins);
        }
        return runErrorGroups(store, { ...filter, runId }, limit ?? 50);
      }),

    listErrors: (input) =>
      guard(async () => {
        const args = parseInput('listErrors', input);
        const page = await store.listErrors(args);
        return { items: page.errors.map(errorOccurrence), nextCursor: page.nextCursor };
      }),

    subscribe(listener: (batch: LiveEvent[]) => void, subscribeOptions: SubscribeOptions = {}): () => void {
      const { afterId } = parseWith(subscribeSchema, { ...(subscribeOptions.afterId !== undefined ? { afterId: subscribeOptions.afterId } : {}) });
      const { onReset, onReady } = subscribeOptions;
      let active = true;
      const subscription = liveHub.subscribe({ afterId, onBatch: listener, onReset: onReset && (() => onReset()) });
      // Callbacks never run inside subscribe(): the caller gets its unsubscribe function first.
      setImmediate(() => {
        if (!active) return;
        if (subscription.reset) onReset?.();
        onReady?.(subscription.startId);
      });
      return () => {
        active = false;
        subscription.unsubscribe();
      };
    },

    subscribeLive: (liveOptions) => liveHub.subscribe(liveOptions),

    async runFile(input: RunFileInput): Promise<RunFileResult> {
      // The plan is checked under the file's key, which the run records as its flow.
      const { checked } = await checkFlowFileAs(input.file, store.location);
      if (!checked.ok || checked.plan === null) return { kind: 'invalid', diagnostics: checked.diagnostics };
      const refusal = input.resume ? resumeProblem(input.resume, checked.plan.program.source) : null;
      if (refusal !== null) return { kind: 'refused', message: refusal };
      const started = await launch({
        plan: checked.plan,
        flowPath: input.file,
        maxSteps: input.maxSteps ?? 100,
        concurrency: input.concurrency ?? 4,
        virtual: input.virtualClock ?? options.clock === 'virtual',
        defaultAgent: input.agent ?? options.defaultAgent ?? null,
        resume: input.resume ?? null,
        retryOf: input.retryOf ?? null,
        explicitRepo: input.repo ?? null,
        fallbackDir: input.cwd ?? process.cwd(),
        workspaceMode: input.workspace ?? null,
        observe: input.observe,
      });
      return { kind: 'started', ...started };
    },

    flushJournal: () => sink.flush(),

    async probeJournal(): Promise<void> {
      const changed = await tail.probe();
      // onForeignCommit started a pass when something changed; wait for it (or one running).
      if (changed || applying) await (applying ?? Promise.resolve());
    },

    activeRunIds: () => [...runs.keys()],

    whenFinished: (runId) => runs.get(runId)?.done ?? null,

    async close(closeOptions: CloseOptions = {}): Promise<void> {
      if (closing) return;
      closing = true;
      const pending = [...runs.values()];
      for (const { run } of pending) run.cancel({ commandId: newCommandId(), reason: 'Hivewatch is shutting down' });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, closeOptions.timeoutMs ?? 10_000);
        timer.unref();
      });
      await Promise.race([Promise.allSettled(pending.map((r) => r.done)), timeout]);
      clearTimeout(timer);
      await sink.close().catch(() => undefined);
      await sweep;
      await applying;
      await tail.stop();
      liveHub.close();
    },
  };
  return service;
}
