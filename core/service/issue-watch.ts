import type { HivewatchStore } from '../store/index.js';
import type { IssueBook } from './issues.js';

/** Timer of the watch (tests inject one and call `check()`). */
export interface IssueWatchScheduler {
  every(ms: number, tick: () => void): () => void;
}

const realScheduler: IssueWatchScheduler = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * Keeps issues' system transitions journaled while the service runs: after every committed
 * batch with an error in it (a new issue, a regression, an ignore's count, an escalation), and
 * once a minute for what time alone brings (an ignore "for 24h" lapsing, and errors other hosts
 * journaled). Passes never overlap; one asked for during a pass runs after it. A pass that fails
 * (the database away) is reported and the next one tries again.
 */
export class IssueWatch {
  private running: Promise<void> | null = null;
  private again = false;
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly book: IssueBook,
    private readonly report: (error: unknown) => void,
  ) {}

  start(store: HivewatchStore, options: { intervalMs?: number; scheduler?: IssueWatchScheduler } = {}): void {
    this.stops.push(store.subscribe((events) => {
      if (events.some((e) => e.type === 'errorOccurred')) void this.check();
    }));
    this.stops.push((options.scheduler ?? realScheduler).every(options.intervalMs ?? 60_000, () => void this.check()));
  }

  /** One pass now (or after the running one); resolves when the passes asked for are done. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.book.reconcile().catch(this.report);
      } while (this.again);
      this.running = null;
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    await this.running;
  }
}
