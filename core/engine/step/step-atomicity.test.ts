import { describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, typesOf } from '../testing.js';

const COMMIT_SCOPED = ['writeApplied', 'checkpointSaved', 'stepFinished'];

describe('step atomicity (rules 5–8)', () => {
  it('multiple task failures throw the earliest ordinal error, even when a later one fails first', async () => {
    let releaseFirst!: () => void;
    const firstMayFail = new Promise<void>((resolve) => (releaseFirst = resolve));
    const runtime = new ScriptedRuntime({
      A: async () => {
        await firstMayFail;
        return runtimeError('RUNTIME_CRASHED', 'A crashed');
      },
      B: () => {
        // B (ordinal 1) fails first; A (ordinal 0) fails after it.
        setImmediate(releaseFirst);
        return runtimeError('RUNTIME_TIMEOUT', 'B timed out');
      },
    });
    const plan = planOf(`
parallel:
  a = session "A"
  b = session "B"
`);
    const { result, events } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('RUNTIME_CRASHED');
    expect(result.error?.message).toBe('A crashed');
    // A's failure kills the parallel, so B (a higher ordinal) counts as cancelled; its own failure stays on the record.
    expect(ofType(events, 'taskFailed').map((e) => [e.ordinal, e.error.code, e.cancelled, e.settled])).toEqual([
      [0, 'RUNTIME_CRASHED', false, undefined],
      [1, 'SYSTEM_CANCELLED', true, { outcome: 'failed', error: expect.objectContaining({ code: 'RUNTIME_TIMEOUT' }) }],
    ]);
    // B's end is a fact, journaled when it happened (before A's), waiting for A; its failure is
    // not an error of its own (F6): A's cancelled it, so only A's errorOccurred is journaled, and
    // B is judged cancelled by its sibling after A's end.
    expect(ofType(events, 'errorOccurred').map((e) => e.error.code)).toEqual(['RUNTIME_CRASHED']);
    expect(ofType(events, 'attemptFailed').map((e) => [e.ordinal, e.error.code, e.awaiting])).toEqual([
      [1, 'RUNTIME_TIMEOUT', ['1:0']],
      [0, 'RUNTIME_CRASHED', undefined],
    ]);
    expect(ofType(events, 'attemptCancelled')).toEqual([]);
    const judged = ofType(events, 'attemptJudgedCancelled');
    expect(judged.map((e) => [e.taskId, e.attempt, e.by])).toEqual([['1:1', 1, 'sibling']]);
    expect(judged[0]?.seq).toBeGreaterThan(ofType(events, 'attemptFailed')[1]?.seq ?? Infinity);
    expect(typesOf(events).filter((t) => COMMIT_SCOPED.includes(t))).toEqual([]);
  });

  it('commit failure precedence: unknown channel beats update policy', async () => {
    const plan = planOf(
      `
let x = "seed"
parallel:
  do:
    x = session "write x first"
  do:
    x = session "write x second"
  do:
    ghost = session "write an undeclared channel"
`,
      { allowInvalid: true },
    );
    const { result, events } = await runPlan(plan);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(result.error?.message).toBe('write to unknown channel "ghost"');
    expect(result.error?.category).toBe('system');
    expect(ofType(events, 'writeApplied')).toEqual([]);
    expect(ofType(events, 'checkpointSaved')).toEqual([]);
    expect(ofType(events, 'errorOccurred').map((e) => e.error.code)).toEqual(['SYSTEM_INVARIANT_VIOLATED']);
  });

  it('update policy single: a global channel written by two tasks in one step fails the step, no commit', async () => {
    // `check` rejects two branches writing one variable; the engine still refuses such a commit.
    const plan = planOf(
      `
let x = "seed"
parallel:
  do:
    x = session "first writer"
  do:
    x = session "second writer"
`,
      { allowInvalid: true },
    );
    const { result, events } = await runPlan(plan);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('POLICY_COMMIT_REJECTED');
    expect(result.error?.message).toBe(
      'channel "x" written by two parallel branches in one step (session #0 and session #1); its update policy allows a single writer',
    );
    expect(typesOf(events).filter((t) => COMMIT_SCOPED.includes(t))).toEqual([]);
    expect(result.channels).toEqual({});
  });

  it('update policy single: branch-local channels allow one write per task', async () => {
    const plan = planOf(`
parallel:
  do:
    let note = session "left note"
    session "left uses {note}"
  do:
    let note = session "right note"
    session "right uses {note}"
`);
    const runtime = new ScriptedRuntime({});
    const { result, events } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('completed');
    const writes = ofType(events, 'writeApplied').filter((w) => w.step === 1);
    expect(writes.map((w) => [w.ordinal, w.value])).toEqual([
      [0, 'out:left note'],
      [2, 'out:right note'],
    ]);
    expect(new Set(writes.map((w) => w.channel)).size).toBe(2);
    // Each branch reads its own value.
    expect(runtime.calls.map((c) => c.prompt)).toContain('left uses out:left note');
    expect(runtime.calls.map((c) => c.prompt)).toContain('right uses out:right note');
  });

  it('a reducer that throws aborts the step: no commit, no checkpoint, no stepFinished', async () => {
    const plan = planOf(`
let total = session "count"
session "after"
`);
    const { result, events } = await runPlan(plan, {
      reducers: {
        total: () => {
          throw new Error('cannot add a string');
        },
      },
    });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(result.error?.message).toBe('reducer of channel "total" threw: cannot add a string');
    expect(typesOf(events).filter((t) => COMMIT_SCOPED.includes(t))).toEqual([]);
    expect(ofType(events, 'stepStarted')).toHaveLength(1);
    expect(typesOf(events).at(-1)).toBe('runFailed');
  });

  it('a failed step commits nothing even when other tasks of the step succeeded', async () => {
    const plan = planOf(
      `
let kept = "before"
parallel:
  kept = session "ok"
  b = session "fails"
`,
      { allowInvalid: true },
    );
    const runtime = new ScriptedRuntime({ fails: () => runtimeError('RUNTIME_CRASHED', 'boom') });
    const { result } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('failed');
    expect(result.channels).toEqual({});
  });

  it('out of steps stops without executing another step', async () => {
    const plan = planOf(`
repeat 5 as i:
  session "iteration {i}"
`);
    const runtime = new ScriptedRuntime({});
    const { result, events } = await runPlan(plan, { maxSteps: 3, registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('POLICY_MAX_STEPS_EXCEEDED');
    expect(result.error?.message).toBe('the run reached max-steps (3) with 1 session(s) still ready');
    expect(ofType(events, 'stepStarted').map((e) => e.step)).toEqual([1, 2, 3]);
    expect(ofType(events, 'stepFinished').map((e) => e.step)).toEqual([1, 2, 3]);
    expect(runtime.calls).toHaveLength(3);
    expect(typesOf(events).slice(-2)).toEqual(['errorOccurred', 'runFailed']);
  });

  it('a run that ends exactly at max-steps completes', async () => {
    const plan = planOf(`
repeat 3:
  session "work"
`);
    const { result } = await runPlan(plan, { maxSteps: 3 });
    expect(result.status).toBe('completed');
    expect(result.steps).toBe(3);
  });

  it('checkpoints carry what each step changed (deltas), not the whole state again', async () => {
    const plan = planOf(`
let a = session "one"
let b = session "two {a}"
session "three"
`);
    const runtime = new ScriptedRuntime({});
    const { events, result } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    expect(ofType(events, 'checkpointSaved').map((c) => [c.channels, c.delta])).toEqual([
      [{ a: 'out:one' }, true],
      [{ b: 'out:two out:one' }, true],
      [{}, true],
    ]);
    expect(result.channels).toEqual({ a: 'out:one', b: 'out:two out:one' });
  });
});
