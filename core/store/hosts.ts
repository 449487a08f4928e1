import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Which process hosts a run. A run is written by one process only (the one that started it);
 * the store records that owner in `run_hosts` when `runStarted` is journaled and forgets it at
 * the terminal event. Start-up recovery only interrupts runs whose owner is gone, so opening
 * the database from the CLI while the desktop app is running a flow does not interrupt it.
 *
 * An owner is alive when it is this process and its store instance is still open, or another
 * process whose pid still exists (same host: SQLite WAL needs shared memory, so every process
 * using the file concurrently is on this machine). A reused pid can make a dead owner look
 * alive; `recoverInterrupted({ force: true })` interrupts every non-terminal run regardless.
 */

export interface RunOwner {
  pid: number;
  hostname: string;
  instance: string;
}

const openInstances = new Set<string>();

export function newInstance(): RunOwner {
  const owner = { pid: process.pid, hostname: hostname(), instance: randomUUID() };
  openInstances.add(owner.instance);
  return owner;
}

export function releaseInstance(owner: RunOwner): void {
  openInstances.delete(owner.instance);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function isOwnerAlive(owner: RunOwner | undefined): boolean {
  if (!owner) return false;
  if (owner.pid === process.pid && owner.hostname === hostname()) return openInstances.has(owner.instance);
  if (owner.hostname !== hostname()) return false;
  return processExists(owner.pid);
}
