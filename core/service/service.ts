import { randomBytes } from 'node:crypto';
import { resumeProblem } from '../engine/resume.js';
import { checkFlow } from '../flow/check.js';
import { highlightSpans } from '../flow/highlight.js';
import type { CheckResult, FlowPlan } from '../flow/plan.js';
import { checkedForDefaultAgent } from '../flow/retry-owners.js';
import { EXTERNAL_FLOW_PREFIX } from '../otel/mapping.js';
import { createDurableSink, DEFAULT_BACKGROUND_RETRY_MS, type DurableSink, type RunRow } from '../store/index.js';
import { sweepLeftoverWorktrees } from '../workspace/sweep.js';
import type { CommandAck, ErrorCount, ErrorGroup, LiveEvent, RunSummary, SubscribeOptions } from './api.js';
import { ACTIVE_STATUSES } from './api.js';
import { withAttemptTelemetry } from './attempt-telemetry.js';
import { ApiError, asApiError } from './errors.js';
import { checkFlowFileAs } from './flow-file.js';
import { saveUserFlow } from './flow-save.js';
import { restoreSecrets } from './flow-secrets.js';
import { checkLoaded, FlowCatalog, type LoadedFlow } from './flows.js';
import { withTrends } from './group-trends.js';
import { HostWatch } from './host-watch.js';
import { HostedRuns, newCommandId, settingsOfRow, type LaunchOptions, type RunSettings } from './hosted-runs.js';
import { invalidFlowMessage, journalInvalidRun } from './invalid-run.js';
import { JournalTail } from './journal-tail.js';
import { DEFAULT_LIVE_CAPACITY, LiveHub } from './live.js';
import { errorCount, errorGroup, errorOccurrence, errorSeries, failureCounts, retryingOf, runDetail, runSummary } from './mapping.js';
import { readNotificationSettings, setFlowMuted } from './notify-settings.js';
import { deliverCommand } from './remote-commands.js';
import { runErrorCounts, runErrorGroups, runErrorSeries, seriesWindow } from './run-errors.js';
import { parseInput, parseWith, subscribeSchema } from './schemas.js';
import type { CloseOptions, HivewatchService, HivewatchServiceOptions, RunFileInput, RunFileResult } from './service-types.js';

export type { CloseOptions, HivewatchService, HivewatchServiceOptions, HostedRunResult, RunFileInput, RunFileResult } from './service-types.js';

/** A resumed run's plan: a flow that does not check (any more) is a 400. */
function checkedPlan(flow: LoadedFlow, defaultAgent: string | null): FlowPlan {
  const checked = checkedForDefaultAgent(checkLoaded(flow), defaultAgent);
  if (checked.ok && checked.plan !== null) return checked.plan;
  throw new ApiError(400, 'invalid_flow', invalidFlowMessage(flow.id, checked));
}

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

