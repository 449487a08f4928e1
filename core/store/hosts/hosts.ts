import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { processExists, processStartTime } from '../../runtimes/process/process-identity.js';

/**
 * Which process hosts a run. A run is written by one process only (the one that started it);
 * the store records that owner in `run_hosts` when `runStarted` is journaled and forgets it at
 * the terminal event. Recovery only interrupts runs whose owner is gone (host-liveness.ts), so
 * opening the database from the CLI while the desktop app is running a flow does not interrupt it.
 *
 * Every open, writable store is a host with a row in `hosts` that it keeps renewing (a lease,
 * on both engines since migration 11): its pid, its machine (see `thisMachine`) and the start
 * time of its process, so a host on this machine whose process is gone is seen at once, and any
 * other host when its lease runs out.
 */

export interface RunOwner {
  pid: number;
  hostname: string;
  instance: string;
}

/** A host as its `hosts` row records it: the owner, and what tells its process from a later one. */
export interface HostIdentity extends RunOwner {
  /** This machine and pid namespace (`thisMachine()`), null where it cannot be told. */
  machine: string | null;
  /** Field 22 of /proc/<pid>/stat of the host's process, null without /proc. */
  startTime: string | null;
}

const openInstances = new Set<string>();

let machineOfThisProcess: string | null | undefined;

/**
 * Names the pid space this process lives in: the kernel's boot id (new at every boot) and the
 * pid namespace's inode (containers on one kernel have their own). Two hosts with the same value
 * see the same processes, so one can ask the kernel whether the other's pid still runs. A
 * hostname cannot promise that (two containers may share one). Null without /proc.
 */
export function thisMachine(): string | null {
  if (machineOfThisProcess !== undefined) return machineOfThisProcess;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = readlinkSync('/proc/self/ns/pid');
    machineOfThisProcess = boot === '' ? null : `${boot}/${namespace}`;
  } catch {
    machineOfThisProcess = null;
  }
  return machineOfThisProcess;
}

export function newInstance(): HostIdentity {
  const owner = {
    pid: process.pid,
    hostname: hostname(),
    instance: randomUUID(),
    machine: thisMachine(),
    startTime: processStartTime(process.pid),
  };
  openInstances.add(owner.instance);
  return owner;
}

export function releaseInstance(owner: RunOwner): void {
  openInstances.delete(owner.instance);
}

/** Whether this instance is a store open in this process. */
export function isOpenHere(instance: string): boolean {
  return openInstances.has(instance);
}

/**
 * The check for a host that keeps no `hosts` row (a Hivewatch from before migration 11 on a
 * SQLite file): alive when it is this process and its store is still open, or another process
 * whose pid still exists on this machine. A reused pid can make a dead owner look alive;
 * `recoverInterrupted({ force: true })` interrupts every non-terminal run regardless.
 */
export function isOwnerAlive(owner: RunOwner | undefined): boolean {
  if (!owner) return false;
  if (owner.pid === process.pid && owner.hostname === hostname()) return openInstances.has(owner.instance);
  if (owner.hostname !== hostname()) return false;
  return processExists(owner.pid);
}
