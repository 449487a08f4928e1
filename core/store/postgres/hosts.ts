import type pg from 'pg';
import { runHost } from '../commands.js';
import type { RunOwner } from '../hosts.js';
import { Dialect, type Query } from '../queries/plan.js';

/**
 * A host's identity on a shared PostgreSQL database. On SQLite every process using the file is
 * on one machine, so a live pid proves a run's host alive; across machines a pid means nothing.
 * Here each process holds a lease: a `hosts` row it keeps renewing (`heartbeat_at`), valid for
 * `lease_ms` after the last renewal. A host whose lease ran out is gone (crashed, killed, its
 * machine or network down) and recovery on any other host may interrupt its runs.
 *
 * The lease outlives three missed heartbeats (heartbeat every lease/3), so one slow round trip
 * does not make a live host look dead. Clock readings come from the injected `now`; hosts are
 * expected to keep their clocks in step (NTP) to well within a lease.
 */

export const DEFAULT_LEASE_MS = 15_000;

export interface HostLeaseOptions {
  leaseMs?: number;
  now?: () => number;
}

/** Whether a host's lease still holds at `now` (a missing row is a host that is gone). */
export function isLeaseAlive(row: { heartbeat_at: number; lease_ms: number } | null, now: number): boolean {
  if (row === null) return false;
  return now < Number(row.heartbeat_at) + Number(row.lease_ms);
}

export class HostLease {
  readonly leaseMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The heartbeat in flight, awaited by `stop` so the row is not written again after its delete. */
  private beating: Promise<void> | null = null;
  /** The last heartbeat's failure (the database unreachable), cleared by the next success. */
  lastError: Error | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly owner: RunOwner,
    options: HostLeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(this.leaseMs) || this.leaseMs <= 0) throw new RangeError('leaseMs must be a positive number of milliseconds');
    this.now = options.now ?? Date.now;
  }

  /** Registers this host (its lease starts now) and keeps renewing it every leaseMs / 3. */
  async start(): Promise<void> {
    this.stopped = false;
    const at = this.now();
    await this.pool.query(
      `INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms) VALUES ($1, $2, $3, $4, $4, $5)
       ON CONFLICT (instance) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, lease_ms = excluded.lease_ms`,
      [this.owner.instance, this.owner.pid, this.owner.hostname, at, this.leaseMs],
    );
    if (this.timer === null) {
      this.timer = setInterval(() => {
        if (this.beating === null) this.beating = this.beat().finally(() => (this.beating = null));
      }, Math.max(1, Math.floor(this.leaseMs / 3)));
      // The lease never keeps a process alive on its own.
      this.timer.unref();
    }
  }

  /**
   * Renews the lease once. A failure (the server away) is kept in `lastError`, not thrown: the
   * next heartbeat tries again, and until the lease runs out the host still counts as alive.
   * A row deleted meanwhile (another host pruned it as long expired) is written again.
   */
  async beat(): Promise<void> {
    if (this.stopped) return;
    try {
      const at = this.now();
      await this.pool.query(
        `INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms) VALUES ($1, $2, $3, $4, $4, $5)
         ON CONFLICT (instance) DO UPDATE SET heartbeat_at = GREATEST(hosts.heartbeat_at, excluded.heartbeat_at)`,
        [this.owner.instance, this.owner.pid, this.owner.hostname, at, this.leaseMs],
      );
      this.lastError = null;
    } catch (error) {
      this.lastError = error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Stops renewing and deletes the row: the host is gone at once, not after its lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.pool.query('DELETE FROM hosts WHERE instance = $1', [this.owner.instance]);
  }
}

type LeaseRow = { heartbeat_at: number; lease_ms: number };

/** A run's recorded host and that host's lease (undefined: no heartbeat row), in one read. */
export function* runHostLease(runId: string): Query<{ owner: RunOwner; lease: LeaseRow | undefined } | null> {
  const owner = yield* runHost(Dialect.postgres, runId);
  if (!owner) return null;
  const lease = (yield { mode: 'get', sql: 'SELECT heartbeat_at, lease_ms FROM hosts WHERE instance = ?', params: [owner.instance] }) as LeaseRow | undefined;
  return { owner, lease };
}
