import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { procAvailable, processStartTime, readProcStat } from '../../runtimes/process/process-identity.js';
import { judgeHost, localProbe, type HostLeaseRow, type HostProbe } from './host-liveness.js';
import { newInstance, releaseInstance, thisMachine } from './hosts.js';
import { skipTitle } from '../../testing/skip.js';

/** A machine whose processes are a table the test writes (pid → start time), and nothing else runs. */
function probe(processes: Record<number, string>, options: { machine?: string | null; open?: string[]; legacy?: boolean } = {}): HostProbe {
  return {
    machine: options.machine === undefined ? 'boot-a/pid:[1]' : options.machine,
    isOpenHere: (instance) => (options.open ?? []).includes(instance),
    process: (pid) => (processes[pid] === undefined ? null : { startTime: processes[pid] }),
    legacyAlive: () => options.legacy ?? false,
  };
}

const owner = { pid: 4242, hostname: 'box', instance: 'inst-1' };
const lease = (at: number, extra: Partial<HostLeaseRow> = {}): HostLeaseRow => ({
  heartbeatAt: at,
  leaseMs: 12_000,
  machine: 'boot-a/pid:[1]',
  startTime: '900',
  ...extra,
});

describe('judgeHost', () => {
  it('a host on this machine is alive exactly while its process runs with the start time it registered, whatever its heartbeat', () => {
    // Long past its lease (stopped with SIGSTOP, or starved): still alive, its runs are not taken.
    expect(judgeHost(owner, lease(0), 1_000_000, probe({ 4242: '900' }))).toEqual({ alive: true, reason: 'its host (pid 4242 on box) still runs' });
    // Gone: dead at once, well inside its lease.
    expect(judgeHost(owner, lease(1_000), 1_001, probe({}))).toEqual({ alive: false, reason: 'its host (pid 4242 on box) is gone' });
    // The pid was given to another process: dead at once.
    expect(judgeHost(owner, lease(1_000), 1_001, probe({ 4242: '901' }))).toEqual({
      alive: false,
      reason: 'its host (pid 4242 on box) is gone: pid 4242 now belongs to another process',
    });
  });

  it('a host elsewhere (or that /proc cannot tell apart) is alive until its lease runs out, exclusive', () => {
    const elsewhere = lease(1_000, { machine: 'boot-b/pid:[1]' });
    const running = probe({ 4242: '900' });
    expect(judgeHost(owner, elsewhere, 12_999, running).alive).toBe(true);
    expect(judgeHost(owner, elsewhere, 13_000, running)).toEqual({ alive: false, reason: 'its host (pid 4242 on box) let its lease expire' });
    // This machine, but no start time recorded: the pid alone could be reused, so the lease decides.
    const unverified = lease(1_000, { startTime: null });
    expect(judgeHost(owner, unverified, 12_999, running).alive).toBe(true);
    expect(judgeHost(owner, unverified, 13_000, running).alive).toBe(false);
    // …but a pid that is gone is gone.
    expect(judgeHost(owner, unverified, 2_000, probe({})).alive).toBe(false);
    // This process cannot tell its machine: only the lease.
    expect(judgeHost(owner, lease(1_000), 12_999, probe({}, { machine: null })).alive).toBe(true);
    expect(judgeHost(owner, lease(1_000), 13_000, probe({}, { machine: null })).alive).toBe(false);
  });

  it('a store open in this process is alive; one closed is dead, even with a fresh lease on this machine', () => {
    const mine = { pid: process.pid, hostname: 'box', instance: 'mine' };
    const fresh = lease(1_000, { startTime: processStartTime(process.pid) ?? '1' });
    expect(judgeHost(mine, fresh, 1_000, { ...probe({}), isOpenHere: (i) => i === 'mine' }).alive).toBe(true);
    expect(judgeHost(mine, fresh, 1_000, { ...probe({ [process.pid]: fresh.startTime! }) })).toEqual({
      alive: false,
      reason: `its host (pid ${process.pid} on box) closed its store`,
    });
  });

  it('without a lease row: SQLite asks the pid (a Hivewatch from before leases), PostgreSQL says gone; no host at all is dead', () => {
    expect(judgeHost(owner, null, 0, probe({}, { legacy: true }), 'legacy').alive).toBe(true);
    expect(judgeHost(owner, null, 0, probe({}, { legacy: false }), 'legacy')).toEqual({ alive: false, reason: 'its host (pid 4242 on box) is gone' });
    expect(judgeHost(owner, null, 0, probe({}, { legacy: true }), 'gone').alive).toBe(false);
    expect(judgeHost(undefined, null, 0, probe({}), 'legacy')).toEqual({ alive: false, reason: 'no live host holds it' });
  });
});

describe.skipIf(!procAvailable())(skipTitle('judgeHost on this machine', procAvailable() ? null : 'no /proc on this machine'), () => {
  it('sees a real process alive past its lease, and dead the moment it is killed, inside its lease', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      const pid = child.pid!;
      const host = { pid, hostname: 'here', instance: 'child' };
      const row = { heartbeatAt: 0, leaseMs: 12_000, machine: thisMachine(), startTime: processStartTime(pid) };
      // Long past the lease, but its process runs: alive.
      expect(judgeHost(host, row, 10_000_000, localProbe).alive).toBe(true);
      child.kill('SIGKILL');
      await once(child, 'exit');
      // Inside its lease, but its process is gone.
      expect(judgeHost(host, { ...row, heartbeatAt: 10_000_000 }, 10_000_001, localProbe)).toMatchObject({ alive: false });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a zombie (exited, not yet reaped by its parent) is dead', async () => {
    // The background `sleep` is killed once its parent is the exec'd `sleep 60`, which never reaps it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
      const pid = Number(line.toString().trim());
      await expect
        .poll(() => readFileSync(`/proc/${parent.pid}/cmdline`, 'utf8').startsWith('sleep'), { message: 'the shell to become sleep', timeout: 20_000 })
        .toBeTruthy();
      process.kill(pid, 'SIGKILL');
      await expect.poll(() => readProcStat(pid)?.state === 'Z', { message: 'the child to be a zombie', timeout: 20_000 }).toBeTruthy();
      const host = { pid, hostname: 'here', instance: 'zombie' };
      const row = { heartbeatAt: Date.now(), leaseMs: 12_000, machine: thisMachine(), startTime: readProcStat(pid)!.startTime };
      expect(judgeHost(host, row, Date.now(), localProbe)).toMatchObject({ alive: false, reason: `its host (pid ${pid} on here) is gone` });
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('names this machine by boot and pid namespace, and an instance is open here until released', () => {
    expect(thisMachine()).toMatch(/^[0-9a-f-]{36}\/pid:\[\d+\]$/);
    const instance = newInstance();
    expect(instance).toMatchObject({ pid: process.pid, machine: thisMachine(), startTime: processStartTime(process.pid) });
    expect(localProbe.isOpenHere(instance.instance)).toBe(true);
    releaseInstance(instance);
    expect(localProbe.isOpenHere(instance.instance)).toBe(false);
  });
});
