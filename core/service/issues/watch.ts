import { fingerprintOf } from '../../store/projection/fingerprint.js';
import type { HivewatchStore } from '../../store/index.js';
import type { IssueBook } from './book.js';

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
 * journaled). A batch's pass looks at the issues its errors belong to; the minute's at all of them.
 * Passes never overlap: what is asked for during a pass is gathered into the next one. A pass
 * that fails (the database away) is reported and the next one tries again.
 */
export class IssueWatch {
  private running: Promise<void> | null = null;
  /** What the next pass looks at: these fingerprints, every issue, or nothing asked yet. */
  private next: Set<string> | 'all' | null = null;
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly book: IssueBook,
    private readonly report: (error: unknown) => void,
  ) {}

  start(store: HivewatchStore, options: { intervalMs?: number; scheduler?: IssueWatchScheduler } = {}): void {
    this.stops.push(
      store.subscribe((events) => {
        const touched = new Set<string>();
        for (const e of events)
          if (e.type === 'errorOccurred') touched.add(fingerprintOf(e.error.category, e.error.code, e.error.origin, e.error.message).fingerprint);
        if (touched.size > 0) void this.check(touched);
      }),
    );
    this.stops.push((options.scheduler ?? realScheduler).every(options.intervalMs ?? 60_000, () => void this.check()));
  }

  /** A pass over these issues (all when absent) now, or after the running one; resolves when it is done. */
  check(fingerprints?: ReadonlySet<string>): Promise<void> {
    if (fingerprints === undefined || this.next === 'all') this.next = 'all';
    else this.next = new Set([...(this.next ?? []), ...fingerprints]);
    if (this.running) return this.running;
    this.running = (async () => {
      while (this.next !== null) {
        const only = this.next;
        this.next = null;
        await this.book.reconcile(only === 'all' ? undefined : [...only]).catch(this.report);
      }
      this.running = null;
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    await this.running;
  }
}
