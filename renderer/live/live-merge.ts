import type { HivewatchApi, HivewatchEvent, RunSummary } from '../../core/service/api.js';
import { spawnOf } from '../../core/common/run-fields.js';
import type { KnownRuns } from './known-runs.js';
import { applyToLiveRun, backoffsOf } from './run-summary.js';
import { RunSequencer } from './sequencer.js';

/**
 * Merges the live stream's events into the known runs exactly once and in seq order per run:
 * each run has a sequencer at its last applied seq; a hole is filled from getEvents(afterSeq),
 * and a run whose position is unknown is re-read with getRun (which carries lastSeq) first, the
 * events that came meanwhile held until then. A run listed with its position (listRuns' lastSeq)
 * is followed from that position at once.
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
  /** The active runs are being listed: what the list gives a position is not read again. */
  private listing = false;

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
      if (!this.listing) void this.refresh(runId);
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

  /**
   * While the active runs are listed, the events of a run with no position are held, not read
   * for: the list gives most of them their position (`adopt`). Under an agent's telemetry the
   * events come before the list does, and reading each session's detail then is what `adopt`
   * saves. `listed` ends it: a run still held (one the list did not give) is read then.
   */
  listingStarted(): void {
    this.listing = true;
  }

  listed(): void {
    this.listing = false;
    if (this.host.stopped()) return;
    for (const runId of this.held.keys()) void this.refresh(runId);
  }

  /**
   * A summary read with its journal position (listRuns carries it): the run is followed from
   * there, with no read of its detail, which for a long agent session holds tens of thousands of
   * attempts. False when the summary has no position (then `refresh` reads one).
   */
  adopt(summary: RunSummary): boolean {
    if (summary.lastSeq === undefined) return false;
    this.takeSnapshot(summary, summary.lastSeq, false);
    return true;
  }

  /** Reads a run's snapshot and position, then applies the events held for it after that seq. */
  async refresh(runId: string, force = false): Promise<void> {
    if (this.refreshing.has(runId)) return;
    this.refreshing.add(runId);
    try {
      const detail = await this.host.api.getRun({ runId });
      if (this.host.stopped()) return;
      if (!detail) return;
      if (this.takeSnapshot(detail.run, detail.lastSeq, force)) this.host.notify();
    } catch {
      // The next event or the quiet-run check tries again.
    } finally {
      this.refreshing.delete(runId);
    }
  }

  /**
   * Shows `summary` and follows the run from `lastSeq`, then applies the events held for it after
   * that seq; unless the run is already followed at or past it (`force`: taken anyway, after a
   * refused command). True when taken.
   */
  private takeSnapshot(summary: RunSummary, lastSeq: number, force: boolean): boolean {
    const { rows } = this.host;
    const known = rows.sequencers.get(summary.id);
    if (known && known.last >= lastSeq && !force) return false;
    const sequencer = new RunSequencer(lastSeq);
    rows.sequencers.set(summary.id, sequencer);
    // The position is the sequencer's from here; a copy on the live row would go stale.
    const { lastSeq: _read, ...live } = summary;
    rows.put(summary.id, { summary: live, backoffs: backoffsOf(live) });
    const held = this.held.get(summary.id) ?? [];
    this.held.delete(summary.id);
    this.apply(summary.id, sequencer.offer(held));
    if (sequencer.hasGap) void this.catchUp(summary.id);
    return true;
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
