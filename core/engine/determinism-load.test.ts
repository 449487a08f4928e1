import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../base/clock.js';
import type { HivewatchEvent } from '../base/events.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { journalProblems } from './model/journal-invariants.js';
import { canonicalJournal } from './model/canonical.js';
import { planOf, runPlan } from './testing.js';

/**
 * Rules 15 and 18 on a busy machine: the same flow, run several times on the fake runtime (real
 * subprocesses) and the virtual clock while two busy loops hold the CPU, has one canonical
 * journal. Its processes end in whatever order the scheduler lets them, so the journal's own
 * order (seq) differs from run to run; the canonical order (model/canonical.ts) may not.
 */

const RUNS = 5;

const FLOWS: Record<string, { source: string; concurrency?: number }> = {
  // Three failures: the earliest ordinal's is the one error, the others count as cancelled.
  'fail-fast, three failures': { source: 'parallel:\n  session "A"\n    simulate: "exit:11"\n  session "B"\n    simulate: "exit:12"\n  session "C"\n    simulate: "exit:13"\n' },
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
    source: 'let r = parallel (on-fail: "continue"):\n  a = session "A"\n    retry: 1\n    simulate: "rate_limit, ok:A"\n  b = session "B"\n    simulate: "exit:3"\n',
  },
};

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
