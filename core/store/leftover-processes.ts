import { hostname } from 'node:os';
import type { EventOf, HivewatchEvent, LeftoverProcessGroup } from '../base/events.js';
import { groupLeadersWithEnvironment, groupMembers, procAvailable, readProcStat, signalGroupId } from '../runtimes/process-group.js';

/**
 * The attempt process groups a dead host left behind, and what start-up recovery does with
 * each: a group whose leader still has the start time journaled at spawn is ours and gets
 * SIGKILL (its owner is gone, nobody reads its output, and a resume would start a second agent
 * beside it); anything that cannot be proven ours is left alone and said so.
 */

type AttemptProcess = EventOf<'attemptProcess'>;

/**
 * Events that end an attempt, journaled only once its process group is gone (rule 11b): its
 * outcome, its cancel by a fail-fast sibling, or its late answer after the operator's cancel.
 */
const ATTEMPT_ENDS: ReadonlySet<HivewatchEvent['type']> = new Set(['attemptSucceeded', 'attemptFailed', 'attemptCancelled', 'receiptIgnoredStale']);

/** The `attemptProcess` events of attempts that never journaled their end. */
export function openAttemptProcesses(events: readonly HivewatchEvent[]): AttemptProcess[] {
  const key = (e: { taskId: string; attempt: number }): string => `${e.taskId}#${e.attempt}`;
  const ended = new Set(events.flatMap((e) => (ATTEMPT_ENDS.has(e.type) && 'attempt' in e && 'taskId' in e ? [key(e)] : [])));
  return events.filter((e): e is AttemptProcess => e.type === 'attemptProcess' && !ended.has(key(e)));
}

/**
 * The spawn-to-journal window: the host died after forking an attempt's child and before
 * `attemptProcess` (or even `attemptStarted`) was committed. Every attempt child gets
 * HIVEWATCH_RUN_ID / _TASK_ID / _ATTEMPT (command.ts `attemptEnv`) and run ids are unique, so a
 * group leader with this run's id in its environment is ours without a start time to compare;
 * the groups already dealt with by their journaled id are skipped. Only on the run's own
 * machine; nothing to say where /proc is not.
 */
export function endUnjournaledGroups(runId: string, handled: ReadonlySet<number>): LeftoverProcessGroup[] {
  const ended: LeftoverProcessGroup[] = [];
  for (const { pid: pgid, environment } of groupLeadersWithEnvironment(`HIVEWATCH_RUN_ID=${runId}`) ?? []) {
    if (handled.has(pgid)) continue;
    const value = (name: string): string | undefined => environment.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
    const taskId = value('HIVEWATCH_TASK_ID') ?? '?';
    const attempt = Number(value('HIVEWATCH_ATTEMPT') ?? 0);
    signalGroupId(pgid, 'SIGKILL');
    ended.push({
      taskId,
      attempt,
      pgid,
      outcome: 'ended',
      message: `process group ${pgid} of task ${taskId} attempt ${attempt} (spawned as its host died, before it was journaled; found by its HIVEWATCH_RUN_ID environment) was still running and was ended (SIGKILL)`,
    });
  }
  return ended;
}

export interface EndLeftoverOptions {
  /** This machine's name (tests pass another to see a foreign group left alone). */
  hostname?: string;
  /** Whether /proc can be read (tests pass false to see the groups left alone). */
  proc?: boolean;
}

export function endLeftoverGroup(started: AttemptProcess, options: EndLeftoverOptions = {}): LeftoverProcessGroup {
  const pgid = started.pid;
  const base = { taskId: started.taskId, attempt: started.attempt, pgid };
  const here = options.hostname ?? hostname();
  const label = `process group ${pgid} of task ${started.taskId} attempt ${started.attempt}`;
  if (started.hostname !== here) {
    return {
      ...base,
      outcome: 'otherHost',
      message: `${label} ran on ${started.hostname}, not on this machine (${here}): not reachable from here, left alone`,
    };
  }
  if (!(options.proc ?? procAvailable())) {
    return { ...base, outcome: 'unverified', message: `${label}: /proc is not available here, so it cannot be checked to be ours; left alone` };
  }
  if (started.startTime === null) {
    return { ...base, outcome: 'unverified', message: `${label}: no start time was recorded at spawn, so it cannot be checked to be ours; left alone` };
  }
  const leader = readProcStat(pgid);
  if (leader === null || leader.state === 'Z') {
    const members = groupMembers(pgid) ?? [];
    if (members.length === 0) return { ...base, outcome: 'gone', message: `${label} had already ended` };
    return {
      ...base,
      outcome: 'unverified',
      message: `${label}: its leader is gone and ${members.length} process(es) (${members.join(', ')}) remain in the group, which cannot be checked to be ours; left alone`,
    };
  }
  if (leader.startTime !== started.startTime) {
    return {
      ...base,
      outcome: 'notOurs',
      message: `${label}: pid ${pgid} now belongs to another process (start time ${leader.startTime}, ours was ${started.startTime}); left alone`,
    };
  }
  signalGroupId(pgid, 'SIGKILL');
  // A leader that moved itself to another group is still ours (same start time).
  if (leader.pgrp !== pgid) killQuietly(pgid);
  return { ...base, outcome: 'ended', message: `${label} was still running and was ended (SIGKILL)` };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
