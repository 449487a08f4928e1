import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/index.js';
import type { LiveEvent } from '../api.js';

/**
 * The service's view of the journal: every event any process commits to the database, exactly
 * once, in commit order, with its commit position as id.
 *
 * - This process's commits arrive through `store.subscribe` with their positions and are
 *   published at once (no read back) when they follow the cursor.
 * - Other processes' commits are found by one global probe of the store's change token (SQLite:
 *   `PRAGMA data_version`; PostgreSQL: the journal head and the newest command), and at once where
 *   the engine pushes them (PostgreSQL NOTIFY). Only then is the journal read, after the cursor.
 *   The same probe tells the service to look for run commands addressed to it.
 * - When this process's batch does not follow the cursor (another process committed in
 *   between and the probe has not run yet), everything after the cursor is read from the
 *   journal instead, which includes the batch: order is always the journal's.
 */

const DEFAULT_TAIL_INTERVAL_MS = 50;
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

/** The journal head and change token a tail starts from. */
export interface TailStart {
  head: number;
  token: string;
}

/** The journal's events with positions in (afterId, upToId], for a resume older than the live ring. */
export async function readCommitted(store: HivewatchStore, afterId: number, upToId: number): Promise<LiveEvent[]> {
  const out: LiveEvent[] = [];
  let after = afterId;
  while (after < upToId) {
    const page = await store.eventsAfterCommit(after, Math.min(TAIL_BATCH, upToId - after));
    if (page.length === 0) break;
    for (const c of page) if (c.commitSeq <= upToId) out.push({ id: c.commitSeq, event: c.event });
    after = (page[page.length - 1] as { commitSeq: number }).commitSeq;
  }
  return out;
}

export class JournalTail {
  private token: string;
  private readonly stopTimer: () => void;
  private readonly stopWatching: () => void;
  private readonly unsubscribe: () => void;
  private stopped = false;
  /** The catch-up in progress (one at a time), and whether another was asked for meanwhile. */
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private probing: Promise<boolean> | null = null;

  /**
   * Where the journal is now: read before the live hub is made, so the hub starts at the head
   * the tail will follow from, and the tail starts (`follow`) only once its `publish` has somewhere
   * to go. A commit delivered while the tail starts (this process's subscription, a NOTIFY) is then
   * published into the hub instead of being skipped past.
   */
  static async startingPoint(store: HivewatchStore): Promise<TailStart> {
    const head = await store.journalHead();
    const token = await store.changeToken();
    return { head, token };
  }

  /** Starts following the journal from `start` (synchronously: `publish` may be called at once). */
  static follow(options: JournalTailOptions, start: TailStart): JournalTail {
    return new JournalTail(options, start.head, start.token);
  }

  private constructor(
    private readonly options: JournalTailOptions,
    private cursor: number,
    token: string,
  ) {
    const { store } = options;
    this.token = token;
    this.unsubscribe = store.subscribe((events, _walls, commitSeqs) => this.onOwnCommit(events, commitSeqs));
    this.stopTimer = (options.scheduler ?? intervalScheduler)(() => void this.probe(), options.intervalMs ?? DEFAULT_TAIL_INTERVAL_MS);
    // Where the engine pushes other hosts' commits (PostgreSQL NOTIFY), they are read at once.
    this.stopWatching = store.watchChanges(() => void this.probe());
  }

  /** The commit position of the last event published. */
  get position(): number {
    return this.cursor;
  }

  /** Reads what other connections committed since the last probe; true when anything changed. */
  probe(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.probing ??= this.probeOnce().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async probeOnce(): Promise<boolean> {
    let token: string;
    try {
      token = await this.options.store.changeToken();
    } catch {
      return false; // the store closed under us (shutting down), or the server is away: next tick
    }
    if (token === this.token || this.stopped) return false;
    this.token = token;
    await this.catchUp();
    this.options.onForeignCommit?.();
    return true;
  }

  private onOwnCommit(events: readonly HivewatchEvent[], commitSeqs: readonly number[]): void {
    if (this.stopped || events.length === 0) return;
    const first = commitSeqs[0];
    if (first === undefined || commitSeqs.length !== events.length) {
      void this.catchUp();
      return;
    }
    if (first === this.cursor + 1) {
      this.cursor = first + events.length - 1;
      this.options.publish(events, first);
      return;
    }
    // Already read back by a catch-up, or another process committed in between: the journal
    // has the order.
    if (first > this.cursor) void this.catchUp();
  }

  /** Publishes everything committed after the cursor (one catch-up at a time; a request meanwhile runs another). */
  catchUp(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readAfterCursor();
      } while (this.readAgain && !this.stopped);
    })()
      .catch(() => undefined) // a failed read is retried by the next probe
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  /**
   * Reads after the cursor in batches. Events this process published while the read was in
   * flight are skipped (the cursor moved past them). A position can be missing only when prune
   * deleted it (a reader sees whole transactions, and positions are taken in commit order), so
   * a jump is published as such and the live ring restarts after it.
   */
  private async readAfterCursor(): Promise<void> {
    for (;;) {
      const read = await this.options.store.eventsAfterCommit(this.cursor, TAIL_BATCH);
      if (this.stopped) return;
      const page = read.filter((c) => c.commitSeq > this.cursor);
      let start = 0;
      for (let i = 1; i <= page.length; i++) {
        const at = page[i];
        if (at !== undefined && at.commitSeq === (page[i - 1] as { commitSeq: number }).commitSeq + 1) continue;
        const first = (page[start] as { commitSeq: number }).commitSeq;
        this.cursor = first + (i - start) - 1;
        this.options.publish(
          page.slice(start, i).map((c) => c.event),
          first,
        );
        start = i;
      }
      if (read.length < TAIL_BATCH) return;
    }
  }

  /** Stops following; resolves once a catch-up in flight has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    this.stopWatching();
    this.unsubscribe();
    await this.reading;
    await this.probing;
  }
}
