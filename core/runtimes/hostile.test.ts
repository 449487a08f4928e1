import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RealClock } from '../base/clock.js';
import type { EventOf, HivewatchEvent } from '../base/events.js';
import { FlowRun } from '../engine/run/run.js';
import { planOf } from '../engine/testing.js';
import { createDurableSink, openStore, type HivewatchStore } from '../store/index.js';
import { groupAlive } from './process/process-group.js';
import { readProcStat } from './process/process-identity.js';
import { createRuntimeRegistry } from './registry.js';

/**
 * The hostile runtime matrix: real subprocesses through the command runtime and the
 * real journal, each misbehaving in one way. Every case checks the run's outcome against the
 * taxonomy, that nothing of the attempt is left running (its group, and any grandchild it
 * names), and the flood case that memory stays bounded by the tail buffers.
 */

const MiB = 1024 * 1024;
let dir: string;
let store: HivewatchStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-hostile-'));
  store = await openStore({ path: join(dir, 'hivewatch.db') });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs: kill(0) finds it and /proc does not show a zombie (which only waits to be reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readProcStat(pid);
  return stat === null ? true : stat.state !== 'Z' && stat.state !== 'X';
}

async function runAgent(name: string, command: string, options: { timeout?: string } = {}): Promise<{ status: string; events: HivewatchEvent[] }> {
  const source = [
    'agent hostile:',
    '  runtime: "command"',
    `  command: "${command}"`,
    ...(options.timeout ? [`  timeout: ${options.timeout}`] : []),
    '  retry: 0',
    'let out = session: hostile',
    '  prompt: "go"',
    '',
  ].join('\n');
  const run = new FlowRun({
    plan: planOf(source, { file: `${name}.prose` }),
    registry: createRuntimeRegistry({ killGraceMs: 200 }),
    sink: createDurableSink(store),
    clock: new RealClock(),
  });
  const result = await run.start();
  return { status: result.status, events: await store.getEvents(run.runId, 0, 100_000) };
}

