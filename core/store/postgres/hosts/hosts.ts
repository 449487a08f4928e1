import type pg from 'pg';
import { HostLease as Lease, type HostLeaseOptions, type LeaseHolder, type LeaseRows } from '../../hosts/host-lease.js';

/**
 * A host's lease on a shared PostgreSQL database (core/store/hosts/host-lease.ts). On a shared
 * database a pid alone means nothing across machines: each process holds a `hosts` row it keeps
 * renewing, and the row says which machine and process it is (host-liveness.ts).
 */

export { DEFAULT_LEASE_MS, isLeaseAlive } from '../../hosts/host-lease.js';
export type { HostLeaseOptions } from '../../hosts/host-lease.js';

const REGISTER = `INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms, machine, start_time)
  VALUES ($1, $2, $3, $4, $4, $5, $6, $7)
  ON CONFLICT (instance) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, lease_ms = excluded.lease_ms`;

const RENEW = `INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms, machine, start_time)
  VALUES ($1, $2, $3, $4, $4, $5, $6, $7)
  ON CONFLICT (instance) DO UPDATE SET heartbeat_at = GREATEST(hosts.heartbeat_at, excluded.heartbeat_at)`;

function postgresLeaseRows(pool: pg.Pool): LeaseRows {
  return {
    async write(host, at, leaseMs, register) {
      await pool.query(register ? REGISTER : RENEW, [host.instance, host.pid, host.hostname, at, leaseMs, host.machine, host.startTime]);
    },
    async remove(instance) {
      await pool.query('DELETE FROM hosts WHERE instance = $1', [instance]);
    },
  };
}

export class HostLease extends Lease {
  constructor(pool: pg.Pool, owner: LeaseHolder, options: HostLeaseOptions = {}) {
    super(postgresLeaseRows(pool), owner, options);
  }
}
