import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { createRuntimeRegistry } from '../../runtimes/registry.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { waiting } from '../../testing/waiting.js';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, startRun, type TestRun } from '../testing.js';

/**
 * Facts at once, judgments when due (docs/semantics.md "Event order within a step"): a fast
 * session's failure is journaled the moment its process ends, while a slow sibling still runs;
 * only whether it counts waits, and only for a lower sibling that could cancel it. The slow
 * sibling is a real subprocess blocked on a FIFO: it ends when the test writes its exit code.
 */

const tempDir = tempDirs();

type Policy = 'continue' | 'fail-fast';
type FastRuntime = 'fake' | 'command';

interface Held {
  test: TestRun;
  /** Lets the slow session end with this exit code. */
  release: (exitCode: number) => Promise<void>;
}

/** A run of `parallel` with a slow session (ordinal 0, held on a FIFO) and a fast one (ordinal 1) that exits 3. */
function startHeld(policy: Policy, fast: FastRuntime): Held {
  const dir = tempDir('hw-live-facts-');
  const fifo = join(dir, 'slow.fifo');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(dir, 'slow.sh'), `read code < '${fifo}'\necho "slow answered"\nexit "$code"\n`);
  writeFileSync(join(dir, 'fast.sh'), 'echo "fast gives up" >&2\nexit 3\n');
  const fastAgent = fast === 'fake' ? 'runtime: "fake"' : `command: "sh ${join(dir, 'fast.sh')}"`;
  const plan = planOf(`
agent slow:
  command: "sh ${join(dir, 'slow.sh')}"
agent fast:
  ${fastAgent}
parallel${policy === 'continue' ? ' (on-fail: "continue")' : ''}:
  session: slow
    prompt: "Review slowly"
  session: fast
    prompt: "Check quickly"${fast === 'fake' ? '\n    simulate: "exit:3"' : ''}
`);
  const test = startRun(plan, { registry: createRuntimeRegistry(), defaultAgent: null });
  const release = async (exitCode: number): Promise<void> => {
    // Opening a FIFO for writing waits for its reader: the slow session's shell, already started.
    const handle = await open(fifo, 'w');
    try {
      await handle.write(`${exitCode}\n`);
    } finally {
      await handle.close();
    }
  };
  return { test, release };
}

/** Runs `body` on a held run; a run the body left going is cancelled (its subprocesses get SIGTERM) before the test ends. */
async function withHeld(policy: Policy, fast: FastRuntime, body: (held: Held) => Promise<void>): Promise<void> {
  const held = startHeld(policy, fast);
  try {
    await body(held);
  } finally {
    held.test.run.cancel({ reason: 'test ended' });
    await held.test.done;
  }
}

const endOf = (events: readonly HivewatchEvent[], taskId: string) =>
  events.find((e) => (e.type === 'attemptSucceeded' || e.type === 'attemptFailed' || e.type === 'attemptCancelled') && e.taskId === taskId);

/** Waits until the fast session's end is journaled; returns it. */
function fastEnd(held: Held) {
  return vi.waitFor(() => ofType(held.test.sink.events, 'attemptFailed').find((e) => e.taskId === '1:1') ?? waiting('the fast session’s attemptFailed'), {
    timeout: 30_000,
    interval: 20,
  });
}

const errorsOf = (events: readonly HivewatchEvent[], taskId: string) => ofType(events, 'errorOccurred').filter((e) => e.taskId === taskId);

