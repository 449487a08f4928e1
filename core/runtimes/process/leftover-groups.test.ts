import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventOf } from '../../base/events.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { groupAlive } from './process-group.js';
import { leftoverReaper } from './leftover-groups.js';
import { processStartTime } from './process-identity.js';

let dir: string;
let path: string;
const opened: SqliteStore[] = [];
const children: ChildProcess[] = [];
/** The store as a process that runs flows opens it: with this machine's process control. */
const open = (options: Partial<Parameters<typeof openSqliteStore>[0]> = {}): SqliteStore => {
  const store = openSqliteStore({ path, endLeftovers: leftoverReaper(), ...options });
  opened.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-leftover-'));
  path = join(dir, 'hivewatch.db');
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  for (const child of children.splice(0)) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already ended (by the test's subject).
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** An agent-like group that ignores SIGTERM: a shell leading its own group with a child sleep. */
async function agentGroup(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn('/bin/sh', ['-c', "trap '' TERM; sleep 60 & echo ready; wait"], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  await once(child.stdout!, 'data');
  return child;
}

/** Journals a run whose host died while its attempt ran in `pid`'s group (the store closes: its host is gone). */
function journalDeadRun(runId: string, processes: { pid: number; startTime: string | null; host?: string; ended?: boolean }[]): void {
  const store = open({ recover: false });
  const b = new JournalBuilder(runId).start().dieDuringStep([{ attempts: ['ok'] }]);
  const started = b.events.at(-1) as EventOf<'attemptStarted'>;
  const ref = { step: started.step, ordinal: started.ordinal, taskId: started.taskId };
  processes.forEach((p, i) => {
    const attempt = i + 1;
    b.push({ type: 'attemptProcess', ...ref, attempt, pid: p.pid, startTime: p.startTime, hostname: p.host ?? hostname() });
    if (p.ended) b.push({ type: 'attemptSucceeded', ...ref, attempt, durationMs: 5 });
  });
  store.appendEvents(b.events);
  store.close();
}

describe("start-up recovery of a dead host's attempt processes", () => {
  it('ends a leftover group whose start time matches, and journals it on runInterrupted', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    journalDeadRun('r1', [{ pid, startTime: processStartTime(pid) }]);
    const store = open();
    expect(store.recovered.map((r) => r.processes)).toEqual([
      [
        {
          taskId: '1:0',
          attempt: 1,
          pgid: pid,
          outcome: 'ended',
          message: `process group ${pid} of task 1:0 attempt 1 was still running and was ended (SIGKILL)`,
        },
      ],
    ]);
    await once(agent, 'exit');
    await vi.waitFor(() => expect(groupAlive(pid)).toBe(false), { timeout: 20_000 });
    const last = store.getEvents('r1').at(-1);
    expect(last).toMatchObject({ type: 'runInterrupted', processes: [{ pgid: pid, outcome: 'ended' }] });
    expect(store.replayRun('r1').diffs).toEqual([]);
  });

  it('leaves a group alone when the pid now has another start time (reused pid)', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    journalDeadRun('r2', [{ pid, startTime: '1' }]);
    const [recovered] = open().recovered;
    expect(recovered?.processes).toEqual([
      {
        taskId: '1:0',
        attempt: 1,
        pgid: pid,
        outcome: 'notOurs',
        message: `process group ${pid} of task 1:0 attempt 1: pid ${pid} now belongs to another process (start time ${processStartTime(pid)}, ours was 1); left alone`,
      },
    ]);
    expect(groupAlive(pid)).toBe(true);
  });

  it('leaves groups alone where /proc is not available, and says so', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    journalDeadRun('r3', [{ pid, startTime: processStartTime(pid) }]);
    const store = open({ recover: false });
    const [recovered] = store.recoverInterrupted({ endLeftovers: leftoverReaper({ proc: false }) });
    expect(recovered?.processes).toMatchObject([
      {
        outcome: 'unverified',
        message: `process group ${pid} of task 1:0 attempt 1: /proc is not available here, so it cannot be checked to be ours; left alone`,
      },
    ]);
    expect(groupAlive(pid)).toBe(true);
  });

  it('leaves a group of another machine alone; reports a group already gone; skips attempts that ended', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    const finished = await agentGroup();
    const gone = spawn('/bin/true', [], { detached: true, stdio: 'ignore' });
    await once(gone, 'exit');
    journalDeadRun('r4', [
      { pid, startTime: processStartTime(pid), host: 'elsewhere' },
      { pid: gone.pid as number, startTime: '42' },
      { pid: finished.pid as number, startTime: processStartTime(finished.pid as number), ended: true },
    ]);
    const [recovered] = open().recovered;
    expect(recovered?.processes.map((p) => [p.attempt, p.outcome])).toEqual([
      [1, 'otherHost'],
      [2, 'gone'],
    ]);
    expect(groupAlive(pid)).toBe(true);
    expect(groupAlive(finished.pid as number)).toBe(true);
  });

  it('does not take the agents of a host that is still alive on a forced recovery', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    const host = open({ recover: false });
    const b = new JournalBuilder('live').start().dieDuringStep([{ attempts: ['ok'] }]);
    b.push({ type: 'attemptProcess', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, pid, startTime: processStartTime(pid), hostname: hostname() });
    host.appendEvents(b.events);
    const [recovered] = open({ recover: false }).recoverInterrupted({ force: true });
    expect(recovered).toMatchObject({ runId: 'live', processes: [] });
    expect(groupAlive(pid)).toBe(true);
  });

  it("ends a group spawned before its attemptProcess was journaled, found by the attempt environment; leaves other runs' alone", async () => {
    const ours = await agentGroup({ HIVEWATCH_RUN_ID: 'r5', HIVEWATCH_TASK_ID: '1:0', HIVEWATCH_ATTEMPT: '1' });
    const otherRun = await agentGroup({ HIVEWATCH_RUN_ID: 'r6', HIVEWATCH_TASK_ID: '1:0', HIVEWATCH_ATTEMPT: '1' });
    const pid = ours.pid as number;
    journalDeadRun('r5', []);
    const [recovered] = open().recovered;
    expect(recovered?.processes).toEqual([
      {
        taskId: '1:0',
        attempt: 1,
        pgid: pid,
        outcome: 'ended',
        message: `process group ${pid} of task 1:0 attempt 1 (spawned as its host died, before it was journaled; found by its HIVEWATCH_RUN_ID environment) was still running and was ended (SIGKILL)`,
      },
    ]);
    await once(ours, 'exit');
    // SIGKILL reached the whole group, but its other member (the shell's sleep) may not have been
    // scheduled to die yet on a loaded machine: wait for the kernel, not for a fixed time.
    await vi.waitFor(() => expect(groupAlive(pid)).toBe(false), { timeout: 20_000 });
    expect(groupAlive(otherRun.pid as number)).toBe(true);
  });

  it('a store opened without process control signals nothing, and journals each open group as left alone', async () => {
    const agent = await agentGroup();
    const pid = agent.pid as number;
    journalDeadRun('r7', [{ pid, startTime: processStartTime(pid) }]);
    const store = open({ endLeftovers: undefined });
    expect(store.recovered.map((r) => r.processes)).toEqual([
      [
        {
          taskId: '1:0',
          attempt: 1,
          pgid: pid,
          outcome: 'unverified',
          message: `process group ${pid} of task 1:0 attempt 1: this process does not control agent processes (its store was opened without process control); left alone`,
        },
      ],
    ]);
    expect(groupAlive(pid)).toBe(true);
    expect(store.getEvents('r7').at(-1)).toMatchObject({ type: 'runInterrupted', processes: [{ pgid: pid, outcome: 'unverified' }] });
  });
});
