import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../base/clock.js';
import { CancelledError } from '../../base/errors/hivewatch-error.js';
import { ofType, planOf, ScriptedRuntime, scriptedRegistry, startRun, typesOf } from '../testing.js';

const COMMIT_SCOPED = ['writeApplied', 'checkpointSaved', 'stepFinished'];

/** A runtime whose attempts end only when aborted: work "in flight" for as long as the test wants. */
const whenAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

const untilAborted = new ScriptedRuntime({
  '*': async (_request, signal) => {
    await whenAborted(signal);
    return { kind: 'cancelled' };
  },
});

describe('cancellation (rules 9–12)', () => {
  it('cancel between steps: no extra stepStarted, runCancelled is the only further event', async () => {
    const plan = planOf(`
session "first"
session "second"
`);
    const { run, done, sink } = startRun(plan);
    let cancelAt = -1;
    run.onEvent((e) => {
      if (e.type === 'stepFinished' && e.step === 1) {
        run.cancel({ commandId: 'cmd_between', reason: 'operator' });
        cancelAt = sink.events.length;
      }
    });
    const result = await done;
    expect(result.status).toBe('cancelled');
    expect(ofType(sink.events, 'stepStarted').map((e) => e.step)).toEqual([1]);
    expect(typesOf(sink.events.slice(cancelAt))).toEqual(['runCancelled']);
    expect(typesOf(sink.events.slice(cancelAt - 2, cancelAt))).toEqual(['cancelRequested', 'runCancelling']);
    const cancelled = ofType(sink.events, 'runCancelled')[0];
    expect(cancelled?.cause).toEqual({ commandId: 'cmd_between', reason: 'operator' });
    expect(cancelled?.correlation).toEqual({ run: 'run_test', step: 1, epoch: 1 });
  });

  it('cancel during a step: taskFailed for every frontier task in ascending ordinal, no commit, runCancelled last', async () => {
    const plan = planOf(`
let results = parallel (on-fail: "continue"):
  a = session "A"
  b = session "B"
  c = session "C"
session "never"
`);
    const { run, done, sink } = startRun(plan, { registry: scriptedRegistry(untilAborted) });
    run.onEvent((e) => {
      if (e.type === 'attemptStarted' && e.ordinal === 2) run.cancel({ commandId: 'cmd_during' });
    });
    const result = await done;
    expect(result.status).toBe('cancelled');
    const failed = ofType(sink.events, 'taskFailed');
    expect(failed.map((e) => [e.ordinal, e.cancelled, e.error.code])).toEqual([
      [0, true, 'SYSTEM_CANCELLED'],
      [1, true, 'SYSTEM_CANCELLED'],
      [2, true, 'SYSTEM_CANCELLED'],
    ]);
    expect(typesOf(sink.events).filter((t) => COMMIT_SCOPED.includes(t))).toEqual([]);
    expect(typesOf(sink.events).at(-1)).toBe('runCancelled');
    expect(ofType(sink.events, 'errorOccurred')).toEqual([]);
    expect(run.status).toBe('cancelled');
    expect(run.epoch).toBe(1);
  });

  it('no task starts after the cancel: queued tasks of the step never get an attempt', async () => {
    const plan = planOf(`
parallel:
  a = session "A"
  b = session "B"
  c = session "C"
`);
    const { run, done, sink } = startRun(plan, { registry: scriptedRegistry(untilAborted), concurrency: 1 });
    run.onEvent((e) => {
      if (e.type === 'attemptStarted') run.cancel();
    });
    await done;
    expect(ofType(sink.events, 'attemptStarted').map((e) => e.ordinal)).toEqual([0]);
    expect(ofType(sink.events, 'taskFailed').map((e) => [e.ordinal, e.attempts])).toEqual([
      [0, 1],
      [1, 0],
      [2, 0],
    ]);
  });

  it('a cancelled backoff sleep is cancellation, not an error', async () => {
    const plan = planOf(`session "api" (retry: 3)\n  simulate: "rate_limit"\n`);
    const clock = new VirtualClock(0);
    clock.sleep = (_ms, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const { run, done, sink } = startRun(plan, { clock });
    run.onEvent((e) => {
      if (e.type === 'retryScheduled') queueMicrotask(() => run.cancel());
    });
    const result = await done;
    expect(result.status).toBe('cancelled');
    expect(result.error).toBeNull();
    // The only error is the attempt's rate limit; the interrupted sleep added none.
    expect(ofType(sink.events, 'errorOccurred').map((e) => e.error.code)).toEqual(['RUNTIME_RATE_LIMIT']);
    expect(ofType(sink.events, 'taskFailed').map((e) => e.cancelled)).toEqual([true]);
    expect(typesOf(sink.events).at(-1)).toBe('runCancelled');
  });

  it('a runtime throwing a cancellation nothing asked for breaks an invariant: the run fails, it is not cancelled', async () => {
    const throwsCancel = new ScriptedRuntime({
      '*': () => {
        throw new CancelledError('made up by the runtime');
      },
    });
    const { done, sink } = startRun(planOf('session "A"\n'), { registry: scriptedRegistry(throwsCancel) });
    const result = await done;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'SYSTEM_INVARIANT_VIOLATED',
      message: 'runtime scripted threw instead of returning a result: made up by the runtime',
    });
    expect(ofType(sink.events, 'taskFailed').map((e) => [e.cancelled, e.error.code])).toEqual([[false, 'SYSTEM_INVARIANT_VIOLATED']]);
    expect(ofType(sink.events, 'runCancelled')).toEqual([]);
  });

  it('a result arriving after cancel is receiptIgnoredStale and changes nothing', async () => {
    // The runtime ignores the abort and reports success anyway, as a process that finished
    // just as it was told to stop would.
    let cancel = (): void => undefined;
    const lateSuccess = new ScriptedRuntime({
      '*': async (_request, signal) => {
        cancel();
        await whenAborted(signal);
        await new Promise((resolve) => setImmediate(resolve));
        return { kind: 'succeeded', output: 'late' };
      },
    });
    const plan = planOf(`let x = session "slow"\n`);
    const { run, done, sink } = startRun(plan, { registry: scriptedRegistry(lateSuccess) });
    cancel = () => run.cancel({ commandId: 'cmd_late' });
    const result = await done;
    expect(result.status).toBe('cancelled');
    const stale = ofType(sink.events, 'receiptIgnoredStale');
    expect(stale.map((e) => [e.taskId, e.epoch, e.currentEpoch, e.outcome])).toEqual([['1:0', 0, 1, 'succeeded']]);
    expect(ofType(sink.events, 'taskSucceeded')).toEqual([]);
    expect(ofType(sink.events, 'writeApplied')).toEqual([]);
    expect(result.channels).toEqual({});
    const types = typesOf(sink.events);
    expect(types.indexOf('receiptIgnoredStale')).toBeLessThan(types.indexOf('runCancelled'));
  });

  it('a second cancel forces, a third is journaled but changes nothing; a finished run refuses cancel', async () => {
    const plan = planOf(`session "A"\n`);
    const { run, done, sink } = startRun(plan, { registry: scriptedRegistry(untilAborted) });
    run.onEvent((e) => {
      if (e.type === 'attemptStarted') {
        expect(run.cancel({ commandId: 'one' }).accepted).toBe(true);
        expect(run.cancel({ commandId: 'two' }).accepted).toBe(false);
        expect(run.cancel({ commandId: 'three' }).accepted).toBe(false);
      }
    });
    await done;
    expect(ofType(sink.events, 'cancelRequested').map((e) => [e.commandId, e.alreadyCancelling, e.forced ?? false])).toEqual([
      ['one', false, false],
      ['two', true, true],
      ['three', true, false],
    ]);
    expect(ofType(sink.events, 'runCancelling')).toHaveLength(1);
    expect(ofType(sink.events, 'runCancelled')[0]?.forced).toBe(true);
    expect(run.cancel().accepted).toBe(false);
  });
});
