import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { groupAlive, signalGroupId } from './process-group.js';
import { readProcStat } from './process-identity.js';
import { runProcess } from './process.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * The spawner (spawner.ts, spawner-child.js): agents are forked by a small helper process, not
 * by the host, and nothing of the helper changes what an attempt is: its
 * group, its output, its end, and what is left when a host or the helper dies.
 */

const node = process.execPath;
/** The compiled module a host process imports (the vitest global setup builds dist/). */
const DIST_PROCESS = fileURLToPath(new URL('../../../dist/core/runtimes/process/process.js', import.meta.url));
const procAvailable = readProcStat(process.pid) !== null;

function parentOf(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The nice of a process's autogroup ("/autogroup-12 nice 10"); null where the kernel has none.
 * An empty file is the root group (the session never called setsid), which weighs as nice 0.
 */
function groupNice(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/autogroup`, 'utf8');
  } catch {
    return null;
  }
  const match = /nice (-?\d+)/.exec(text);
  return match ? Number(match[1]) : 0;
}

const commandLine = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return (readProcStat(pid)?.state ?? 'Z') !== 'Z';
  } catch {
    return false;
  }
}

/** Groups a test left running (an orphaned agent is what a dead host leaves; recovery is not under test here). */
const leftGroups: number[] = [];
afterEach(() => {
  for (const pgid of leftGroups.splice(0)) signalGroupId(pgid, 'SIGKILL');
});

describe.skipIf(!procAvailable)(skipTitle('the spawner', procAvailable ? null : 'no /proc on this system'), () => {
  it('forks the agent, so the host never forks its own heap; output, exit status and group are the same', async () => {
    let started = 0;
    const r = await runProcess({
      argv: [node, '-e', "console.log(process.ppid); console.error('to stderr'); process.exitCode = 4"],
      runtimeName: 't',
      onStarted: ({ pid, startTime }) => {
        started = pid;
        expect(startTime).toMatch(/^\d+$/);
      },
    });
    expect(r).toMatchObject({ exitCode: 4, signal: null, stderr: 'to stderr\n', cancelled: false });
    expect(r.pid).toBe(started);
    const parent = Number(r.stdout.trim());
    expect(parent).not.toBe(process.pid);
    expect(commandLine(parent)).toContain('spawner-child.js');
    // The helper is this host's child, in a group of its own (a terminal's Ctrl-C does not reach it).
    expect(parentOf(parent)).toBe(process.pid);
    expect(readProcStat(parent)?.pgrp).toBe(parent);
  });

  it('runs agents ten steps nicer than the host (at most 19), their scheduling group too, so a busy machine serves the host first', async () => {
    let agent = 0;
    const pending = runProcess({ argv: ['/bin/sh', '-c', 'sleep 30'], runtimeName: 't', killGraceMs: 200, onStarted: ({ pid }) => (agent = pid) });
    await vi.waitFor(() => expect(agent).toBeGreaterThan(0), { timeout: 30_000 });
    leftGroups.push(agent);
    // Field 19 of /proc/<pid>/stat is the nice value; the spawner set its own, the agent inherited it.
    expect(readProcStat(agent)).not.toBeNull();
    const stat = readFileSync(`/proc/${agent}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(Math.min(19, getPriority() + 10));
    // With autogroup scheduling the agent leads a group of its own: that group is made nicer too
    // (written before the spawner reports the start, so it is there by now).
    const hostGroup = groupNice(process.pid);
    if (hostGroup === null) expect(groupNice(agent)).toBeNull();
    else expect(groupNice(agent)).toBe(Math.min(19, hostGroup + 10));
    signalGroupId(agent, 'SIGKILL');
    await pending;
  });

  it("when the spawner dies mid-attempt, ends the agent's group and says why (ESPAWNER); the next attempt gets a new spawner", async () => {
    let agent = 0;
    const pending = runProcess({ argv: ['/bin/sh', '-c', 'sleep 30'], runtimeName: 't', killGraceMs: 200, onStarted: ({ pid }) => (agent = pid) });
    await vi.waitFor(() => expect(agent).toBeGreaterThan(0), { timeout: 30_000 });
    leftGroups.push(agent);
    const spawnerPid = parentOf(agent);
    expect(commandLine(spawnerPid)).toContain('spawner-child.js');
    process.kill(spawnerPid, 'SIGKILL');
    const r = await pending;
    expect(r.spawnError?.code).toBe('ESPAWNER');
    expect(r.spawnError?.message).toContain('spawner process ended while the agent ran');
    expect(groupAlive(agent)).toBe(false);

    const next = await runProcess({ argv: [node, '-e', 'console.log(process.ppid)'], runtimeName: 't' });
    expect(next.exitCode).toBe(0);
    expect(Number(next.stdout.trim())).not.toBe(spawnerPid);
  });

  it('keeps no host alive once its attempts ended, and goes away with a host that dies (kill -9) mid-attempt', async () => {
    // A host whose only work is one short attempt exits by itself, as it did when it forked the agent.
    const quick = spawnSync(
      node,
      [
        '--input-type=module',
        '-e',
        `const { runProcess } = await import(${JSON.stringify(DIST_PROCESS)}); const r = await runProcess({ argv: ['/bin/echo', 'hi'], runtimeName: 't' }); console.log(r.stdout.trim());`,
      ],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(quick.status, quick.stderr).toBe(0);
    expect(quick.stdout.trim()).toBe('hi');

    const hostScript = `const { runProcess } = await import(${JSON.stringify(DIST_PROCESS)}); await runProcess({ argv: ['/bin/sh', '-c', 'sleep 30'], runtimeName: 't', onStarted: ({ pid }) => console.log(pid) });`;
    const host = spawn(node, ['--input-type=module', '-e', hostScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    host.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await vi.waitFor(() => expect(out).toMatch(/^\d+\n/), { timeout: 20_000 });
    const agent = Number(out.trim());
    leftGroups.push(agent);
    const spawnerPid = parentOf(agent);
    expect(parentOf(spawnerPid)).toBe(host.pid);
    const exited = new Promise((resolve) => host.on('exit', resolve));
    host.kill('SIGKILL');
    await exited;
    // The helper sees its channel close and exits; the agent is left as a dead host leaves one (recovery ends it).
    await vi.waitFor(() => expect(alive(spawnerPid)).toBe(false), { timeout: 10_000 });
    expect(groupAlive(agent)).toBe(true);
  });
});
