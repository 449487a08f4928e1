import { createDurableSink, DEFAULT_BACKGROUND_RETRY_MS, type DurableSink } from '../store/index.js';
import { sweepLeftoverWorktrees } from '../workspace/sweep.js';
import { alertsApi } from './alerts/alerts-service.js';
import type { AlertsHost } from './alerts/alerts-host.js';
import { bulkApi } from './runs/bulk.js';
import { commandRelay } from './runs/command-relay.js';
import { FlowCatalog } from './flows/catalog.js';
import { flowsApi } from './flows/api.js';
import { HostWatch } from './runs/host-watch.js';
import { HostedRuns } from './runs/hosted.js';
import { DEFAULT_JOURNAL_RETRY_MS, retryDelaysWithin } from './runs/journal-env.js';
import { followLiveJournal } from './live/live-journal.js';
import { readApi } from './read-api.js';
import { usageApi } from './cost/usage.js';
import { costApi } from './cost/outcomes.js';
import { runHost } from './runs/host.js';
import { flushOr503, type ServiceContext } from './service-context.js';
import type { CloseOptions, HivewatchService, HivewatchServiceOptions } from './service-types.js';
import { subscriptions } from './live/subscriptions.js';
import { startTriage } from './issues/triage-host.js';

export type { HivewatchService, HivewatchServiceOptions, HostedRunResult } from './service-types.js';

/**
 * The Hivewatch service: HivewatchApi over the engine and the store, in one process. This is its
 * composition root; each part is a file of its own:
 *
 * - runs/host.ts: start, retry and resume runs. Many runs at once: every run gets its own FlowRun
 *   and all share one limiter (`globalConcurrency`); HostedRuns keeps them until they end.
 * - runs/command-relay.ts: cancel and skipBackoff, to the run here or through the journal to its host.
 * - read-api.ts: runs, events and error views; flows/api.ts: flows and their notification settings.
 * - live/subscriptions.ts: the live stream. Every event goes through one durable sink into the store
 *   (batched transactions); the stream is fed from committed batches (live/live-journal.ts), so
 *   anything a subscriber sees is already queryable.
 *
 * Every input is validated with the shared schemas, so in-process callers get the same 400s as
 * HTTP and IPC.
 */
export async function createHivewatchService(options: HivewatchServiceOptions): Promise<HivewatchService> {
  const { store } = options;
  const catalog = new FlowCatalog({ examplesDir: options.examplesDir, userFlowsDir: options.userFlowsDir ?? null });
  // HostedRuns asks for the sink only when it launches a run, after this function returned.
  const runs = new HostedRuns(
    store,
    () => sink,
    options,
    () => flushOr503(sink),
  );
  const sink: DurableSink = createDurableSink(store, {
    retryDelaysMs: options.journalRetryDelaysMs ?? retryDelaysWithin(DEFAULT_JOURNAL_RETRY_MS),
    backgroundRetryMs: options.journalBackgroundRetryMs ?? DEFAULT_BACKGROUND_RETRY_MS,
    onRunTaken: (runIds) => runs.stopTaken(runIds),
  });

  // Set once triage has started; what the tail publishes before that is the alerts' first pass's.
  let alertsOfHost: AlertsHost | null = null;
  const { hub: liveHub, tail } = await followLiveJournal(options, {
    // Another process's failure alerts as soon as this host's tail reads it, not on the alerts' beat.
    published: (events) => alertsOfHost?.nudge(events),
    foreignCommit: () => void runs.pickUpCommands(),
  });

  const watchHosts = options.watchHosts ?? false;
  const hostWatch = watchHosts
    ? new HostWatch({ store, hosted: () => runs.ids(), onTaken: (runIds) => runs.stopTaken(runIds), ...(typeof watchHosts === 'object' ? watchHosts : {}) })
    : null;
  // Worktrees a killed host left behind (its runs are interrupted by now): removed in the background.
  const sweep = sweepLeftoverWorktrees(store, options.worktreeRoot).catch(() => []);

  const { alerts, issues, issueWatch, ...triage } = startTriage(store, options, liveHub.instance);
  alertsOfHost = alerts;

  const context: ServiceContext = { store, options, sink, runs, catalog, writePending: () => flushOr503(sink) };
  let closing = false;
  const hostApi = runHost(context);
  const relayApi = commandRelay(context);
  return {
    store,
    instance: liveHub.instance,
    ...hostApi,
    ...relayApi,
    ...bulkApi(context, { ...hostApi, ...relayApi }),
    ...readApi(store, (status) => issues.book.statusScope(status)),
    ...usageApi(store),
    ...costApi(store, issues.book),
    ...flowsApi(store, catalog, options.userFlowsDir ?? null),
    ...subscriptions(liveHub, (listener) => alerts?.onDeliveries(listener) ?? (() => undefined)),
    ...alertsApi(store, () => alerts?.engine ?? null, { examplesDir: options.examplesDir, userFlowsDir: options.userFlowsDir ?? null }),
    ...issues.api,
    issueTransitions: issues.transitions,
    checkIssues: () => issueWatch.check(),
    onAlertDeliveries: (listener) => alerts?.onDeliveries(listener) ?? (() => undefined),

    flushJournal: () => sink.flush(),

    async probeJournal(): Promise<void> {
      const changed = await tail.probe();
      // onForeignCommit started a pass when something changed; wait for it (or one running).
      const applying = runs.commandsInFlight;
      if (changed || applying) await (applying ?? Promise.resolve());
    },

    checkHosts: () => hostWatch?.check() ?? Promise.resolve({ recovered: [], taken: [] }),

    databaseStatus: () => {
      const since = hostWatch?.databaseAwaySince ?? null;
      return Promise.resolve({
        unavailableForMs: since === null ? null : Math.max(0, Date.now() - since),
        waitingRuns: since === null ? 0 : runs.ids().length,
      });
    },

    async close(closeOptions: CloseOptions = {}): Promise<void> {
      if (closing) return;
      closing = true;
      await runs.close(closeOptions.timeoutMs ?? 10_000);
      await hostWatch?.stop();
      await triage.stop();
      await sink.close().catch(() => undefined);
      await sweep;
      await runs.drained();
      await tail.stop();
      liveHub.close();
    },
  };
}
