import type { RunSummary } from '../../core/service/api.js';
import { isActive } from '../../core/common/run-statuses.js';
import { backoffsOf, type LiveRun } from './run-summary.js';
import type { RunSequencer } from './sequencer.js';

/**
 * The rows of the runs this window knows live: each run's summary (what the screens read), the
 * live state behind it (run-summary.ts), its sequencer (its last applied seq, live-merge.ts) and
 * when it was last heard from. Known terminal runs beyond `maxKnown` are forgotten, oldest
 * first, so memory stays bounded however long the window stays open.
 */
export class KnownRuns {
  /** Mutated in place: the snapshot hands this map out and bumps its version on every change. */
  readonly summaries = new Map<string, RunSummary>();
  readonly sequencers = new Map<string, RunSequencer>();
  private readonly live = new Map<string, LiveRun>();
  private readonly heardAt = new Map<string, number>();
  private changed = new Set<string>();

  constructor(private readonly maxKnown: number) {}

  has(runId: string): boolean {
    return this.summaries.has(runId);
  }

  get(runId: string): LiveRun | undefined {
    return this.live.get(runId);
  }

  put(runId: string, live: LiveRun): void {
    this.live.set(runId, live);
    this.summaries.set(runId, live.summary);
    this.changed.add(runId);
  }

  /** A summary the server read: taken unless the run is already followed live from a known position. */
  adopt(summary: RunSummary): void {
    if (this.sequencers.has(summary.id) && this.live.has(summary.id)) return;
    this.put(summary.id, { summary, backoffs: backoffsOf(summary) });
  }

  heard(runId: string, at: number): void {
    this.heardAt.set(runId, at);
  }

  /** When the run's last event arrived (0: never). */
  lastHeard(runId: string): number {
    return this.heardAt.get(runId) ?? 0;
  }

  /** The ids whose summary changed since the last call; null when none did. */
  takeChanged(): ReadonlySet<string> | null {
    if (this.changed.size === 0) return null;
    const changed = this.changed;
    this.changed = new Set();
    return changed;
  }

  /** Forgets the oldest terminal runs beyond `maxKnown` (insertion order is first-known order), never a busy one. */
  forgetOld(busy: (runId: string) => boolean): void {
    let excess = this.summaries.size - this.maxKnown;
    if (excess <= 0) return;
    for (const [id, summary] of this.summaries) {
      if (excess <= 0) break;
      if (isActive(summary.status) || busy(id)) continue;
      this.summaries.delete(id);
      this.live.delete(id);
      this.sequencers.delete(id);
      this.heardAt.delete(id);
      excess--;
    }
  }
}
