import { DEFAULT_LEASE_MS } from '../../store/hosts/host-lease.js';
import type { HivewatchStore, RecoveredRun } from '../../store/index.js';
import { isStoreError } from '../../store/store-error.js';
import type { TailScheduler } from '../live/journal-tail.js';
import { intervalScheduler } from '../live/journal-tail.js';

/**
 * A live host's watch over the other hosts of its database (rule 19, docs/semantics.md
 * F9). Every `intervalMs` it runs the store's recovery, the one start-up runs: the runs of a host
 * that is gone (its process on this machine, or its lease elsewhere: core/store/hosts/host-liveness.ts)
 * become `interrupted` with SYSTEM_RUN_INTERRUPTED, their agents left on this machine are ended,
 * and the journal tail carries the events to every window. Recovery judges again under its own
 * lock, so hosts noticing together interrupt a run once; a pass that finds every host alive
 * writes nothing.
 *
 * It also looks at this host's own runs: one that the journal says another host interrupted
 * (this host was not heard from past its lease: paused, or cut off) is no longer ours, and
 * `onTaken` stops it without journaling anything more for it.
 *
 * After a pass that could not reach the database, it judges no host until it has reached the
 * database again for one lease: while the database was away no host could renew its lease, so
 * every lease on another machine reads expired the moment it is back, and judging then would
 * interrupt the runs of hosts that only waited out the same outage (docs/postgres.md).
 */

/**
 * Once a second: a host on this machine is seen dead within about a second of its death; one on
 * another machine within its lease (12 s) and a second (docs/decisions/0026-host-leases-and-dead-hosts.md, "Dead hosts seen at once").
 */
export const DEFAULT_HOST_WATCH_MS = 1_000;

export interface HostWatchOptions {
  store: HivewatchStore;
  /** The ids of the runs this process executes. */
  hosted: () => readonly string[];
  /** Runs of this process another host interrupted: stop them, journal nothing more of them. */
  onTaken: (runIds: readonly string[]) => void;
  intervalMs?: number;
  scheduler?: TailScheduler;
  /** How long after the database is back hosts are judged again (default: a lease, DEFAULT_LEASE_MS). */
  regainMs?: number;
  now?: () => number;
}

export interface HostWatchPass {
  /** Runs of dead hosts this pass interrupted. */
  recovered: RecoveredRun[];
  /** This process's runs it found interrupted by another host. */
  taken: string[];
}

export class HostWatch {
  private readonly stopTimer: () => void;
  private stopped = false;
  private running: Promise<HostWatchPass> | null = null;
  /** A pass could not reach the database, and none has since. */
  private cutOff = false;
  /** When a pass first found the database server away (wall ms), while none has reached it since. */
  private awaySince: number | null = null;
  /** No host is judged before this (wall ms): a lease after the database came back. */
  private judgeFrom = 0;

  constructor(private readonly options: HostWatchOptions) {
    const interval = options.intervalMs ?? DEFAULT_HOST_WATCH_MS;
    if (!Number.isFinite(interval) || interval <= 0) throw new RangeError('the host watch interval must be a positive number of milliseconds');
    this.stopTimer = (options.scheduler ?? intervalScheduler)(() => void this.check(), interval);
  }

  /** One pass (one at a time: a call while one runs gets that one). A failed read is tried again next pass. */
  check(): Promise<HostWatchPass> {
    if (this.stopped) return Promise.resolve({ recovered: [], taken: [] });
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<HostWatchPass> {
    const { store } = this.options;
    const now = (this.options.now ?? Date.now)();
    // The store closed under us (shutting down) or the server is away: the next pass tries again.
    const judging = !this.cutOff && now >= this.judgeFrom;
    const recovered = judging ? await store.recoverInterrupted().catch((error: unknown): RecoveredRun[] => (this.lostContact(error, now), [])) : [];
    // Only recovery writes `interrupted`: a run this process still executes that reads so was
    // taken. One read for all of them: a busy host executes hundreds.
    const taken = await store
      .runsInStatus(this.options.hosted(), 'interrupted')
      .then((ids) => (this.reached(now), ids))
      .catch((error: unknown): string[] => (this.lostContact(error, now), []));
    if (taken.length > 0 && !this.stopped) this.options.onTaken(taken);
    return { recovered, taken };
  }

  /**
   * Since when the database server has been away, as this watch's passes (once a second) saw it;
   * null while it answers. What the window's "database unavailable" banner counts from.
   */
  get databaseAwaySince(): number | null {
    return this.awaySince;
  }

  private lostContact(error: unknown, now: number): void {
    this.cutOff = true;
    if (isStoreError(error, 'unavailable')) this.awaySince ??= now;
  }

  private reached(now: number): void {
    if (!this.cutOff) return;
    this.cutOff = false;
    this.awaySince = null;
    this.judgeFrom = now + (this.options.regainMs ?? DEFAULT_LEASE_MS);
  }

  /** Stops the timer; resolves once a pass in flight has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    await this.running;
  }
}
