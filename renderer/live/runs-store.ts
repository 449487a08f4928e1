import type { AlertDeliveryChange, HivewatchApi, HivewatchEvent, LiveEvent, RunSummary } from '../../core/service/api.js';
import { createFrameBatcher, defaultScheduler, type FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { endedStatusOf, isActive } from '../../core/common/run-statuses.js';
import type { Connection } from './connection.js';
import { KnownRuns } from './known-runs.js';
import { LiveMerge } from './live-merge.js';

/**
 * The live state of the runs this window knows: the active runs (read once at start and after a
 * stream reset) and every run the live stream touches. It never loads the history: screens ask
 * the server for what they show (runs-view.ts for the Runs table) and patch it from here through
 * `onRunsChanged`.
 *
 * This file is the store screens hold: its snapshot (useSyncExternalStore), the stream's
 * connection and the reads of the active runs. The rows it keeps are known-runs.ts's; the live
 * events are merged into them, exactly once per run, by live-merge.ts. Delivery is batched: one
 * store update per animation frame.
 */

type LoadPhase = 'loading' | 'ready' | 'error';

export interface RunsSnapshot {
  /** Bumped on every change: memoize derived views on it. */
  version: number;
  phase: LoadPhase;
  error: string | null;
  /** The runs known live (active ones and those the stream touched); mutated in place, read with `version`. */
  runs: ReadonlyMap<string, RunSummary>;
  /** `errorOccurred` events received live so far: views of errors refresh when it moves. */
  liveErrors: number;
  /** Runs seen ending live so far (endedStatusOf: agent sessions gone quiet included): per-flow figures refresh when it moves. */
  liveEndings: number;
  /**
   * 'live' once the stream is connected and, after an outage, the window's data re-read;
   * 'reconnecting' while it is down; 'catching-up' between the two.
   */
  connection: Connection;
  /** Wall time the stream dropped at (null while live). */
  downSince: number | null;
  /** Wall time the last live event arrived (null before the first). */
  lastEventAt: number | null;
  /** Bumped when the stream could not resume without a gap: views re-read what they show. */
  resets: number;
}

export interface RunsStoreOptions {
  scheduler?: FrameScheduler;
  /** How many terminal runs to remember before forgetting the oldest (default 2,000). */
  maxKnown?: number;
  /** Wall clock for the staleness check. */
  now?: () => number;
}

type RunEventsListener = (events: readonly HivewatchEvent[]) => void; /** The ids whose summary changed since the last call (coalesced per notification). */
export type RunsChangedListener = (runIds: ReadonlySet<string>) => void;

/** Active runs read at start: a window shows at most this many as active. */
const ACTIVE_LIMIT = 500;
const ACTIVE_STATUSES = ['queued', 'running', 'cancelling'] as const;
/** After an outage, a re-read that failed while the stream is up is tried again this much later. */
const RECOVER_RETRY_MS = 1_000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class RunsStore {
  private readonly rows: KnownRuns;
  private readonly merge: LiveMerge;
  private readonly listeners = new Set<() => void>();
  private readonly liveListeners = new Set<(batch: readonly LiveEvent[]) => void>();
  private readonly alertListeners = new Set<(change: AlertDeliveryChange) => void>();
  private readonly batcher: FrameBatcher<LiveEvent>;
  private readonly changeListeners = new Set<RunsChangedListener>();
  private readonly now: () => number;
  private snapshot: RunsSnapshot;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  private notifyScheduled = false;
  private readonly scheduler: FrameScheduler;

  constructor(
    private readonly api: HivewatchApi,
    options: RunsStoreOptions = {},
  ) {
    this.scheduler = options.scheduler ?? defaultScheduler();
    this.batcher = createFrameBatcher((items) => this.ingest(items), this.scheduler);
    this.now = options.now ?? Date.now;
    this.rows = new KnownRuns(options.maxKnown ?? 2_000);
    this.merge = new LiveMerge({ api, rows: this.rows, now: this.now, notify: () => this.notify(), stopped: () => this.stopped });
    this.snapshot = {
      version: 0,
      phase: 'loading',
      error: null,
      runs: this.rows.summaries,
      liveErrors: 0,
      liveEndings: 0,
      connection: 'connecting',
      downSince: null,
      lastEventAt: null,
      resets: 0,
    };
  }

  // ---- React binding (useSyncExternalStore) ------------------------------------------------

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): RunsSnapshot => this.snapshot;

  /** In-order, exactly-once events of one run, as they are applied (for the run detail view). */
  onRunEvents(runId: string, listener: RunEventsListener): () => void {
    return this.merge.onRunEvents(runId, listener);
  }

  /** Called (at most once per frame) with the runs whose summary changed. */
  onRunsChanged(listener: RunsChangedListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Every batch of the live stream as it arrives (new events only, never the history a load
   * reads): the failure alerts count and notify from it without a second connection.
   */
  onLiveEvents(listener: (batch: readonly LiveEvent[]) => void): () => void {
    this.liveListeners.add(listener);
    return () => this.liveListeners.delete(listener);
  }

  /**
   * Whenever the host says its alert deliveries changed, and once the stream is back after an
   * outage as if everything had (what was said meanwhile is lost): the delivery log and the
   * desktop notifier read again then.
   */
  onAlertDeliveries(listener: (change: AlertDeliveryChange) => void): () => void {
    this.alertListeners.add(listener);
    return () => this.alertListeners.delete(listener);
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  /** Subscribes first (events during the load are kept), then reads the active runs. */
  start(): void {
    this.stopped = false;
    this.unsubscribe = this.api.subscribe(
      (batch) => {
        for (const listener of this.liveListeners) listener(batch);
        this.batcher.pushAll(batch);
      },
      {
        onAlertDeliveries: (change) => this.tellAlerts(change),
        onReady: () => {
          // Back after an outage: "Live" only once the window's data is current again.
          if (this.snapshot.connection === 'reconnecting') {
            void this.recover();
            this.tellAlerts({ desktop: true });
          } else if (this.snapshot.connection === 'connecting') this.update({ connection: 'live', downSince: null });
        },
        onDisconnect: () => {
          if (this.snapshot.connection === 'reconnecting') return;
          // Dropped again while catching up: the outage goes on from when it began.
          this.update({ connection: 'reconnecting', downSince: this.snapshot.connection === 'catching-up' ? this.snapshot.downSince : this.now() });
        },
        onReset: () => {
          // Events were lost between the last one delivered and now: apply what was queued, then
          // re-read the list and every active run (their sequencers move to the fresh positions).
          // After an outage the `ready` that follows does that once (recover).
          this.batcher.flushNow();
          if (this.snapshot.connection !== 'live') return;
          this.update({ resets: this.snapshot.resets + 1 });
          void this.resync();
        },
      },
    );
    void this.load();
  }

  private tellAlerts(change: AlertDeliveryChange): void {
    for (const listener of this.alertListeners) listener(change);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.batcher.dispose();
  }

  /** Re-reads the active runs (some may have started while disconnected) and their positions. */
  async resync(): Promise<void> {
    await this.load();
  }

  /**
   * The stream is back after an outage: the badge says "Reconnecting…" (catching up) while the
   * active runs are re-read, then "Live", and `resets` tells every screen to re-read what it
   * shows (a screen left on an error by the outage recovers by itself). A failed re-read is
   * tried again while the stream stays up.
   */
  private async recover(): Promise<void> {
    this.update({ connection: 'catching-up' });
    while (!this.stopped && this.snapshot.connection === 'catching-up') {
      if (await this.load()) {
        if (this.snapshot.connection === 'catching-up') this.update({ connection: 'live', downSince: null, resets: this.snapshot.resets + 1 });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, RECOVER_RETRY_MS));
    }
  }

  /** Reads the active runs; false when the server did not answer. */
  async load(): Promise<boolean> {
    this.update({ phase: this.rows.summaries.size > 0 ? 'ready' : 'loading', error: null });
    this.merge.listingStarted();
    try {
      const page = await this.api.listRuns({ status: [...ACTIVE_STATUSES], sort: '-started', limit: ACTIVE_LIMIT });
      if (this.stopped) return false;
      // A listed run is followed from the position the list read it at; one listed without a
      // position, and one we show as active that is no longer listed as such (it ended while we
      // were away), is re-read.
      const positioned = new Set<string>();
      for (const summary of page.items) {
        if (this.merge.adopt(summary)) positioned.add(summary.id);
        else this.rows.adopt(summary);
      }
      this.update({ phase: 'ready' });
      const listed = new Set(page.items.map((r) => r.id));
      for (const [id, summary] of this.rows.summaries) {
        if (positioned.has(id)) continue;
        if (listed.has(id) || isActive(summary.status)) void this.merge.refresh(id);
      }
      return true;
    } catch (error) {
      if (this.rows.summaries.size === 0) this.update({ phase: 'error', error: message(error) });
      return false;
    } finally {
      this.merge.listed();
    }
  }

  /** Checks active runs that have been quiet for `quietMs`: an event lost on the way is re-read. */
  checkQuietRuns(quietMs = 10_000): void {
    const now = this.now();
    for (const [id, summary] of this.rows.summaries) {
      if (!isActive(summary.status) || now - this.rows.lastHeard(id) < quietMs) continue;
      this.rows.heard(id, now);
      if (this.rows.sequencers.has(id)) void this.merge.catchUp(id);
      else void this.merge.refresh(id);
    }
  }

  /** Shows `cancelling` at once, before the command's events arrive (optimistic). */
  markCancelling(runIds: readonly string[]): void {
    for (const id of runIds) {
      const current = this.rows.get(id);
      if (!current || !isActive(current.summary.status) || current.summary.status === 'cancelling') continue;
      this.rows.put(id, { ...current, summary: { ...current.summary, status: 'cancelling' } });
    }
    this.notify();
  }

  /** Re-reads runs whose optimistic state the server refused. */
  revert(runIds: readonly string[]): void {
    for (const id of runIds) void this.merge.refresh(id, true);
  }

  // ---- ingest ------------------------------------------------------------------------------

  private ingest(batch: readonly LiveEvent[]): void {
    const byRun = new Map<string, HivewatchEvent[]>();
    for (const { event } of batch) {
      let list = byRun.get(event.runId);
      if (!list) byRun.set(event.runId, (list = []));
      list.push(event);
    }
    const now = this.now();
    let errors = 0;
    let endings = 0;
    for (const { event } of batch) {
      if (event.type === 'errorOccurred') errors++;
      else if (endedStatusOf(event) !== null) endings++;
    }
    this.snapshot = { ...this.snapshot, lastEventAt: now, liveErrors: this.snapshot.liveErrors + errors, liveEndings: this.snapshot.liveEndings + endings };
    for (const [runId, events] of byRun) {
      this.rows.heard(runId, now);
      this.merge.offer(runId, events);
    }
    this.notify();
  }

  // ---- snapshot ----------------------------------------------------------------------------

  private update(patch: Partial<Omit<RunsSnapshot, 'version' | 'runs'>>): void {
    this.snapshot = { ...this.snapshot, ...patch, version: this.snapshot.version + 1 };
    const changed = this.rows.takeChanged();
    if (changed) {
      for (const listener of this.changeListeners) listener(changed);
      this.rows.forgetOld((id) => this.merge.busy(id));
    }
    for (const listener of this.listeners) listener();
  }

  /** Coalesced: async completions inside one frame notify once. */
  private notify(): void {
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    queueMicrotask(() => {
      this.notifyScheduled = false;
      this.update({});
    });
  }
}
