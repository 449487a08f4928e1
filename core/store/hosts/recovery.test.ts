import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../runtimes/process/process-identity.js';
import { thisMachine } from './hosts.js';
import { isStoreError, openSqliteStore, type SqliteStore } from '../index.js';
import { openAttemptProcesses } from './recovery.js';
import { diedWithCancelledSibling, JournalBuilder } from '../testing/journal-builder.js';

let dir: string;
let path: string;
const opened: SqliteStore[] = [];
const open = (options: Partial<Parameters<typeof openSqliteStore>[0]> = {}): SqliteStore => {
  const store = openSqliteStore({ path, now: () => Date.UTC(2026, 1, 1), ...options });
  opened.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-recovery-'));
  path = join(dir, 'hivewatch.db');
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Makes `instance` (a process of this test's choosing) the host of every run, with its lease row. */
function registerHost(
  store: SqliteStore,
  host: { instance: string; pid: number; heartbeatAt: number; leaseMs?: number; machine?: string | null; startTime: string | null },
): void {
  store.database.prepare('UPDATE run_hosts SET pid = ?, instance = ?').run(host.pid, host.instance);
  store.database
    .prepare('INSERT INTO hosts (instance, pid, hostname, started_at, heartbeat_at, lease_ms, machine, start_time) VALUES (?, ?, ?, 0, ?, ?, ?, ?)')
    .run(
      host.instance,
      host.pid,
      hostname(),
      host.heartbeatAt,
      host.leaseMs ?? 12_000,
      host.machine === undefined ? thisMachine() : host.machine,
      host.startTime,
    );
}

const crash = { code: 'RUNTIME_CRASHED', origin: 'runtime:command', message: 'exit 1' } as const;

describe('recoverInterrupted', () => {
  it('marks runs of a closed (dead) host interrupted, through the journal, on open', () => {
    const a = open();
    const running = new JournalBuilder('running')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .dieDuringStep([{ attempts: ['ok'] }, { attempts: ['ok'] }]);
    const cancelling = new JournalBuilder('cancelling').start();
    cancelling.push({ type: 'cancelRequested', commandId: 'c1', reason: 'stop', alreadyCancelling: false });
    cancelling.push({ type: 'runCancelling', epoch: 1, commandId: 'c1' });
    const done = new JournalBuilder('done')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    for (const b of [running, cancelling, done]) a.appendEvents(b.events);
    a.close();

    const b = open();
    expect(b.recovered.map((r) => r.runId).sort()).toEqual(['cancelling', 'running']);
    expect(b.recovered[0]!.pid).toBe(process.pid);
    const run = b.getRun('running')!;
    expect(run.run).toMatchObject({ status: 'interrupted', endedAt: Date.UTC(2026, 1, 1), lastErrorCode: 'SYSTEM_RUN_INTERRUPTED' });
    expect(run.run.error).toMatchObject({ category: 'system', code: 'SYSTEM_RUN_INTERRUPTED', origin: 'system', recoverable: true });
    expect(run.run.error!.correlation).toMatchObject({ run: 'running', step: 2, flow: 'examples/demo.prose' });
    expect(run.steps.map((s) => s.status)).toEqual(['finished', 'interrupted']);
    expect(run.tasks.filter((t) => t.step === 2).map((t) => t.status)).toEqual(['interrupted', 'interrupted']);
    expect(run.attempts.filter((t) => t.step === 2).map((t) => t.status)).toEqual(['interrupted']);
    const tail = b.getEvents('running', running.events.length);
    expect(tail.map((e) => [e.seq, e.type])).toEqual([
      [running.events.length + 1, 'errorOccurred'],
      [running.events.length + 2, 'runInterrupted'],
    ]);
    expect(b.errorCounts({ by: 'code', category: 'system' })).toEqual([{ key: 'SYSTEM_RUN_INTERRUPTED', count: 2, label: null }]);
    expect(b.getRun('done')!.run.status).toBe('completed');
    expect(b.database.prepare('SELECT COUNT(*) AS n FROM run_hosts').get()).toEqual({ n: 0 });
    for (const id of ['running', 'cancelling']) expect(b.replayRun(id).diffs).toEqual([]);
    // Nothing left to recover.
    b.close();
    expect(open().recovered).toEqual([]);
  });

  it('leaves runs of a live store alone (same process), unless forced', () => {
    const host = open();
    host.appendEvents(new JournalBuilder('live').start().events);
    const cli = open();
    expect(cli.recovered).toEqual([]);
    expect(cli.getRun('live')!.run.status).toBe('running');
    expect(cli.recoverInterrupted({ force: true }).map((r) => r.runId)).toEqual(['live']);
    expect(cli.getRun('live')!.run.status).toBe('interrupted');
  });

  it('leaves runs of a live process alone and recovers them once it is gone', async () => {
    const store = open({ recover: false });
    store.appendEvents(new JournalBuilder('child-run').start().events);
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    store.database.prepare("UPDATE run_hosts SET pid = ?, instance = 'other' WHERE run_id = 'child-run'").run(child.pid);
    expect(store.recoverInterrupted()).toEqual([]);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(store.recoverInterrupted()).toEqual([{ runId: 'child-run', pid: child.pid, processes: [] }]);
  });

  it('a host on this machine: left alone while its process runs (even long past its lease), interrupted once it is killed (inside its lease)', async () => {
    let clock = 1_000_000;
    const store = open({ recover: false, now: () => clock });
    store.appendEvents(new JournalBuilder('hosted').start().events);
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      registerHost(store, { instance: 'child', pid: child.pid!, heartbeatAt: 0, startTime: processStartTime(child.pid!) });
      expect(store.recoverInterrupted()).toEqual([]);
      expect(store.runHost('hosted')).toMatchObject({ alive: true, reason: `its host (pid ${child.pid} on ${hostname()}) still runs` });
      child.kill('SIGKILL');
      await once(child, 'exit');
      store.database.prepare('UPDATE hosts SET heartbeat_at = ?').run(clock);
      clock += 1;
      expect(store.runHost('hosted')).toMatchObject({ alive: false });
      expect(store.recoverInterrupted()).toEqual([{ runId: 'hosted', pid: child.pid, processes: [] }]);
      expect(store.getEvents('hosted').at(-1)).toMatchObject({
        type: 'runInterrupted',
        error: { message: `run hosted was interrupted: its host (pid ${child.pid} on ${hostname()}) is gone` },
      });
      expect(store.recoverInterrupted()).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a pid that now belongs to another process is a dead host at once', () => {
    const store = open({ recover: false });
    store.appendEvents(new JournalBuilder('reused').start().events);
    // This test's own pid stands in for a process that took the dead host's pid: it runs, with another start time.
    registerHost(store, { instance: 'reused-host', pid: process.ppid, heartbeatAt: Date.UTC(2026, 1, 1), startTime: 'not-its-start' });
    expect(store.recoverInterrupted().map((r) => r.runId)).toEqual(['reused']);
    expect(store.getEvents('reused').at(-1)).toMatchObject({
      error: {
        message: `run reused was interrupted: its host (pid ${process.ppid} on ${hostname()}) is gone: pid ${process.ppid} now belongs to another process`,
      },
    });
  });

  it('a host elsewhere is left alone until its lease runs out, then interrupted once by either of two stores', () => {
    let clock = 50_000;
    const a = open({ recover: false, now: () => clock });
    const b = open({ recover: false, now: () => clock });
    a.appendEvents(new JournalBuilder('remote').start().events);
    registerHost(a, { instance: 'far', pid: 77, heartbeatAt: 40_000, leaseMs: 12_000, machine: 'another-boot/pid:[1]', startTime: '5' });
    expect(a.recoverInterrupted()).toEqual([]);
    expect(b.recoverInterrupted()).toEqual([]);
    clock = 52_000;
    expect(b.recoverInterrupted().map((r) => r.runId)).toEqual(['remote']);
    expect(a.recoverInterrupted()).toEqual([]);
    expect(a.getEvents('remote').filter((e) => e.type === 'runInterrupted')).toHaveLength(1);
    expect(a.getEvents('remote').at(-1)).toMatchObject({
      error: { message: `run remote was interrupted: its host (pid 77 on ${hostname()}) let its lease expire` },
    });
  });

  it('recovers runs that have no owner row, and can be disabled', () => {
    const store = open({ recover: false });
    store.appendEvents(new JournalBuilder('orphan').start().events);
    store.database.prepare('DELETE FROM run_hosts').run();
    expect(open({ recover: false }).recovered).toEqual([]);
    expect(store.getRun('orphan')!.run.status).toBe('running');
    expect(store.recoverInterrupted().map((r) => r.runId)).toEqual(['orphan']);
  });

  it('hands process control only the attempts with no journaled end: one cancelled by a sibling is not a leftover', () => {
    const a = open();
    a.appendEvents(diedWithCancelledSibling('sibling', hostname()).events);
    a.close();
    const handed: string[] = [];
    const b = open({
      endLeftovers: (_run, groups) => {
        handed.push(...groups.map((g) => `${g.taskId}#${g.attempt} pid ${g.pid}`));
        return [];
      },
    });
    expect(b.recovered.map((r) => r.runId)).toEqual(['sibling']);
    expect(handed).toEqual(['2:0#1 pid 424242']);
  });

  it('notifies subscribers of the events it journals', () => {
    const store = open({ recover: false });
    store.appendEvents(new JournalBuilder('r').start().events);
    const seen: string[] = [];
    store.subscribe((events) => seen.push(...events.map((e) => e.type)));
    store.recoverInterrupted({ force: true });
    expect(seen).toEqual(['errorOccurred', 'runInterrupted']);
  });
});

describe('resumePointForRun', () => {
  it('refuses unknown and non-resumable runs', () => {
    const store = open();
    store.appendEvents(
      new JournalBuilder('ok')
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    );
    store.appendEvents(new JournalBuilder('live').start().events);
    expect(() => store.resumePointForRun('nope')).toThrow(/no run nope/);
    for (const id of ['ok', 'live']) {
      try {
        store.resumePointForRun(id);
        expect.unreachable();
      } catch (error) {
        expect(isStoreError(error, 'not_resumable')).toBe(true);
      }
    }
  });

  it('walks the resumedFrom chain: source outcomes up to resumeStep, then the run’s own', () => {
    const store = open();
    // A: steps 1, 2 committed, 3 fails.
    const a = new JournalBuilder('A')
      .start()
      .runStep([{ attempts: ['ok'] }, { attempts: [crash], caught: true }])
      .runStep([{ attempts: ['ok'] }])
      .runStep([{ attempts: [crash] }])
      .fail();
    // B resumes A after step 2: commits 3, dies in 4.
    const b = new JournalBuilder('B', { resumedFrom: 'A', resumeStep: 2 })
      .start()
      .runStep([{ attempts: ['ok'] }, { attempts: ['ok'] }])
      .dieDuringStep([{ attempts: ['ok'] }]);
    // C resumes B after step 1 only (an older checkpoint): B's and A's steps > 1 must not leak in.
    const c = new JournalBuilder('C', { resumedFrom: 'B', resumeStep: 1 })
      .start()
      .runStep([{ attempts: [crash] }])
      .fail();
    for (const x of [a, b, c]) store.appendEvents(x.events);
    store.recoverInterrupted({ force: true });

    const pa = store.resumePointForRun('A');
    expect(pa.fromRunId).toBe('A');
    expect(pa.throughStep).toBe(2);
    expect([...pa.outcomes.keys()].sort()).toEqual(['1:0', '1:1', '2:0']);
    expect(pa.outcomes.get('1:1')).toMatchObject({ ok: false });
    expect(pa.outcomes.get('1:0')).toEqual({ ok: true, output: 'output of 1:0' });

    const pb = store.resumePointForRun('B');
    expect(pb).toMatchObject({ fromRunId: 'B', throughStep: 3 });
    expect([...pb.outcomes.keys()].sort()).toEqual(['1:0', '1:1', '2:0', '3:0', '3:1']);

    const pc = store.resumePointForRun('C');
    expect(pc).toMatchObject({ fromRunId: 'C', throughStep: 1 });
    expect([...pc.outcomes.keys()].sort()).toEqual(['1:0', '1:1']);
  });
});

describe('openAttemptProcesses', () => {
  it('counts an attempt cancelled by a sibling or answered late as ended: only the one with no end is open', () => {
    const ref = { runId: 'r', ts: 0, step: 1, ordinal: 0, taskId: '1:0' };
    const started = (attempt: number, seq: number) => ({
      ...ref,
      seq,
      type: 'attemptProcess' as const,
      attempt,
      pid: 100 + attempt,
      startTime: '1',
      hostname: 'h',
    });
    const open = openAttemptProcesses([
      started(1, 1),
      { ...ref, seq: 2, type: 'attemptCancelled', attempt: 1, durationMs: 3, by: 'sibling' },
      started(2, 3),
      { ...ref, seq: 4, type: 'receiptIgnoredStale', attempt: 2, epoch: 0, currentEpoch: 1, outcome: 'succeeded' },
      started(3, 5),
    ]);
    expect(open.map((e) => e.attempt)).toEqual([3]);
  });
});
