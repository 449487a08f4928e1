import { describe, expect, it } from 'vitest';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { canonicalJournal } from './model/canonical.js';
import type { HivewatchEvent } from '../base/events.js';
import { RacingRuntime, type ScriptedOutcome } from './model/racing-runtime.js';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry } from './testing.js';

/** The ending error and its cause chain (rule 16, docs/semantics.md F1, F2, F6). */

const errorEvents = (events: readonly HivewatchEvent[]): unknown[] =>
  ofType(events, 'errorOccurred').map((e) => [e.error.code, e.error.message, e.taskId, e.caught, e.retrying]);
const chainOf = (events: readonly HivewatchEvent[]) => ofType(events, 'runFailed')[0]?.chain;
const seqOf = (events: readonly HivewatchEvent[], code: string): number | undefined => ofType(events, 'errorOccurred').find((e) => e.error.code === code)?.seq;

describe('the ending error and its chain (F1, F2)', () => {
  it('a rethrow journals nothing new: the caught occurrence is the one link, marked rethrown', async () => {
    const runtime = new ScriptedRuntime({ deploy: () => runtimeError('RUNTIME_CRASHED', 'deploy crashed') });
    const { result, events } = await runPlan(planOf('try:\n  session "deploy"\ncatch:\n  session "log"\n  throw\n'), { registry: scriptedRegistry(runtime) });
    expect(result.error).toMatchObject({ code: 'RUNTIME_CRASHED', message: 'deploy crashed' });
    expect(errorEvents(events)).toEqual([['RUNTIME_CRASHED', 'deploy crashed', '1:0', true, false]]);
    expect(chainOf(events)).toEqual([
      {
        seq: seqOf(events, 'RUNTIME_CRASHED'),
        code: 'RUNTIME_CRASHED',
        category: 'runtime',
        origin: 'runtime:scripted',
        message: 'deploy crashed',
        step: 1,
        taskId: '1:0',
        attempt: 1,
        how: null,
        rethrown: true,
      },
    ]);
  });

  it('throw "message" in a catch: the new error is caused by the caught one, in its errorOccurred too', async () => {
    const runtime = new ScriptedRuntime({ check: () => runtimeError('RUNTIME_TIMEOUT', 'slow') });
    const { result, events } = await runPlan(planOf('try:\n  session "check" (retry: 1, backoff: "none")\ncatch err:\n  throw "gave up: {err.code}"\n'), {
      registry: scriptedRegistry(runtime),
    });
    expect(result.error).toMatchObject({ code: 'USER_THROWN', cause: { code: 'POLICY_RETRY_LIMIT_EXCEEDED', cause: { code: 'RUNTIME_TIMEOUT' } } });
    const thrown = ofType(events, 'errorOccurred').find((e) => e.error.code === 'USER_THROWN');
    expect(thrown?.error.cause?.code).toBe('POLICY_RETRY_LIMIT_EXCEEDED');
    expect(chainOf(events)?.map((l) => [l.code, l.how, l.taskId, l.attempt])).toEqual([
      ['USER_THROWN', 'thrown-in-catch', null, null],
      ['POLICY_RETRY_LIMIT_EXCEEDED', 'retry-limit', '1:0', 2],
      ['RUNTIME_TIMEOUT', null, '1:0', 2],
    ]);
    const timeouts = ofType(events, 'errorOccurred').filter((e) => e.error.code === 'RUNTIME_TIMEOUT');
    // The retried attempt's error is handled; the last attempt's is the chain's root.
    expect(chainOf(events)?.map((l) => l.seq)).toEqual([thrown?.seq, seqOf(events, 'POLICY_RETRY_LIMIT_EXCEEDED'), timeouts[1]?.seq]);
  });

  it('a failing finally replaces the pending failure and keeps it as its cause', async () => {
    const runtime = new ScriptedRuntime({
      risky: () => runtimeError('RUNTIME_CRASHED', 'risky crashed'),
      cleanup: () => runtimeError('RUNTIME_TIMEOUT', 'cleanup timed out'),
    });
    const { result, events } = await runPlan(planOf('try:\n  session "risky"\nfinally:\n  session "cleanup"\n'), { registry: scriptedRegistry(runtime) });
    expect(result.error).toMatchObject({ code: 'RUNTIME_TIMEOUT', cause: { code: 'RUNTIME_CRASHED', message: 'risky crashed' } });
    expect(chainOf(events)?.map((l) => [l.code, l.how, l.taskId, l.seq])).toEqual([
      ['RUNTIME_TIMEOUT', 'finally-failed', '2:1', seqOf(events, 'RUNTIME_TIMEOUT')],
      ['RUNTIME_CRASHED', null, '1:0', seqOf(events, 'RUNTIME_CRASHED')],
    ]);
  });

  it('one occurrence reached two ways is one link: a throw in a catch whose finally was pending the caught error, rethrown', async () => {
    // `throw "cleanup failed"` is both thrown in the catch of "first" and raised by a finally that
    // was pending "first" (rethrown): its cause is that one occurrence, named once.
    const source = 'try:\n  throw "first"\ncatch err:\n  try:\n    throw\n  finally:\n    throw "cleanup failed"\n';
    const { result, events } = await runPlan(planOf(source));
    expect(result.error).toMatchObject({ code: 'USER_THROWN', message: 'cleanup failed', cause: { code: 'USER_THROWN', message: 'first' } });
    expect(result.error?.cause?.cause).toBeUndefined();
    const thrown = ofType(events, 'errorOccurred').map((e) => [e.error.message, e.seq]);
    expect(thrown.map(([message]) => message)).toEqual(['first', 'cleanup failed']);
    expect(chainOf(events)?.map((l) => [l.message, l.how, l.rethrown ?? false, l.seq])).toEqual([
      ['cleanup failed', 'thrown-in-catch', false, thrown[1]?.[1]],
      ['first', null, true, thrown[0]?.[1]],
    ]);
  });

  it('a failure the run raises itself is a one-link chain with its errorOccurred', async () => {
    const { events } = await runPlan(planOf('repeat 3:\n  session "loop"\n'), { maxSteps: 2 });
    expect(chainOf(events)).toEqual([
      expect.objectContaining({ code: 'POLICY_MAX_STEPS_EXCEEDED', seq: seqOf(events, 'POLICY_MAX_STEPS_EXCEEDED'), how: null }),
    ]);
    const missing = await runPlan(planOf('session "x"\n'), { defaultAgent: null });
    expect(chainOf(missing.events)).toEqual([
      expect.objectContaining({ code: 'USER_MISSING_DEPENDENCY', seq: seqOf(missing.events, 'USER_MISSING_DEPENDENCY') }),
    ]);
  });
});

