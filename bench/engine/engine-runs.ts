import { checkFlow } from '../../core/flow/check/check.js';
import type { FlowPlan } from '../../core/flow/plan/plan.js';
import type { HivewatchEvent } from '../../core/base/events.js';
import { VirtualClock } from '../../core/base/clock.js';
import { FlowRun } from '../../core/engine/run/run.js';
import { createRuntimeRegistry } from '../../core/runtimes/registry.js';
import { createDurableSink, openStore } from '../../core/store/index.js';
import { timeIt } from '../harness/measure.js';
import { removeDb, tempPath } from '../store/store-baseline.js';

/** The engine benches' flows and the three ways they run them: journaled, journal alone, engine alone. */

function plan(source: string): FlowPlan {
  const result = checkFlow(source, 'bench.prose');
  if (!result.ok || !result.plan) throw new Error(`bench flow does not check: ${JSON.stringify(result.diagnostics)}`);
  return result.plan;
}

/** One step whose frontier is `n` sessions (a parallel of n branches). */
export function fanOut(n: number, agent: 'tru' | 'nop'): FlowPlan {
  const branches = Array.from({ length: n }, (_, i) => `  b${i} = session: ${agent}\n    prompt: "task ${i}"\n`).join('');
  const runtime = agent === 'tru' ? '  runtime: "command"\n  command: "/bin/true"\n' : '  runtime: "noop"\n';
  return plan(`agent ${agent}:\n${runtime}parallel (on-fail: "continue"):\n${branches}`);
}

/** `n` steps of one noop session each. */
export function sequence(n: number): FlowPlan {
  return plan(`agent nop:\n  runtime: "noop"\nrepeat ${n}:\n  session: nop\n    prompt: "tick"\n`);
}

export interface DurableRun {
  ms: number;
  events: number;
  /** The store's writes as the sink made them, in order: the journal-alone baseline writes the same. */
  batches: readonly (readonly HivewatchEvent[])[];
}

/** Runs the plan with a durable SQLite journal on a fresh database; times the run and the final commit. */
export async function durableRun(p: FlowPlan, concurrency: number, maxSteps = 100): Promise<DurableRun> {
  const path = tempPath('engine');
  removeDb(path);
  const store = await openStore({ path });
  try {
    const clock = new VirtualClock();
    const batches: HivewatchEvent[][] = [];
    // Keeping each batch is a push of the sink's array copy: no read of the events, nothing the run waits on.
    const sink = createDurableSink({
      appendEvents: (events) => {
        batches.push([...events]);
        return store.appendEvents(events);
      },
    });
    let status = '';
    const ms = await timeIt(async () => {
      const result = await new FlowRun({ plan: p, registry: createRuntimeRegistry({ clock }), sink, clock, concurrency, maxSteps }).start();
      await sink.close();
      status = result.status;
    });
    if (status !== 'completed') throw new Error(`engine bench run ${status}`);
    return { ms, events: (await store.stats()).events, batches };
  } finally {
    await store.close();
    removeDb(path);
  }
}

/** The baseline of the journal's share: the same batches appended in the same order to a fresh database, one after another. */
export async function journalAlone(batches: DurableRun['batches']): Promise<number> {
  const path = tempPath('engine-journal');
  removeDb(path);
  const store = await openStore({ path });
  try {
    return await timeIt(async () => {
      for (const batch of batches) await store.appendEvents(batch);
    });
  } finally {
    await store.close();
    removeDb(path);
  }
}

/** The engine's share on its own: the same run with every event dropped (its flush resolves at once). */
export async function engineAlone(p: FlowPlan, concurrency: number, maxSteps = 100): Promise<number> {
  const clock = new VirtualClock();
  const sink = { append: (): void => undefined, flush: (): Promise<void> => Promise.resolve() };
  let status = '';
  const ms = await timeIt(async () => {
    status = (await new FlowRun({ plan: p, registry: createRuntimeRegistry({ clock }), sink, clock, concurrency, maxSteps }).start()).status;
  });
  if (status !== 'completed') throw new Error(`engine bench run ${status}`);
  return ms;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
