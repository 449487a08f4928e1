import { readdirSync, readFileSync } from 'node:fs';

/**
 * What Linux's /proc says about processes, for ending an attempt's process group and for
 * recognising a group a dead host left behind. Every function answers "unknown" (null) where
 * /proc is not there (macOS, Windows) instead of guessing.
 */

interface ProcStat {
  state: string;
  pgrp: number;
  /** Field 22: clock ticks since boot at which the process started; with the pid, it names one process. */
  startTime: string;
}

/** Reads /proc/<pid>/stat, or null when the process (or /proc) is not there. */
export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Field 2 (comm) is in parentheses and may itself hold spaces and parentheses: fields 3 onwards
  // start after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const pgrp = Number(rest[2]);
  const startTime = rest[19];
  if (state === undefined || startTime === undefined || !Number.isInteger(pgrp)) return null;
  return { state, pgrp, startTime };
}

export function procAvailable(): boolean {
  return readProcStat(process.pid) !== null;
}

/** The start time of a live process, or null (gone, or no /proc). */
export function processStartTime(pid: number): string | null {
  return readProcStat(pid)?.startTime ?? null;
}

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