describe('an attempt’s end is journaled as it happens, whatever its siblings do', () => {
  for (const fast of ['fake', 'command'] as const) {
    it(`continue (${fast} runtime): the fast failure and its error are journaled while the slow sibling runs, and wait for nothing`, async () => {
      await withHeld('continue', fast, async (held) => {
        const failed = await fastEnd(held);
        const { events } = held.test.sink;
        expect(failed.trace?.exitCode).toBe(3);
        expect(failed.awaiting).toBeUndefined();
        // No sibling of a continue parallel holds a failure back: it counts at once, caught.
        expect(errorsOf(events, '1:1').map((e) => [e.error.code, e.caught, e.retrying])).toEqual([['RUNTIME_CRASHED', true, false]]);
        // The slow sibling cannot have ended: it waits on the FIFO.
        expect(endOf(events, '1:0')).toBeUndefined();
        expect(held.test.run.status).toBe('running');

        await held.release(0);
        const result = await held.test.done;
        expect(result.status).toBe('completed');
        const slowEnd = endOf(held.test.sink.events, '1:0');
        expect(slowEnd?.type).toBe('attemptSucceeded');
        expect(failed.seq).toBeLessThan(slowEnd?.seq ?? 0);
      });
    });

    it(`fail-fast (${fast} runtime): the fast failure is journaled while the lower sibling runs, saying it waits for it; it counts once the sibling succeeded`, async () => {
      await withHeld('fail-fast', fast, async (held) => {
        const failed = await fastEnd(held);
        const { events } = held.test.sink;
        expect(failed.trace?.exitCode).toBe(3);
        expect(failed.error.context.exitCode).toBe(3);
        expect(failed.awaiting).toEqual(['1:0']);
        // Whether it counts is the judgment that waits: no error, no verdict yet.
        expect(errorsOf(events, '1:1')).toEqual([]);
        expect(ofType(events, 'attemptJudgedCancelled')).toEqual([]);
        expect(endOf(events, '1:0')).toBeUndefined();

        await held.release(0);
        const result = await held.test.done;
        const after = held.test.sink.events;
        // The sibling succeeded, so the failure counts: its error follows the sibling's end, and ends the run.
        const slowEnd = endOf(after, '1:0');
        expect(slowEnd?.type).toBe('attemptSucceeded');
        const counted = errorsOf(after, '1:1');
        expect(counted.map((e) => [e.error.code, e.caught])).toEqual([['RUNTIME_CRASHED', false]]);
        expect(counted[0]?.seq).toBeGreaterThan(slowEnd?.seq ?? Infinity);
        expect(result.status).toBe('failed');
        expect(result.error).toMatchObject({ code: 'RUNTIME_CRASHED', correlation: { task: '1:1' } });
        expect(ofType(after, 'attemptJudgedCancelled')).toEqual([]);
      });
    });
  }

  it('fail-fast: the fast failure journaled first is judged cancelled once the lower sibling fails, with no error of its own', async () => {
    await withHeld('fail-fast', 'command', async (held) => {
      const failed = await fastEnd(held);
      expect(failed.awaiting).toEqual(['1:0']);

      await held.release(5);
      const result = await held.test.done;
      const events = held.test.sink.events;
      const slowEnd = endOf(events, '1:0');
      expect(slowEnd).toMatchObject({ type: 'attemptFailed', trace: { exitCode: 5 } });
      expect(result.error).toMatchObject({ correlation: { task: '1:0' }, context: { exitCode: 5 } });
      // The lower sibling's failure makes the fast task count as cancelled: the verdict follows its end and its fact stays.
      const judged = ofType(events, 'attemptJudgedCancelled');
      expect(judged.map((e) => [e.taskId, e.attempt, e.by])).toEqual([['1:1', 1, 'sibling']]);
      expect(judged[0]?.seq).toBeGreaterThan(slowEnd?.seq ?? Infinity);
      expect(errorsOf(events, '1:1')).toEqual([]);
      expect(ofType(events, 'attemptFailed').map((e) => [e.taskId, e.trace?.exitCode])).toEqual([
        ['1:1', 3],
        ['1:0', 5],
      ]);
      expect(ofType(events, 'taskFailed').map((e) => [e.taskId, e.cancelled, e.settled?.outcome])).toEqual([
        ['1:0', false, undefined],
        ['1:1', true, 'failed'],
      ]);
    });
  });
});

describe('a system error still cancels a failure that counted (F7)', () => {
  it('continue: the higher failure counts at once; the lower sibling’s system error then cancels it, and its occurrence stays', async () => {
    let bFailed!: () => void;
    const afterB = new Promise<void>((resolve) => (bFailed = resolve));
    const runtime = new ScriptedRuntime({
      // A runtime that throws instead of answering breaks an invariant: a system error, which escapes continue.
      A: async () => {
        await afterB;
        throw new Error('the runtime lost its process');
      },
      B: () => {
        setImmediate(bFailed);
        return runtimeError('RUNTIME_CRASHED', 'B exited 3');
      },
    });
    const { result, events } = await runPlan(planOf('parallel (on-fail: "continue"):\n  session "A"\n  session "B"\n'), {
      registry: scriptedRegistry(runtime),
    });
    const bError = ofType(events, 'errorOccurred').find((e) => e.taskId === '1:1');
    const aError = ofType(events, 'errorOccurred').find((e) => e.taskId === '1:0');
    // B's failure counted before A ended: caught by the continue parallel, nothing to wait for.
    expect(bError).toMatchObject({ caught: true, retrying: false, error: { code: 'RUNTIME_CRASHED' } });
    expect(ofType(events, 'attemptFailed').find((e) => e.taskId === '1:1')?.awaiting).toBeUndefined();
    expect(bError?.seq).toBeLessThan(aError?.seq ?? 0);
    // A's system error kills the continue parallel: B counts as cancelled after all, its verdict after its error.
    const judged = ofType(events, 'attemptJudgedCancelled');
    expect(judged.map((e) => e.taskId)).toEqual(['1:1']);
    expect(judged[0]?.seq).toBeGreaterThan(bError?.seq ?? Infinity);
    expect(ofType(events, 'taskFailed').map((e) => [e.taskId, e.cancelled])).toEqual([
      ['1:0', false],
      ['1:1', true],
    ]);
    expect(result.error).toMatchObject({ code: 'SYSTEM_INVARIANT_VIOLATED' });
    expect(ofType(events, 'runFailed')[0]?.chain?.map((l) => l.taskId)).toEqual(['1:0']);
  });
});
