import { readdirSync, readFileSync } from 'node:fs';
import { procAvailable, readProcStat } from './process-identity.js';

/**
 * Process groups as Linux's /proc shows them, and signals to a whole group: for ending an
 * attempt's process group and for recognising a group a dead host left behind. Every reader
 * answers "unknown" (null) where /proc is not there (macOS, Windows) instead of guessing.
 */

/**
 * The pids of the group's members that still run (zombies do not: they only wait to be reaped,
 * and PID 1 of a container may never reap them). null where /proc is not available.
 */
export function groupMembers(pgid: number): number[] | null {
  if (!procAvailable()) return null;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(pid);
  }
  return members;
}

/** Whether anything of the group still runs: /proc where there is one, else kill(-pgid, 0). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: members exist but are not ours to signal; they still run.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // kill(2) counts zombies as members: /proc tells them apart (the scan only runs while kill says yes).
  const members = groupMembers(pgid);
  return members === null ? true : members.length > 0;
}

/** Sends a signal to a whole group; false when the group is gone. */
export function signalGroupId(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The group leaders (pid = pgid) that still run and whose environment holds `entry`
 * (`NAME=value`), each with its whole environment. Unreadable environments (other users'
 * processes) are skipped; null where /proc is not available.
 */
export function groupLeadersWithEnvironment(entry: string): { pid: number; environment: string[] }[] | null {
  if (!procAvailable()) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return null;
  }
  const found: { pid: number; environment: string[] }[] = [];
  for (const name of pids) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const stat = readProcStat(pid);
    if (!stat || stat.pgrp !== pid || stat.state === 'Z' || stat.state === 'X') continue;
    let environment: string[];
    try {
      environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (environment.includes(entry)) found.push({ pid, environment });
  }
  return found;
}
