import { hostname } from 'node:os';
import type { EventOf, LeftoverProcessGroup } from '../../base/events.js';
import { groupLeadersWithEnvironment, groupMembers, signalGroupId } from './process-group.js';
import { procAvailable, readProcStat } from './process-identity.js';

/**
 * The attempt process groups a dead host left behind, and what recovery does with each: a group
 * whose leader still has the start time journaled at spawn is ours and gets SIGKILL (its owner is
 * gone, nobody reads its output, and a resume would start a second agent beside it); anything
 * that cannot be proven ours is left alone and said so. The store's recovery finds the groups in
 * the journal and calls `endLeftovers` (given by whoever opens the store to run flows) before it
 * journals `runInterrupted`, so the kill comes before any run can be resumed.
 */

type AttemptProcess = EventOf<'attemptProcess'>;

/**
 * The spawn-to-journal window: the host died after forking an attempt's child and before
 * `attemptProcess` (or even `attemptStarted`) was committed. Every attempt child gets
 * HIVEWATCH_RUN_ID / _TASK_ID / _ATTEMPT (command.ts `attemptEnv`) and run ids are unique, so a
 * group leader with this run's id in its environment is ours without a start time to compare;
 * the groups already dealt with by their journaled id are skipped. Only on the run's own
 * machine; nothing to say where /proc is not.
 */
function endUnjournaledGroups(runId: string, handled: ReadonlySet<number>): LeftoverProcessGroup[] {
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

/** A run whose host is gone, as recovery names it: its id and the machine its host ran on (null when not recorded). */
export interface LeftoverRun {
  runId: string;
  hostname: string | null;
}

/**
 * Process control for the store's recovery (its `endLeftovers` option): ends, or leaves saying
 * why, the journaled attempt groups a dead host left open for one run; on the host's own machine
 * also the groups spawned before their `attemptProcess` was journaled.
 */
export function leftoverReaper(options: EndLeftoverOptions = {}): (run: LeftoverRun, open: readonly AttemptProcess[]) => LeftoverProcessGroup[] {
  return (run, open) => {
    const journaled = open.map((p) => endLeftoverGroup(p, options));
    const sameMachine = run.hostname !== null && run.hostname === (options.hostname ?? hostname()) && (options.proc ?? true);
    return sameMachine ? [...journaled, ...endUnjournaledGroups(run.runId, new Set(journaled.map((g) => g.pgid)))] : journaled;
  };
}

export interface EndLeftoverOptions {
  /** This machine's name (tests pass another to see a foreign group left alone). */
  hostname?: string;
  /** Whether /proc can be read (tests pass false to see the groups left alone). */
  proc?: boolean;
}

function endLeftoverGroup(started: AttemptProcess, options: EndLeftoverOptions = {}): LeftoverProcessGroup {
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
