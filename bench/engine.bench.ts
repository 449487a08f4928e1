import { spawn } from 'node:child_process';
import { checkFlow } from '../core/flow/check.js';
import type { FlowPlan } from '../core/flow/plan.js';
import { VirtualClock } from '../core/base/clock.js';
import { FlowRun } from '../core/engine/run.js';
import type { EventSink } from '../core/base/events.js';
import { createRuntimeRegistry } from '../core/runtimes/registry.js';
import { bestOf, type Measurement } from './measure.js';

const nullSink: EventSink = { append: () => undefined, flush: () => Promise.resolve() };

function plan(source: string): FlowPlan {
  const result = checkFlow(source, 'bench.prose');
  if (!result.ok || !result.plan) throw new Error(`bench flow does not check: ${JSON.stringify(result.diagnostics)}`);
  return result.plan;
}

/** One step whose frontier is `n` sessions (a parallel of n branches). */
function fanOut(n: number, agent: string): FlowPlan {
  const branches = Array.from({ length: n }, (_, i) => `  b${i} = session: ${agent}\n    prompt: "task ${i}"\n`).join('');
  return plan(`agent ${agent}:\n  runtime: "${agent === 'tru' ? 'command' : 'noop'}"\n${agent === 'tru' ? '  command: "/bin/true"\n' : ''}parallel (on-fail: "continue"):\n${branches}`);
}

async function runPlan(p: FlowPlan, concurrency: number, maxSteps = 100): Promise<void> {
  const clock = new VirtualClock();
  const result = await new FlowRun({ plan: p, registry: createRuntimeRegistry({ clock }), sink: nullSink, clock, concurrency, maxSteps }).start();
  if (result.status !== 'completed') throw new Error(`bench run ${result.status}: ${JSON.stringify(result.error)}`);
}

function spawnTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

async function bareSpawns(n: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      next++;
      await spawnTrue();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function engineBenchmarks(options: { quick: boolean }): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const spawns = options.quick ? 200 : 1000;
  const commandPlan = fanOut(spawns, 'tru');
  await bareSpawns(50, 2); // warm-up
  const bare = await bestOf(3, () => bareSpawns(spawns, 2));
  const engine = await bestOf(3, () => runPlan(commandPlan, 2));
  out.push({
    name: `${spawns} command sessions of /bin/true, concurrency 2`,
    value: engine,
    unit: 'ms',
    baseline: bare,
    ratio: engine / bare,
    target: '≤ 1.25× a bare Node spawn loop',
    pass: engine / bare <= 1.25,
  });

  const tasks = options.quick ? 2000 : 10_000;
  const noopFanOut = fanOut(tasks, 'nop');
  const sequential = plan(`agent nop:\n  runtime: "noop"\nrepeat ${tasks}:\n  session: nop\n    prompt: "tick"\n`);
  const bareAsync = await bestOf(5, async () => {
    for (let i = 0; i < tasks; i++) await Promise.resolve(`task ${i}`);
  });
  const fan = await bestOf(3, () => runPlan(noopFanOut, 4));
  const seq = await bestOf(3, () => runPlan(sequential, 1, tasks + 1));
  out.push({
    name: `${tasks} noop sessions in one step: engine overhead per task`,
    value: (fan * 1000) / tasks,
    unit: 'µs/task',
    baseline: (bareAsync * 1000) / tasks,
    ratio: fan / bareAsync,
    target: '< 50 µs/task',
    pass: (fan * 1000) / tasks < 50,
  });
  out.push({
    name: `${tasks} noop sessions, one step each: overhead per task`,
    value: (seq * 1000) / tasks,
    unit: 'µs/task',
    baseline: (bareAsync * 1000) / tasks,
    ratio: seq / bareAsync,
    target: '< 50 µs/task',
    pass: (seq * 1000) / tasks < 50,
    note: 'each step also commits, checkpoints and lets threads settle (one macrotask)',
  });
  return out;
}