describe('cancelled by a sibling is not an error (F6)', () => {
  const source = 'parallel:\n  session "A"\n  session "B"\n  session "C"\n';
  const codes: Record<string, ScriptedOutcome> = {
    A: { kind: 'fail', code: 'RUNTIME_CRASHED', message: 'exit 11' },
    B: { kind: 'fail', code: 'RUNTIME_TIMEOUT', message: 'exit 12' },
    C: { kind: 'fail', code: 'RUNTIME_RATE_LIMIT', message: 'exit 13' },
  };

  it('three failing branches in any settle order journal one error, the earliest ordinal’s, and one journal', async () => {
    const seen = new Set<string>();
    const canonical = new Set<string>();
    const shapes = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const runtime = new RacingRuntime({ seed, outcome: (_o, _a, prompt) => codes[prompt] as ScriptedOutcome });
      const { events } = await runPlan(planOf(source), { registry: scriptedRegistry(runtime) });
      seen.add(JSON.stringify([errorEvents(events), chainOf(events)?.map((l) => [l.code, l.taskId])]));
      canonical.add(JSON.stringify(canonicalJournal(events)));
      // Every attempt ends once. B and C end as they happened: failed before A (the fact, then
      // judged cancelled once A failed) or stopped by A's failure (attemptCancelled).
      const ends = events
        .filter((e) => e.type === 'attemptFailed' || e.type === 'attemptCancelled')
        .map((e) => `${e.type} ${(e as { ordinal: number }).ordinal}`);
      expect(ends.filter((e) => e.endsWith(' 0'))).toEqual(['attemptFailed 0']);
      for (const ordinal of [1, 2]) {
        const mine = ends.filter((e) => e.endsWith(` ${ordinal}`));
        const judged = ofType(events, 'attemptJudgedCancelled').filter((e) => e.ordinal === ordinal);
        expect(mine).toHaveLength(1);
        expect(judged.map((e) => e.by)).toEqual(mine[0]?.startsWith('attemptFailed') ? ['sibling'] : []);
        shapes.add(mine[0]?.split(' ')[0] ?? '');
      }
    }
    expect([...seen]).toEqual([JSON.stringify([[['RUNTIME_CRASHED', 'exit 11', '1:0', false, false]], [['RUNTIME_CRASHED', '1:0']]])]);
    expect(canonical.size).toBe(1);
    // The seeds cover both: a sibling that failed before A, and one that A's failure stopped.
    expect([...shapes].sort()).toEqual(['attemptCancelled', 'attemptFailed']);
  });

  it('with real fake-agent subprocesses on the virtual clock: exit 11 is the one error, five runs alike', async () => {
    const plan = planOf('parallel:\n  session "A"\n    simulate: "exit:11"\n  session "B"\n    simulate: "exit:12"\n  session "C"\n    simulate: "exit:13"\n');
    const journals = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const { events } = await runPlan(plan, { registry: createRuntimeRegistry(), defaultAgent: 'fake' });
      const errors = ofType(events, 'errorOccurred');
      expect(errors.map((e) => [e.taskId, e.caught])).toEqual([['1:0', false]]);
      expect(errors[0]?.error.message).toContain('exited with code 11');
      journals.add(JSON.stringify([errorEvents(events), canonicalJournal(events)]));
    }
    expect(journals.size).toBe(1);
  });

  it('an attempt a sibling stopped ends attemptCancelled, with what it answered anyway on the record', async () => {
    const runtime = new ScriptedRuntime({
      A: () => runtimeError('RUNTIME_CRASHED', 'A crashed'),
      // B answers after the abort, as a process that finished as it was told to stop would.
      B: (_request, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'succeeded', output: 'B late' }), { once: true })),
      C: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true })),
    });
    const { events } = await runPlan(planOf(source), { registry: scriptedRegistry(runtime) });
    expect(ofType(events, 'attemptCancelled').map((e) => [e.ordinal, e.by, e.reported])).toEqual([
      [1, 'sibling', { outcome: 'succeeded', output: 'B late' }],
      [2, 'sibling', undefined],
    ]);
    expect(errorEvents(events)).toEqual([['RUNTIME_CRASHED', 'A crashed', '1:0', false, false]]);
  });
});
