import type { HivewatchApi, HivewatchEvent } from '../../core/service/api.js';
import { spawnOf } from '../../core/common/run-fields.js';
import type { KnownRuns } from './known-runs.js';
import { applyToLiveRun, backoffsOf } from './run-summary.js';
import { RunSequencer } from './sequencer.js';

/**
 * Merges the live stream's events into the known runs exactly once and in seq order per run:
 * each run has a sequencer at its last applied seq; a hole is filled from getEvents(afterSeq),
 * and a run whose position is unknown is re-read with getRun (which carries lastSeq) first, the
 * events that came meanwhile held until then.
 */

type RunEventsListener = (events: readonly HivewatchEvent[]) => void;

export interface LiveMergeHost {
  api: HivewatchApi;
  rows: KnownRuns;
  now: () => number;
  /** Something changed outside a frame's batch (a read came back): notify once, coalesced. */
  notify: () => void;
  stopped: () => boolean;
}

/** How many journal events one catch-up read asks for. */
const CATCH_UP_PAGE = 1_000;

export class LiveMerge {
  /** Events of runs whose position is being read (getRun in flight). */
  private readonly held = new Map<string, HivewatchEvent[]>();
  private readonly refreshing = new Set<string>();
  private readonly catchingUp = new Set<string>();
  private readonly runListeners = new Map<string, Set<RunEventsListener>>();

  constructor(private readonly host: LiveMergeHost) {}

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

  /** A run someone watches or a read is in flight for: not to be forgotten. */
  busy(runId: string): boolean {
    return this.runListeners.has(runId) || this.refreshing.has(runId) || this.catchingUp.has(runId);
  }

  /** Live events of one run, in arrival order. */
  offer(runId: string, events: readonly HivewatchEvent[]): void {
    const { rows } = this.host;
    let sequencer = rows.sequencers.get(runId);
    if (!sequencer && !rows.has(runId) && events.some((e) => e.seq === 1)) {
      sequencer = new RunSequencer(0);
      rows.sequencers.set(runId, sequencer);
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
    const { rows } = this.host;
    let live = rows.get(runId);
    const receivedAt = this.host.now();
    for (const event of events) live = applyToLiveRun(live, event, receivedAt);
    if (live) rows.put(runId, live);
    // A subagent's run started, or a run's parent was named: its parent's count of subagents is the server's to say (re-read).
    for (const event of events) {
      const parent = spawnOf(event)?.runId;
      if (parent !== undefined && rows.has(parent)) void this.refresh(parent, true);
    }
    const listeners = this.runListeners.get(runId);
    if (listeners) for (const listener of listeners) listener(events);
  }

  /** Reads a run's snapshot and position, then applies the events held for it after that seq. */
  async refresh(runId: string, force = false): Promise<void> {
    if (this.refreshing.has(runId)) return;
    this.refreshing.add(runId);
    const { api, rows } = this.host;
    try {
      const detail = await api.getRun({ runId });
      if (this.host.stopped()) return;
      if (!detail) return;
      const known = rows.sequencers.get(runId);
      if (known && known.last >= detail.lastSeq && !force) return;
      const sequencer = new RunSequencer(detail.lastSeq);
      rows.sequencers.set(runId, sequencer);
      rows.put(runId, { summary: detail.run, backoffs: backoffsOf(detail.run) });
      const held = this.held.get(runId) ?? [];
      this.held.delete(runId);
      this.apply(runId, sequencer.offer(held));
      if (sequencer.hasGap) void this.catchUp(runId);
      this.host.notify();
    } catch {
      // The next event or the quiet-run check tries again.
    } finally {
      this.refreshing.delete(runId);
    }
  }

  /** Fills a hole after the sequencer's position from the journal. */
  async catchUp(runId: string): Promise<void> {
    if (this.catchingUp.has(runId)) return;
    this.catchingUp.add(runId);
    try {
      for (;;) {
        const sequencer = this.host.rows.sequencers.get(runId);
        if (!sequencer) return;
        const events = await this.host.api.getEvents({ runId, afterSeq: sequencer.last, limit: CATCH_UP_PAGE });
        if (this.host.stopped()) return;
        this.apply(runId, sequencer.offer(events));
        this.host.notify();
        if (events.length < CATCH_UP_PAGE || !sequencer.hasGap) return;
      }
    } catch {
      // Retried on the next event or quiet-run check.
    } finally {
      this.catchingUp.delete(runId);
    }
  }
}
