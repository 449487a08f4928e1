import type Database from 'better-sqlite3';
import { DEFAULT_LEASE_MS, intervalScheduler, type HostLeaseOptions } from '../hosts/host-lease.js';
import type { HostIdentity } from '../hosts/hosts.js';

/**
 * A host's lease in a SQLite file (migration 11; host-lease.ts says what a lease is). The same
 * rows and rules as PostgreSQL's, written synchronously like everything on better-sqlite3: the
 * row exists once the store is open and is gone once it is closed. A heartbeat that finds the
 * file locked past the busy timeout keeps the error in `lastError` and tries again next time.
 */
export class SqliteHostLease {
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly register: Database.Statement;
  private readonly renew: Database.Statement;
  private readonly remove: Database.Statement;
  private stopTimer: (() => void) | null = null;
  lastError: Error | null = null;

  constructor(
    db: Database.Database,
    private readonly host: HostIdentity,
    private readonly options: HostLeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(this.leaseMs) || this.leaseMs <= 0) throw new RangeError('leaseMs must be a positive number of milliseconds');
    this.now = options.now ?? Date.now;
    const insert = `INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms, machine, start_time)
      VALUES (@instance, @pid, @hostname, @at, @at, @leaseMs, @machine, @startTime)`;
    this.register = db.prepare(`${insert} ON CONFLICT (instance) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, lease_ms = excluded.lease_ms`);
    // Never moves the heartbeat back (a clock stepping backwards); writes the row again if it was deleted.
    this.renew = db.prepare(`${insert} ON CONFLICT (instance) DO UPDATE SET heartbeat_at = MAX(heartbeat_at, excluded.heartbeat_at)`);
    this.remove = db.prepare('DELETE FROM hosts WHERE instance = ?');
  }

  private params(): Record<string, unknown> {
    const { instance, pid, hostname, machine, startTime } = this.host;
    return { instance, pid, hostname, at: this.now(), leaseMs: this.leaseMs, machine, startTime };
  }

  /** Registers this host (its lease starts now) and keeps renewing it every leaseMs / 3. */
  start(): void {
    this.register.run(this.params());
    if (this.stopTimer === null) {
      this.stopTimer = (this.options.scheduler ?? intervalScheduler)(() => this.beat(), Math.max(1, Math.floor(this.leaseMs / 3)));
    }
  }

  /** Renews the lease once; a failure is kept, not thrown (the next heartbeat tries again). */
  beat(): void {
    if (this.stopTimer === null) return;
    try {
      this.renew.run(this.params());
      this.lastError = null;
    } catch (error) {
      this.lastError = error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Stops renewing and deletes the row: the host is gone at once, not after its lease. */
  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
    try {
      this.remove.run(this.host.instance);
    } catch {
      // The file is locked or gone: the lease runs out by itself, and the pid says so sooner.
    }
  }
}
