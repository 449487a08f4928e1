import type { HivewatchApi, HivewatchEvent, LiveEvent, RunSummary } from '../../core/service/api.js';
import { createFrameBatcher, defaultScheduler, type FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { isActive } from '../../core/common/run-statuses.js';
import { applyToLiveRun, backoffsOf, type LiveRun } from './run-summary.js';
import type { Connection } from './connection.js';
import { RunSequencer } from './sequencer.js';

/**
 * The live state of the runs this window knows: the active runs (read once at start and after a
 * stream reset) and every run the live stream touches. It never loads the history: screens ask
 * the server for what they show (runs-view.ts for the Runs table) and patch it from here through
 * `onRunsChanged`. Known terminal runs beyond `maxKnown` are forgotten, oldest first, so memory
 * stays bounded however long the window stays open.
 *
 * Live state is kept current from the stream. Delivery is batched (one store update per animation frame) and exactly-once per run:
 * each run has a sequencer at its last applied seq; a hole is filled from getEvents(afterSeq),
 * a run whose position is unknown is re-read with getRun (which carries lastSeq) first.
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

type RunEventsListener = (events: readonly HivewatchEvent[]) => void;
/** The ids whose summary changed since the last call (coalesced per notification). */
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
  private readonly live = new Map<string, LiveRun>();
  private readonly summaries = new Map<string, RunSummary>();
  private readonly sequencers = new Map<string, RunSequencer>();
  /** Events of runs whose position is being read (getRun in flight). */
  private readonly held = new Map<string, HivewatchEvent[]>();
  private readonly refreshing = new Set<string>();
  private readonly catchingUp = new Set<string>();
  private readonly lastEventAt = new Map<string, number>();
  private readonly runListeners = new Map<string, Set<RunEventsListener>>();
  private readonly listeners = new Set<() => void>();
  private readonly liveListeners = new Set<(batch: readonly LiveEvent[]) => void>();
  private readonly batcher: FrameBatcher<LiveEvent>;
  private readonly changeListeners = new Set<RunsChangedListener>();
  private changed = new Set<string>();
  private readonly maxKnown: number;
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
    this.maxKnown = options.maxKnown ?? 2_000;
    this.now = options.now ?? Date.now;
    this.snapshot = {
      version: 0,
      phase: 'loading',
      error: null,
      runs: this.summaries,
      liveErrors: 0,
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
    let set = this.runListeners.get(runId);
    if (!set) this.runListeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.runListeners.delete(runId);
    };
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
        onReady: () => {
          // Back after an outage: "Live" only once the window's data is current again.
          if (this.snapshot.connection === 'reconnecting') void this.recover();
          else if (this.snapshot.connection === 'connecting') this.update({ connection: 'live', downSince: null });
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
    this.update({ phase: this.summaries.size > 0 ? 'ready' : 'loading', error: null });
    try {
      const page = await this.api.listRuns({ status: [...ACTIVE_STATUSES], sort: '-started', limit: ACTIVE_LIMIT });
      if (this.stopped) return false;
      for (const summary of page.items) this.adoptListed(summary);
      this.update({ phase: 'ready' });
      // A run we show as active that is no longer listed as such ended while we were away.
      const listed = new Set(page.items.map((r) => r.id));
      for (const [id, summary] of this.summaries) if (listed.has(id) || isActive(summary.status)) void this.refresh(id);
      return true;
    } catch (error) {
      if (this.summaries.size === 0) this.update({ phase: 'error', error: message(error) });
      return false;
    }
  }

  /** Checks active runs that have been quiet for `quietMs`: an event lost on the way is re-read. */
  checkQuietRuns(quietMs = 10_000): void {
    const now = this.now();
    for (const [id, summary] of this.summaries) {
      if (!isActive(summary.status) || now - (this.lastEventAt.get(id) ?? 0) < quietMs) continue;
      this.lastEventAt.set(id, now);
      if (this.sequencers.has(id)) void this.catchUp(id);
      else void this.refresh(id);
    }
  }

  /** Shows `cancelling` at once, before the command's events arrive (optimistic). */
  markCancelling(runIds: readonly string[]): void {
    for (const id of runIds) {
      const current = this.live.get(id);
      if (!current || !isActive(current.summary.status) || current.summary.status === 'cancelling') continue;
      this.put(id, { ...current, summary: { ...current.summary, status: 'cancelling' } });
    }
    this.notify();
  }

  /** Re-reads runs whose optimistic state the server refused. */
  revert(runIds: readonly string[]): void {
    for (const id of runIds) void this.refresh(id, true);
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
    for (const { event } of batch) if (event.type === 'errorOccurred') errors++;
    this.snapshot = { ...this.snapshot, lastEventAt: now, liveErrors: this.snapshot.liveErrors + errors };
    for (const [runId, events] of byRun) {
      this.lastEventAt.set(runId, now);
      this.offer(runId, events);
    }
    this.notify();
  }

  private offer(runId: string, events: readonly HivewatchEvent[]): void {
    let sequencer = this.sequencers.get(runId);
    if (!sequencer && !this.summaries.has(runId) && events.some((e) => e.seq === 1)) {
      sequencer = new RunSequencer(0);
      this.sequencers.set(runId, sequencer);
    }
    if (!sequencer) {
      const held = this.held.get(runId) ?? [];
      held.push(...events);
      this.held.set(runId, held);
      void this.refresh(runId);
      return;
    }
    this.apply(runId, sequencer.offer(events));
    if (sequencer.hasGap) void this.catchUp(runId);
  }

  private apply(runId: string, events: readonly HivewatchEvent[]): void {
    if (events.length === 0) return;
    let live = this.live.get(runId);
    const receivedAt = this.now();
    for (const event of events) live = applyToLiveRun(live, event, receivedAt);
    if (live) this.put(runId, live);
    // A subagent's run started, or a run's parent was named: its parent's count of subagents is the server's to say (re-read).
    for (const event of events) {
      const parent = event.type === 'runStarted' ? event.external?.spawnedBy?.runId : event.type === 'externalRunSpawned' ? event.spawnedBy.runId : undefined;
      if (parent !== undefined && this.summaries.has(parent)) void this.refresh(parent, true);
    }
    const listeners = this.runListeners.get(runId);
    if (listeners) for (const listener of listeners) listener(events);
  }

  private put(runId: string, live: LiveRun): void {
    this.live.set(runId, live);
    this.summaries.set(runId, live.summary);
    this.changed.add(runId);
  }

  /** Forgets the oldest terminal runs beyond `maxKnown` (insertion order is first-known order). */
  private forgetOld(): void {
    let excess = this.summaries.size - this.maxKnown;
    if (excess <= 0) return;
    for (const [id, summary] of this.summaries) {
      if (excess <= 0) break;
      if (isActive(summary.status) || this.runListeners.has(id) || this.refreshing.has(id) || this.catchingUp.has(id)) continue;
      this.summaries.delete(id);
      this.live.delete(id);
      this.sequencers.delete(id);
      this.lastEventAt.delete(id);
      excess--;
    }
  }

  private adoptListed(summary: RunSummary): void {
    if (this.sequencers.has(summary.id) && this.live.has(summary.id)) return;
    this.put(summary.id, { summary, backoffs: backoffsOf(summary) });
  }

  /** Reads a run's snapshot and position, then applies the events held for it after that seq. */
  private async refresh(runId: string, force = false): Promise<void> {
    if (this.refreshing.has(runId)) return;
    this.refreshing.add(runId);
    try {
      const detail = await this.api.getRun({ runId });
      if (this.stopped) return;
      if (!detail) return;
      const known = this.sequencers.get(runId);
      if (known && known.last >= detail.lastSeq && !force) return;
      const sequencer = new RunSequencer(detail.lastSeq);
      this.sequencers.set(runId, sequencer);
      this.put(runId, { summary: detail.run, backoffs: backoffsOf(detail.run) });
      const held = this.held.get(runId) ?? [];
      this.held.delete(runId);
      this.apply(runId, sequencer.offer(held));
      if (sequencer.hasGap) void this.catchUp(runId);
      this.notify();
    } catch {
      // The next event or the quiet-run check tries again.
    } finally {
      this.refreshing.delete(runId);
    }
  }

  /** Fills a hole after the sequencer's position from the journal. */
  private async catchUp(runId: string): Promise<void> {
    if (this.catchingUp.has(runId)) return;
    this.catchingUp.add(runId);
    try {
      for (;;) {
        const sequencer = this.sequencers.get(runId);
        if (!sequencer) return;
        const events = await this.api.getEvents({ runId, afterSeq: sequencer.last, limit: 1_000 });
        if (this.stopped) return;
        this.apply(runId, sequencer.offer(events));
        this.notify();
        if (events.length < 1_000 || !sequencer.hasGap) return;
      }
    } catch {
      // Retried on the next event or quiet-run check.
    } finally {
      this.catchingUp.delete(runId);
    }
  }

  // ---- snapshot ----------------------------------------------------------------------------

  private update(patch: Partial<Omit<RunsSnapshot, 'version' | 'runs'>>): void {
    this.snapshot = { ...this.snapshot, ...patch, version: this.snapshot.version + 1 };
    if (this.changed.size > 0) {
      const changed = this.changed;
      this.changed = new Set();
      for (const listener of this.changeListeners) listener(changed);
      this.forgetOld();
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
