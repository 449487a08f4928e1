import type { HivewatchEvent } from '../engine/events.js';
import type { HivewatchStore } from '../store/index.js';
import type { LiveEvent } from './api.js';

/**
 * The service's view of the journal: every event any process commits to the database, exactly
 * once, in commit order, with its commit position as id (issue #11).
 *
 * - This process's commits arrive through `store.subscribe` with their positions and are
 *   published at once (no read back) when they follow the cursor.
 * - Other processes' commits are found by one global probe: `PRAGMA data_version` changes when
 *   another connection committed. Only then is the journal read, after the cursor, in batches.
 *   The same probe tells the service to look for run commands addressed to it.
 * - When this process's batch does not follow the cursor (another process committed in
 *   between and the probe has not run yet), everything after the cursor is read from the
 *   journal instead, which includes the batch: order is always the journal's.
 */

export const DEFAULT_TAIL_INTERVAL_MS = 50;
const TAIL_BATCH = 1_000;

/** Runs `tick` every `ms` until stopped; the timer must not keep the process alive. */
export type TailScheduler = (tick: () => void, ms: number) => () => void;

export const intervalScheduler: TailScheduler = (tick, ms) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface JournalTailOptions {
  store: HivewatchStore;
  /** Receives committed events in commit order; `firstId` is the commit position of `events[0]`. */
  publish: (events: readonly HivewatchEvent[], firstId: number) => void;
  /** Called after the probe saw another connection commit (after publishing what it read). */
  onForeignCommit?: () => void;
  intervalMs?: number;
  scheduler?: TailScheduler;
}

export class JournalTail {
  private cursor: number;
  private version: number;
  private readonly stopTimer: () => void;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(private readonly options: JournalTailOptions) {
    const { store } = options;
    this.cursor = store.journalHead();
    this.version = store.dataVersion();
    this.unsubscribe = store.subscribe((events, _walls, commitSeqs) => this.onOwnCommit(events, commitSeqs));
    this.stopTimer = (options.scheduler ?? intervalScheduler)(() => this.probe(), options.intervalMs ?? DEFAULT_TAIL_INTERVAL_MS);
  }

  /** The commit position of the last event published. */
  get position(): number {
    return this.cursor;
  }

  /** Reads what other connections committed since the last probe; true when anything changed. */
  probe(): boolean {
    if (this.stopped) return false;
    let version: number;
    try {
      version = this.options.store.dataVersion();
    } catch {
      return false; // the store closed under us: the service is shutting down
    }
    if (version === this.version) return false;
    this.version = version;
    this.catchUp();
    this.options.onForeignCommit?.();
    return true;
  }

  private onOwnCommit(events: readonly HivewatchEvent[], commitSeqs: readonly number[]): void {
    if (this.stopped || events.length === 0) return;
    const first = commitSeqs[0];
    if (first === undefined || commitSeqs.length !== events.length) {
      this.catchUp();
      return;
    }
    if (first === this.cursor + 1) {
      this.cursor = first + events.length - 1;
      this.options.publish(events, first);
      return;
    }
    // Already read back by a catch-up (a batch committed inside a read), or another process
    // committed in between: the journal has the order.
    if (first > this.cursor) this.catchUp();
  }

  /**
   * Publishes everything committed after the cursor, in batches. A position can be missing only
   * when prune deleted it (a reader sees whole transactions, and positions are taken in commit
   * order), so a jump is published as such and the live ring restarts after it.
   */
  catchUp(): void {
    for (;;) {
      const page = this.options.store.eventsAfterCommit(this.cursor, TAIL_BATCH);
      let start = 0;
      for (let i = 1; i <= page.length; i++) {
        const at = page[i];
        if (at !== undefined && at.commitSeq === (page[i - 1] as { commitSeq: number }).commitSeq + 1) continue;
        const first = (page[start] as { commitSeq: number }).commitSeq;
        this.cursor = first + (i - start) - 1;
        this.options.publish(page.slice(start, i).map((c) => c.event), first);
        start = i;
      }
      if (page.length < TAIL_BATCH) return;
    }
  }

  /** The journal's events with positions in (afterId, upToId], for a resume older than the live ring. */
  read(afterId: number, upToId: number): LiveEvent[] {
    const out: LiveEvent[] = [];
    let after = afterId;
    while (after < upToId) {
      const page = this.options.store.eventsAfterCommit(after, Math.min(TAIL_BATCH, upToId - after));
      if (page.length === 0) break;
      for (const c of page) if (c.commitSeq <= upToId) out.push({ id: c.commitSeq, event: c.event });
      after = (page[page.length - 1] as { commitSeq: number }).commitSeq;
    }
    return out;
  }

  stop(): void {
    this.stopped = true;
    this.stopTimer();
    this.unsubscribe();
  }
}
