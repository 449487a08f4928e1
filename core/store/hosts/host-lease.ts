import type { HostIdentity, RunOwner } from './hosts.js';

/**
 * A host's lease in the database, on either engine: a `hosts` row the host keeps renewing
 * (`heartbeat_at`), valid for `lease_ms` after the last renewal. A host whose lease ran out is
 * gone (crashed, killed, its machine or network down) and any other host may interrupt its runs;
 * on one machine its pid says so sooner (host-liveness.ts).
 *
 * The lease outlives two missed heartbeats (a heartbeat every lease / 3), so one slow round trip
 * does not make a live host look dead. 12 s, so that a host on another machine is seen dead
 * within 15 s of its last heartbeat with a watch checking every second (rule 19; see
 * docs/decisions/0026-host-leases-and-dead-hosts.md, "Dead hosts seen at once"). Clock readings come from the injected `now`;
 * hosts are expected to keep their clocks in step (NTP) to well within a lease.
 */

export const DEFAULT_LEASE_MS = 12_000;

/** Runs `tick` every `ms` until the returned function is called; never keeps the process alive. */
export type HeartbeatScheduler = (tick: () => void, ms: number) => () => void;

export const intervalScheduler: HeartbeatScheduler = (tick, ms) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface HostLeaseOptions {
  leaseMs?: number;
  now?: () => number;
  /** The heartbeat's timer (tests inject one and call `beat()`). */
  scheduler?: HeartbeatScheduler;
}

/** Whether a host's lease still holds at `now` (a missing row is a host that is gone). */
export function isLeaseAlive(row: { heartbeat_at: number; lease_ms: number } | null, now: number): boolean {
  if (row === null) return false;
  return now < Number(row.heartbeat_at) + Number(row.lease_ms);
}

/** The engine's part of a lease: its row written (registered, or renewed) and deleted. */
export interface LeaseRows {
  /**
   * `register`: the lease starts at `at` (its length may have changed). Otherwise a renewal,
   * which never moves the heartbeat back (a clock stepping backwards) and writes the row again
   * when it was deleted meanwhile (another host pruned it as long expired).
   */
  write(host: HostIdentity, at: number, leaseMs: number, register: boolean): Promise<void>;
  remove(instance: string): Promise<void>;
}

/** What a lease records of its host: a test's owner may leave out what tells its process apart. */
export type LeaseHolder = RunOwner & Partial<Pick<HostIdentity, 'machine' | 'startTime'>>;

export class HostLease {
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly host: HostIdentity;
  private stopTimer: (() => void) | null = null;
  private stopped = false;
  /** The heartbeat in flight, awaited by `stop` so the row is not written again after its delete. */
  private beating: Promise<void> | null = null;
  /** The last heartbeat's failure (the database unreachable, or busy), cleared by the next success. */
  lastError: Error | null = null;

  constructor(
    private readonly rows: LeaseRows,
    owner: LeaseHolder,
    private readonly options: HostLeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(this.leaseMs) || this.leaseMs <= 0) throw new RangeError('leaseMs must be a positive number of milliseconds');
    this.now = options.now ?? Date.now;
    this.host = { ...owner, machine: owner.machine ?? null, startTime: owner.startTime ?? null };
  }

  /** Registers this host (its lease starts now) and keeps renewing it every leaseMs / 3. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.rows.write(this.host, this.now(), this.leaseMs, true);
    if (this.stopTimer === null) {
      const schedule = this.options.scheduler ?? intervalScheduler;
      this.stopTimer = schedule(
        () => {
          if (this.beating === null) this.beating = this.beat().finally(() => (this.beating = null));
        },
        Math.max(1, Math.floor(this.leaseMs / 3)),
      );
    }
  }

  /**
   * Renews the lease once. A failure (the server away, the file locked) is kept in `lastError`,
   * not thrown: the next heartbeat tries again, and until the lease runs out the host still
   * counts as alive.
   */
  async beat(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.rows.write(this.host, this.now(), this.leaseMs, false);
      this.lastError = null;
    } catch (error) {
      this.lastError = error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Stops renewing and deletes the row: the host is gone at once, not after its lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopTimer?.();
    this.stopTimer = null;
    await this.beating;
    await this.rows.remove(this.host.instance);
  }
}
