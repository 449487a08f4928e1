import { describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, startRun, typesOf } from './testing.js';

/**
 * F5: a fail-fast parallel unwinds like structured concurrency. The branches it cancels run the
 * `finally` blocks they are inside (never a catch), in later steps, before the parallel raises
 * the failure that killed it; a failing cleanup joins that failure's chain. An operator's cancel
 * starts no task (rule 9), so no finally runs then.
 */

/** A runtime whose "fail…" sessions crash; "wait…" sessions run until aborted; the rest succeed. */
const runtime = (extra: ConstructorParameters<typeof ScriptedRuntime>[0] = {}): ScriptedRuntime =>
  new ScriptedRuntime({
    '*': (request, signal) => {
      if (request.prompt.startsWith('fail')) return runtimeError('RUNTIME_CRASHED', `${request.prompt} crashed`);
      if (request.prompt.startsWith('wait'))
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true }));
      return { kind: 'succeeded', output: `out:${request.prompt}` };
    },
    ...extra,
  });

async function run(source: string, rt = runtime()) {
  const { result, events } = await runPlan(planOf(source), { registry: scriptedRegistry(rt) });
  return { result, events, prompts: rt.calls.map((c) => c.prompt) };
}

describe('fail-fast unwinds through the finally blocks of the branches it cancels (F5)', () => {
  it('a cancelled branch runs its finally, not its catch, in a later step; then the parallel raises the killing failure', async () => {
    const { result, events, prompts } = await run(`
parallel:
  session "fail A"
  try:
    session "wait B"
  catch:
    session "B caught"
  finally:
    session "B cleanup"
session "after"
`);
    expect(prompts).toEqual(['fail A', 'wait B', 'B cleanup']);
    expect(result.error).toMatchObject({ code: 'RUNTIME_CRASHED', message: 'fail A crashed' });
    expect(ofType(events, 'stepStarted').map((e) => e.frontier.map((f) => f.name))).toEqual([['fail A', 'wait B'], ['B cleanup']]);
    // The killing step commits (its failure waits for the cleanups, as behind a finally); so does the cleanup's.
    expect(ofType(events, 'stepFinished').map((e) => e.step)).toEqual([1, 2]);
    expect(ofType(events, 'taskFailed').map((e) => [e.taskId, e.cancelled])).toEqual([
      ['1:0', false],
      ['1:1', true],
    ]);
    expect(ofType(events, 'attemptCancelled').map((e) => [e.taskId, e.by])).toEqual([['1:1', 'sibling']]);
    expect(ofType(events, 'runFailed')[0]?.chain?.map((l) => [l.code, l.taskId, l.how])).toEqual([['RUNTIME_CRASHED', '1:0', null]]);
    expect(typesOf(events).at(-1)).toBe('runFailed');
  });

  it('a failing cleanup is journaled and joins the killing failure’s chain (cleanup-failed); the parallel still raises the killing one', async () => {
    const { result, events } = await run(`
try:
  parallel:
    session "fail A"
    try:
      session "wait B"
    finally:
      session "fail B cleanup"
catch err:
  session "recover from {err.message}"
`);
    expect(result.status).toBe('completed');
    const errors = ofType(events, 'errorOccurred');
    expect(errors.map((e) => [e.error.code, e.error.message, e.taskId, e.caught])).toEqual([
      ['RUNTIME_CRASHED', 'fail A crashed', '1:0', true],
      ['RUNTIME_CRASHED', 'fail B cleanup crashed', '2:2', false],
    ]);
    expect(ofType(events, 'taskSucceeded').at(-1)).toMatchObject({ output: 'out:recover from fail A crashed' });
  });

  it('when nothing catches it, the run ends with the killing failure and the cleanup failure in its chain', async () => {
    const { result, events } = await run(`
parallel:
  session "fail A"
  try:
    session "wait B"
  finally:
    session "fail B cleanup"
`);
    expect(result.error).toMatchObject({ message: 'fail A crashed', cause: { message: 'fail B cleanup crashed' } });
    const [killing, cleanup] = ofType(events, 'errorOccurred');
    expect(ofType(events, 'runFailed')[0]?.chain?.map((l) => [l.seq, l.message, l.how])).toEqual([
      [killing?.seq, 'fail A crashed', 'cleanup-failed'],
      [cleanup?.seq, 'fail B cleanup crashed', null],
    ]);
  });
});

describe('fail-fast unwinding (F5): where cancelled branches stand', () => {
  it('a branch parked when a throw kills the parallel between steps unwinds too; its later sessions never start', async () => {
    const { result, prompts } = await run(`
parallel:
  do:
    session "A"
    throw "boom"
  try:
    session "B1"
    session "B2 must not run"
  finally:
    session "B cleanup"
`);
    expect(result.error?.code).toBe('USER_THROWN');
    expect(prompts).toEqual(['A', 'B1', 'B cleanup']);
  });

  it('nested: each cancelled branch unwinds innermost first, through a continue parallel inside it', async () => {
    const { result, prompts, events } = await run(`
parallel:
  session "fail A"
  try:
    parallel (on-fail: "continue"):
      try:
        session "wait B1"
      finally:
        session "B1 cleanup"
      session "wait B2"
  finally:
    session "B cleanup"
`);
    expect(result.error?.message).toBe('fail A crashed');
    expect(prompts).toEqual(['fail A', 'wait B1', 'wait B2', 'B1 cleanup', 'B cleanup']);
    expect(ofType(events, 'stepStarted').map((e) => e.frontier.map((f) => f.name))).toEqual([['fail A', 'wait B1', 'wait B2'], ['B1 cleanup'], ['B cleanup']]);
  });

  it('what a cleanup writes is committed (the branch’s earlier writes are not)', async () => {
    const { result } = await run(`
let cleaned = "no"
let mark = "none"
try:
  parallel:
    session "fail A"
    do:
      mark = "set"
      try:
        session "wait B"
      finally:
        cleaned = session "clean"
catch:
  session "after {cleaned}"
`);
    expect(result.channels).toMatchObject({ cleaned: 'out:clean', mark: 'none' });
  });

  it("an operator's cancel runs no finally: no task starts after it (rule 9)", async () => {
    const rt = runtime();
    const { run: flowRun, done, sink } = startRun(planOf('try:\n  session "wait A"\nfinally:\n  session "cleanup"\n'), { registry: scriptedRegistry(rt) });
    flowRun.onEvent((e) => {
      if (e.type === 'attemptStarted') setImmediate(() => flowRun.cancel({ commandId: 'cmd_stop' }));
    });
    const result = await done;
    expect(result.status).toBe('cancelled');
    expect(rt.calls.map((c) => c.prompt)).toEqual(['wait A']);
    expect(typesOf(sink.events).at(-1)).toBe('runCancelled');
  });
});