function script(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function processGroups(events: readonly HivewatchEvent[]): number[] {
  return events.filter((e): e is EventOf<'attemptProcess'> => e.type === 'attemptProcess').map((e) => e.pid);
}

function failure(events: readonly HivewatchEvent[]): { code: string; category: string } | undefined {
  const failed = events.find((e): e is EventOf<'runFailed'> => e.type === 'runFailed');
  return failed && { code: failed.error.code, category: failed.error.category };
}

function output(events: readonly HivewatchEvent[]): string {
  const done = events.find((e): e is EventOf<'taskSucceeded'> => e.type === 'taskSucceeded');
  return done?.output ?? '';
}

function expectNothingLeft(events: readonly HivewatchEvent[], extra: number[] = []): void {
  const groups = processGroups(events);
  expect(groups.length).toBeGreaterThan(0);
  for (const pgid of groups) expect(groupAlive(pgid)).toBe(false);
  for (const pid of extra) expect(alive(pid)).toBe(false);
}

describe('hostile runtimes (real subprocesses, command runtime, real journal)', () => {
  it('an agent that ignores SIGTERM times out as RUNTIME_TIMEOUT and is killed, children included', async () => {
    const pids = join(dir, 'term.pids');
    const agent = script('ignore-term.sh', `trap '' TERM\nsleep 30 &\necho $$ $! > ${pids}\nwait\n`);
    const { status, events } = await runAgent('ignore-term', `/bin/sh ${agent}`, { timeout: '300ms' });
    expect(status).toBe('failed');
    expect(failure(events)).toEqual({ code: 'RUNTIME_TIMEOUT', category: 'runtime' });
    expectNothingLeft(events, readFileSync(pids, 'utf8').trim().split(' ').map(Number));
  });

  it('an agent flooding 200 MB to stdout completes with the last 1 MiB, in bounded memory', async () => {
    // Memory is read at defined points, not on a timer: after every 20 MiB the flood stops (its
    // pipe writes are synchronous, so all but a pipe's worth has been read by this process), says
    // so with a file, and waits on a FIFO until the reading here is taken.
    const gate = join(dir, 'flood.gate');
    expect(spawnSync('mkfifo', [gate]).status).toBe(0);
    const flood = script(
      'flood.js',
      `const fs = require('fs'); const b = Buffer.alloc(1024 * 1024, 120); let n = 0;
const w = () => { while (n < 200) { if (n > 0 && n % 20 === 0) { fs.writeFileSync(${JSON.stringify(dir)} + '/flood.at-' + n, ''); fs.readFileSync(${JSON.stringify(gate)}); }
  n++; if (!process.stdout.write(b)) return process.stdout.once('drain', w); } process.stdout.write('END'); }; w();\n`,
    );
    const before = process.memoryUsage().rss;
    const samples: number[] = [];
    const finished = runAgent('flood', `${process.execPath} ${flood}`);
    for (let at = 20; at < 200; at += 20) {
      await vi.waitFor(() => expect(existsSync(join(dir, `flood.at-${at}`)), `the flood at ${at} MiB`).toBe(true), { timeout: 30_000 });
      samples.push(process.memoryUsage().rss - before);
      writeFileSync(gate, 'go');
    }
    const { status, events } = await finished;
    samples.push(process.memoryUsage().rss - before);
    expect(samples).toHaveLength(10);
    expect(status).toBe('completed');
    const out = output(events);
    expect(out.endsWith('xxxEND')).toBe(true);
    expect(out.length).toBeLessThan(MiB + 100);
    expect(out).toContain(`${200 * MiB + 3 - MiB} bytes truncated`);
    // 200 MiB went through; holding it would show at the later points. The bound leaves room for GC lag.
    expect(Math.max(...samples)).toBeLessThan(150 * MiB);
    expectNothingLeft(events);
  });

  it('a background grandchild of a successful attempt is ended with it', async () => {
    const agent = script('fork.sh', 'sleep 300 >/dev/null 2>&1 &\necho $!\n');
    const { status, events } = await runAgent('fork', `/bin/sh ${agent}`);
    expect(status).toBe('completed');
    const grandchild = Number(output(events));
    expect(grandchild).toBeGreaterThan(0);
    expectNothingLeft(events, [grandchild]);
  });

  it('a background grandchild of a failing attempt is ended too; the failure is RUNTIME_CRASHED', async () => {
    const pids = join(dir, 'crash.pids');
    const agent = script('fork-crash.sh', `sleep 300 &\necho $! > ${pids}\necho boom >&2\nexit 3\n`);
    const { status, events } = await runAgent('fork-crash', `/bin/sh ${agent}`);
    expect(status).toBe('failed');
    expect(failure(events)).toEqual({ code: 'RUNTIME_CRASHED', category: 'runtime' });
    expectNothingLeft(events, [Number(readFileSync(pids, 'utf8'))]);
  });

  it('a missing binary fails as RUNTIME_CONNECTION_FAILED naming the command, with no process journaled', async () => {
    const { status, events } = await runAgent('missing', 'hivewatch-no-such-agent-cli -p');
    expect(status).toBe('failed');
    expect(failure(events)).toEqual({ code: 'RUNTIME_CONNECTION_FAILED', category: 'runtime' });
    const failed = events.find((e): e is EventOf<'runFailed'> => e.type === 'runFailed');
    expect(failed?.error.message).toContain('command not found: "hivewatch-no-such-agent-cli" (ENOENT)');
    expect(processGroups(events)).toEqual([]);
  });

  it('invalid UTF-8 output is journaled with replacement characters and the run completes', async () => {
    const agent = script('bad-utf8.sh', "printf 'ok \\377\\376 \\303( end'\n");
    const { status, events } = await runAgent('bad-utf8', `/bin/sh ${agent}`);
    expect(status).toBe('completed');
    expect(output(events)).toBe('ok \ufffd\ufffd \ufffd( end');
    expectNothingLeft(events);
  });
});
