import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { canonicalJournal } from './model/canonical.js';
import { journalProblems } from './model/journal-invariants.js';
import { VirtualClock } from '../base/clock.js';
import { resumePointFromEvents } from '../base/resume-point.js';
import { ofType, planOf, runPlan, ScriptedRuntime, scriptedRegistry, startRun, typesOf } from './testing.js';

const FLOW = `
agent worker:
  runtime: "fake"

let plan = session: worker
  prompt: "Write the plan"
  simulate: "ok:the plan"
let results = parallel (on-fail: "continue"):
  a = session: worker
    prompt: "Build A from {plan}"
    retry: 2
    simulate: "rate_limit, ok:A built"
  b = session: worker
    prompt: "Build B"
    simulate: "exit:2"
  c = session: worker
    prompt: "Build C"
    retry: 1
    simulate: "crash, ok:C built"
try:
  session: worker
    prompt: "Verify {results}"
    simulate: "malformed"
catch err:
  session: worker
    prompt: "Report {err.code}"
`;

describe('replay parity and determinism (rule 15)', () => {
  it('one flow run twice on the fake runtime (real subprocesses) and the virtual clock yields the same canonical journal', async () => {
    const plan = planOf(FLOW);
    const runOnce = async (): Promise<unknown[]> => {
      const clock = new VirtualClock(Date.UTC(2026, 0, 1));
      const { events, result } = await runPlan(plan, { clock, registry: createRuntimeRegistry({ clock }), defaultAgent: null });
      expect(result.status).toBe('completed');
      return canonicalJournal(events);
    };
    const first = await runOnce();
    const second = await runOnce();
    expect(second).toEqual(first);
    // The journal is not trivially empty: it holds the retries and the caught failures.
    const types = first.map((e) => (e as { type: string }).type);
    expect(types.filter((t) => t === 'retryScheduled')).toHaveLength(2);
    expect(types.filter((t) => t === 'taskFailed')).toHaveLength(2);
  }, 60_000);

  it('resume continues from the last checkpoint without re-running committed steps', async () => {
    const plan = planOf(`
let a = session "one"
let b = session "two {a}"
let c = session "three {b}"
`);
    const firstRuntime = new ScriptedRuntime({});
    const first = startRun(plan, { registry: scriptedRegistry(firstRuntime) });
    first.run.onEvent((e) => {
      if (e.type === 'stepFinished' && e.step === 2) first.run.cancel();
    });
    expect((await first.done).status).toBe('cancelled');

    const resumeRuntime = new ScriptedRuntime({});
    const point = resumePointFromEvents('run_test', first.sink.events);
    expect(point.throughStep).toBe(2);
    const { result, events } = await runPlan(plan, {
      runId: 'run_resumed',
      resume: point,
      registry: scriptedRegistry(resumeRuntime),
      clock: new VirtualClock(0),
    });
    expect(result.status).toBe('completed');
    expect(resumeRuntime.calls.map((c) => c.prompt)).toEqual(['three out:two out:one']);
    expect(ofType(events, 'stepStarted').map((e) => e.step)).toEqual([3]);
    expect(ofType(events, 'runStarted')[0]).toMatchObject({ resumedFrom: 'run_test', resumeStep: 2 });
    expect(result.channels).toEqual({ a: 'out:one', b: 'out:two out:one', c: 'out:three out:two out:one' });
    // The resumed run's journal stands on its own: its first checkpoint holds the whole state.
    expect(ofType(events, 'checkpointSaved').map((e) => [e.channels, e.delta])).toEqual([[result.channels, undefined]]);
    expect(typesOf(events).at(-1)).toBe('runCompleted');
  });

  it('resume of a journal without a flow digest whose program no longer matches fails as state corruption', async () => {
    // Journals carry the flow's digest and a changed text is refused up front (resume.test.ts);
    // journals from before the digest still meet the structural check in replay.
    const original = planOf(`session "one"\nsession "two"\n`);
    const first = await runPlan(original, { maxSteps: 1 });
    const legacy = first.events.map((e) => (e.type === 'runStarted' ? { ...e, flowDigest: undefined } : e));
    const changed = planOf(`parallel:\n  a = session "one"\n  b = session "new"\nsession "two"\n`);
    const { result } = await runPlan(changed, { resume: resumePointFromEvents('run_test', legacy) });
    expect(result.error?.code).toBe('SYSTEM_STATE_CORRUPTION');
  });
});

