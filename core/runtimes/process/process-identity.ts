import { readFileSync } from 'node:fs';

/**
 * Which process a pid is, as Linux's /proc says, and whether a pid exists (kill(2) with signal
 * 0, which delivers nothing): questions only, never a signal delivered. Host liveness (the
 * store's) and process control (process-group.ts, leftover-groups.ts) both ask them; the /proc
 * readers answer "unknown" (null) where /proc is not there (macOS, Windows) instead of guessing.
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

/** Whether a pid exists on this machine (kill(2) with signal 0 asks, and sends nothing); one we may not signal exists too. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
