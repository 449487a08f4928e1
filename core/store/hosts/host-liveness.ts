import { readProcStat } from '../../runtimes/process/process-identity.js';
import { isOpenHere, isOwnerAlive, thisMachine, type RunOwner } from './hosts.js';

/**
 * Whether a run's host is still alive (rule 19, docs/semantics.md F9): the one judgement
 * start-up recovery, the live host watch and run commands share, on both engines.
 *
 * What is sound, in order:
 * 1. A store open in this process is alive, whatever its lease says.
 * 2. A host on this machine (same boot and pid namespace: `thisMachine`) is alive exactly while
 *    its process runs: a pid that is gone, a zombie, or a pid whose start time is not the one the
 *    host registered, is a dead host at once. A process that still runs with that start time is
 *    alive even when its heartbeat is late (stopped with SIGSTOP, or starved): its runs are never
 *    taken from it.
 * 3. Any other host (another machine, or no /proc to ask) is alive until its lease runs out:
 *    `heartbeat_at + lease_ms`. Such a host may be paused past its lease and come back; it then
 *    finds its runs interrupted and stops them (core/service/runs/host-watch.ts).
 * 4. A host with no lease row: on PostgreSQL it is gone (a store deletes its row when it closes);
 *    on SQLite it may be a Hivewatch from before migration 11, so its pid decides (`isOwnerAlive`).
 */

export interface HostLeaseRow {
  heartbeatAt: number;
  leaseMs: number;
  machine: string | null;
  startTime: string | null;
}

/** What this process can find out about others (tests pass their own). */
export interface HostProbe {
  machine: string | null;
  isOpenHere(instance: string): boolean;
  /** The running process with this pid and its start time, or null (no such process, or a zombie). */
  process(pid: number): { startTime: string } | null;
  /** The pid check of a host without a lease row (hosts.ts `isOwnerAlive`). */
  legacyAlive(owner: RunOwner): boolean;
}

export const localProbe: HostProbe = {
  get machine() {
    return thisMachine();
  },
  isOpenHere,
  process(pid) {
    const stat = readProcStat(pid);
    return stat === null || stat.state === 'Z' || stat.state === 'X' ? null : { startTime: stat.startTime };
  },
  legacyAlive: isOwnerAlive,
};

/** A host without a lease row: `legacy` asks its pid (SQLite), `gone` says it is dead (PostgreSQL). */
export type WithoutLease = 'legacy' | 'gone';

export interface HostVerdict {
  alive: boolean;
  /** Why, in words that finish "run R was interrupted: …". */
  reason: string;
}

const alive = (reason: string): HostVerdict => ({ alive: true, reason });
const dead = (reason: string): HostVerdict => ({ alive: false, reason });

export function judgeHost(
  owner: RunOwner | undefined,
  lease: HostLeaseRow | null,
  now: number,
  probe: HostProbe = localProbe,
  withoutLease: WithoutLease = 'gone',
): HostVerdict {
  if (owner === undefined) return dead('no live host holds it');
  const host = `its host (pid ${owner.pid} on ${owner.hostname})`;
  if (probe.isOpenHere(owner.instance)) return alive(`${host} is this process`);
  if (lease === null) {
    if (withoutLease === 'legacy' && probe.legacyAlive(owner)) return alive(`${host} still runs`);
    return dead(`${host} is gone`);
  }
  if (lease.machine !== null && lease.machine === probe.machine) {
    if (owner.pid === process.pid) return dead(`${host} closed its store`);
    const running = probe.process(owner.pid);
    if (running === null) return dead(`${host} is gone`);
    if (lease.startTime !== null) {
      if (running.startTime !== lease.startTime) return dead(`${host} is gone: pid ${owner.pid} now belongs to another process`);
      return alive(`${host} still runs`);
    }
  }
  if (now < lease.heartbeatAt + lease.leaseMs) return alive(`${host} holds its lease`);
  return dead(`${host} let its lease expire`);
}

/** A `hosts` row as both engines select it (LEFT JOINed: every column null when there is none). */
export interface LeaseColumns {
  heartbeat_at: number | string | null;
  lease_ms: number | string | null;
  machine: string | null;
  start_time: string | null;
}

export function leaseOf(row: LeaseColumns): HostLeaseRow | null {
  if (row.heartbeat_at === null || row.lease_ms === null) return null;
  return { heartbeatAt: Number(row.heartbeat_at), leaseMs: Number(row.lease_ms), machine: row.machine, startTime: row.start_time };
}