export async function createHivewatchService(options: HivewatchServiceOptions): Promise<HivewatchService> {
  const { store } = options;
  const catalog = new FlowCatalog({ examplesDir: options.examplesDir, userFlowsDir: options.userFlowsDir ?? null });
  const sink: DurableSink = createDurableSink(store, {
    ...(options.journalRetryDelaysMs !== undefined ? { retryDelaysMs: options.journalRetryDelaysMs } : {}),
    backgroundRetryMs: options.journalBackgroundRetryMs ?? DEFAULT_BACKGROUND_RETRY_MS,
    onRunTaken: (runIds) => runs.stopTaken(runIds),
  });
  const runs = new HostedRuns(store, () => sink, options, () => writePending());
  const tail = await JournalTail.open({
    store,
    publish: (events, firstId) => liveHub.publish(events, firstId),
    onForeignCommit: () => void runs.pickUpCommands(),
    ...(options.tailIntervalMs !== undefined ? { intervalMs: options.tailIntervalMs } : {}),
    ...(options.tailScheduler !== undefined ? { scheduler: options.tailScheduler } : {}),
  });
  // Live ids are journal commit positions, so the instance is the database's: ids mean the same
  // in every process on it and after a restart (docs/decisions.md).
  const liveHub = new LiveHub(options.liveCapacity ?? DEFAULT_LIVE_CAPACITY, await store.secret('live_instance', () => randomBytes(6).toString('hex')), {
    startId: tail.position,
    backfill: (afterId, upToId) => tail.read(afterId, upToId),
  });
  const watchHosts = options.watchHosts ?? false;
  const hostWatch = watchHosts
    ? new HostWatch({
        store,
        hosted: () => runs.ids(),
        onTaken: (runIds) => runs.stopTaken(runIds),
        ...(typeof watchHosts === 'object' ? watchHosts : {}),
      })
    : null;
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
      throw new ApiError(503, 'journal_unwritable', `${message}; try again once the database can be written (disk space, the server reachable)`);
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

  const launched = async (launchOptions: LaunchOptions): Promise<{ runId: string }> => ({ runId: (await runs.launch(launchOptions)).runId });

  /** Journals an attempt to run a flow that does not check as a failed run (invalid-run.ts); its id. */
  const recordInvalid = (flow: string, source: string | null, checked: CheckResult, run: RunSettings & { retryOf: string | null }): Promise<string> =>
    journalInvalidRun(sink, writePending, { flow, source, checked, settings: run, retryOf: run.retryOf, project: options.project ?? null });

  /** The 400 for a flow that does not check, once the attempt is on record as a failed run. */
  const refuseInvalid = async (flow: LoadedFlow, checked: CheckResult, run: RunSettings & { retryOf: string | null }): Promise<ApiError> => {
    const runId = await recordInvalid(flow.id, flow.notText ? null : flow.source, checked, run);
    return new ApiError(400, 'invalid_flow', `${invalidFlowMessage(flow.id, checked)}; recorded as failed run ${runId}`);
  };

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
        const run = {
          maxSteps: args.maxSteps ?? 100,
          concurrency: args.concurrency ?? 4,
          virtual: args.virtualClock ?? options.clock === 'virtual',
          defaultAgent: args.agent ?? options.defaultAgent ?? null,
        };
        const checked = checkedForDefaultAgent(checkLoaded(flow), run.defaultAgent);
        if (!checked.ok || checked.plan === null) throw await refuseInvalid(flow, checked, { ...run, retryOf: null });
        return launched({ plan: checked.plan, flowPath: flow.path, ...run });
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
        const checked = checkedForDefaultAgent(checkLoaded(flow), row.defaultAgent);
        if (!checked.ok || checked.plan === null) throw await refuseInvalid(flow, checked, { ...settingsOfRow(row), retryOf: args.runId });
        return launched({ ...settingsOfRow(row), plan: checked.plan, flowPath: flow.path, retryOf: args.runId });
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
        return launched({ ...settingsOfRow(row), plan: checkedPlan(flow, row.defaultAgent), flowPath: flow.path, resume });
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
      const settings: RunSettings = {
        maxSteps: input.maxSteps ?? 100,
        concurrency: input.concurrency ?? 4,
        virtual: input.virtualClock ?? options.clock === 'virtual',
        defaultAgent: input.agent ?? options.defaultAgent ?? null,
      };
      const file = await checkFlowFileAs(input.file, store.location);
      const checked = checkedForDefaultAgent(file.checked, settings.defaultAgent);
      if (!checked.ok || checked.plan === null) {
        const runId = await recordInvalid(file.key, file.source, checked, { ...settings, retryOf: input.retryOf ?? null });
        return { kind: 'invalid', diagnostics: checked.diagnostics, runId };
      }
      const refusal = input.resume ? resumeProblem(input.resume, checked.plan.program.source) : null;
      if (refusal !== null) return { kind: 'refused', message: refusal };
      const started = await runs.launch({
        ...settings,
        plan: checked.plan,
        flowPath: input.file,
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
      const applying = runs.commandsInFlight;
      if (changed || applying) await (applying ?? Promise.resolve());
    },

    activeRunIds: () => runs.ids(),

    checkHosts: () => hostWatch?.check() ?? Promise.resolve({ recovered: [], taken: [] }),

    whenFinished: (runId) => runs.get(runId)?.done ?? null,

    async close(closeOptions: CloseOptions = {}): Promise<void> {
      if (closing) return;
      closing = true;
      await runs.close(closeOptions.timeoutMs ?? 10_000);
      await hostWatch?.stop();
      await sink.close().catch(() => undefined);
      await sweep;
      await runs.drained();
      await tail.stop();
      liveHub.close();
    },
  };
  return service;
}