/**
 * Rules 15 and 18 on a busy machine: the same flow, run several times on the fake runtime (real
 * subprocesses) and the virtual clock while two busy loops hold the CPU, has one canonical
 * journal. Its processes end in whatever order the scheduler lets them, so the journal's own
 * order (seq) differs from run to run; the canonical order (model/canonical.ts) may not.
 */

const RUNS = 5;

const FLOWS: Record<string, { source: string; concurrency?: number }> = {
  // Three failures: the earliest ordinal's is the one error, the others count as cancelled.
  'fail-fast, three failures': {
    source: 'parallel:\n  session "A"\n    simulate: "exit:11"\n  session "B"\n    simulate: "exit:12"\n  session "C"\n    simulate: "exit:13"\n',
  },
  // Two slots for three tasks: C starts when A or B has ended, before or after A's failure.
  'fail-fast, three failures, two slots': {
    source: 'parallel:\n  session "A"\n    simulate: "exit:11"\n  session "B"\n    simulate: "exit:12"\n  session "C"\n    simulate: "exit:13"\n',
    concurrency: 2,
  },
  // B's failure may end before A's success or after it; it counts either way, and cancels C.
  'fail-fast, a higher failure waits for a lower success': {
    source: 'parallel:\n  session "A"\n    simulate: "ok:a"\n  session "B"\n    simulate: "exit:3"\n  session "C"\n    simulate: "exit:4"\n',
  },
  // Nothing waits: every failure counts as it happens; retries sleep on the virtual clock.
  'continue, a retry and a failure': {
    source:
      'let r = parallel (on-fail: "continue"):\n  a = session "A"\n    retry: 1\n    simulate: "rate_limit, ok:A"\n  b = session "B"\n    simulate: "exit:3"\n',
  },
};

async function journalOf(source: string, concurrency: number | undefined): Promise<HivewatchEvent[]> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const { events } = await runPlan(planOf(source), {
    clock,
    registry: createRuntimeRegistry({ clock }),
    defaultAgent: 'fake',
    ...(concurrency !== undefined ? { concurrency } : {}),
  });
  return events;
}

describe('one canonical journal under CPU load (rules 15, 18)', () => {
  const hogs: ChildProcess[] = [];

  beforeAll(() => {
    // Two busy loops on this two-core machine: the agents' subprocesses and the engine fight for the CPU.
    for (let i = 0; i < 2; i++) hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  });

  afterAll(async () => {
    await Promise.all(
      hogs.map(async (hog) => {
        if (hog.exitCode !== null || hog.signalCode !== null) return;
        const exited = once(hog, 'exit');
        hog.kill('SIGKILL');
        await exited;
      }),
    );
  });

  for (const [name, { source, concurrency }] of Object.entries(FLOWS)) {
    it(`${name}: ${RUNS} runs beside two busy loops, one canonical journal`, async () => {
      const canonical = new Set<string>();
      for (let i = 0; i < RUNS; i++) {
        const events = await journalOf(source, concurrency);
        expect(journalProblems(events)).toEqual([]);
        canonical.add(JSON.stringify(canonicalJournal(events)));
      }
      expect(canonical.size).toBe(1);
      // Not trivially equal: the journal holds the attempts and their errors.
      const types = (JSON.parse([...canonical][0] ?? '[]') as { type: string }[]).map((e) => e.type);
      expect(types).toContain('attemptFailed');
      expect(types).toContain('errorOccurred');
    }, 120_000);
  }
});
