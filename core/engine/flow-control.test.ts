import { describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, typesOf } from './testing.js';

/** Sessions whose prompt starts with "fail" crash; everything else succeeds with `out:<prompt>`. */
const runtime = (): ScriptedRuntime =>
  new ScriptedRuntime({
    '*': (request) =>
      request.prompt.startsWith('fail') ? runtimeError('RUNTIME_CRASHED', `${request.prompt} crashed`) : { kind: 'succeeded', output: `out:${request.prompt}` },
  });

async function run(
  source: string,
): Promise<{ prompts: string[]; result: Awaited<ReturnType<typeof runPlan>>['result']; events: Awaited<ReturnType<typeof runPlan>>['events'] }> {
  const rt = runtime();
  const { result, events } = await runPlan(planOf(source), { registry: scriptedRegistry(rt) });
  return { prompts: rt.calls.map((c) => c.prompt), result, events };
}

describe('flow-level error handling (rules 13–14)', () => {
  it('an uncaught failure ends the run failed', async () => {
    const { result, prompts, events } = await run(`session "fail here"\nsession "never"\n`);
    expect(result.status).toBe('failed');
    expect(prompts).toEqual(['fail here']);
    expect(ofType(events, 'errorOccurred').map((e) => e.caught)).toEqual([false]);
  });

  it('try/catch catches the failure and the run continues', async () => {
    const { result, prompts } = await run(`
try:
  session "fail risky"
catch err:
  session "handle {err.message} ({err.code})"
session "after"
`);
    expect(result.status).toBe('completed');
    expect(prompts).toEqual(['fail risky', 'handle fail risky crashed (RUNTIME_CRASHED)', 'after']);
  });

  it('try/catch/finally: finally runs after the catch, and on success', async () => {
    const failing = await run(`
try:
  session "fail risky"
catch:
  session "handle"
finally:
  session "cleanup"
`);
    expect(failing.prompts).toEqual(['fail risky', 'handle', 'cleanup']);
    expect(failing.result.status).toBe('completed');
    const passing = await run(`
try:
  session "risky"
catch:
  session "handle"
finally:
  session "cleanup"
`);
    expect(passing.prompts).toEqual(['risky', 'cleanup']);
  });

  it('throw rethrows after finally ran; the run fails with the original error', async () => {
    const { result, prompts, events } = await run(`
try:
  session "fail deploy"
catch err:
  session "log {err.message}"
  throw
finally:
  session "cleanup"
`);
    expect(prompts).toEqual(['fail deploy', 'log fail deploy crashed', 'cleanup']);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('RUNTIME_CRASHED');
    expect(result.error?.message).toBe('fail deploy crashed');
    // The cleanup step committed before the run failed.
    expect(ofType(events, 'stepFinished').map((e) => e.step)).toEqual([1, 2, 3]);
    // The failure was journaled once, as caught; the rethrow adds no second errorOccurred.
    expect(ofType(events, 'errorOccurred').map((e) => [e.error.code, e.caught])).toEqual([['RUNTIME_CRASHED', true]]);
  });

  it('throw "message" raises a new user error', async () => {
    const { result, events } = await run(`
try:
  session "fail check"
catch err:
  throw "gave up: {err.code}"
`);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('USER_THROWN');
    expect(result.error?.category).toBe('user');
    expect(result.error?.message).toBe('gave up: RUNTIME_CRASHED');
    expect(ofType(events, 'errorOccurred').map((e) => e.error.code)).toEqual(['RUNTIME_CRASHED', 'USER_THROWN']);
  });

  it('nested try: an inner catch does not notify the outer one', async () => {
    const { result, prompts } = await run(`
try:
  try:
    session "fail inner"
  catch:
    session "inner handled"
  session "outer body continues"
catch:
  session "outer catch must not run"
`);
    expect(result.status).toBe('completed');
    expect(prompts).toEqual(['fail inner', 'inner handled', 'outer body continues']);
  });

  it('nested try: a rethrow from the inner catch reaches the outer catch', async () => {
    const { result, prompts } = await run(`
try:
  try:
    session "fail inner"
  catch:
    throw
catch err:
  session "outer got {err.message}"
`);
    expect(result.status).toBe('completed');
    expect(prompts).toEqual(['fail inner', 'outer got fail inner crashed']);
  });

  it('parallel fail-fast: a branch failure fails the parallel and cancels the siblings in flight', async () => {
    const rt = new ScriptedRuntime({
      'fail A': () => runtimeError('RUNTIME_CRASHED', 'A crashed'),
      B: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true })),
    });
    const { result, events } = await runPlan(
      planOf(`
try:
  parallel:
    a = session "fail A"
    b = session "B"
catch err:
  session "recover from {err.message}"
`),
      { registry: scriptedRegistry(rt) },
    );
    expect(result.status).toBe('completed');
    expect(ofType(events, 'taskFailed').map((e) => [e.ordinal, e.cancelled])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(rt.calls.map((c) => c.prompt)).toEqual(['fail A', 'B', 'recover from A crashed']);
  });

  it('parallel fail-fast: siblings with later sessions do not continue', async () => {
    const { result, prompts } = await run(`
try:
  parallel:
    a = session "fail A"
    do:
      session "B1"
      session "B2 must not run"
catch:
  session "recovered"
`);
    expect(result.status).toBe('completed');
    expect(prompts).toEqual(['fail A', 'B1', 'recovered']);
  });

  it('parallel continue: the others finish, the result is {successes, failures}', async () => {
    const { result, events } = await run(`
let results = parallel (on-fail: "continue"):
  a = session "A"
  b = session "fail B"
  c = session "C"
session "summarize {results}"
`);
    expect(result.status).toBe('completed');
    expect(result.channels.results).toEqual({
      successes: [
        { branch: 'a', output: 'out:A' },
        { branch: 'c', output: 'out:C' },
      ],
      failures: [
        {
          branch: 'b',
          error: { message: 'fail B crashed', code: 'RUNTIME_CRASHED', category: 'runtime', origin: 'runtime:scripted', recoverable: true },
        },
      ],
    });
    expect(ofType(events, 'errorOccurred').map((e) => [e.error.code, e.caught])).toEqual([['RUNTIME_CRASHED', true]]);
  });

  it('parallel ignore: only successes are kept, and the failure is still journaled', async () => {
    const { result, events } = await run(`
let kept = parallel (on-fail: ignore):
  session "A"
  session "fail B"
`);
    expect(result.status).toBe('completed');
    expect(result.channels.kept).toEqual(['out:A']);
    expect(ofType(events, 'errorOccurred')).toHaveLength(1);
  });

  it('try inside parallel: a branch catches its own failure and the parallel succeeds', async () => {
    const { result, prompts } = await run(`
parallel:
  do:
    try:
      session "fail left"
    catch:
      session "left recovered"
  session "right"
session "joined"
`);
    expect(result.status).toBe('completed');
    expect(prompts).toEqual(['fail left', 'right', 'left recovered', 'joined']);
  });

  it('every failure emits errorOccurred with category, code, origin and correlation, also when caught', async () => {
    const { events } = await run(`
try:
  session "fail once"
catch:
  session "ok"
`);
    const [occurred] = ofType(events, 'errorOccurred');
    expect(occurred?.caught).toBe(true);
    expect(occurred?.error).toMatchObject({
      category: 'runtime',
      code: 'RUNTIME_CRASHED',
      origin: 'runtime:scripted',
      recoverable: true,
      correlation: { project: null, flow: 'test.prose', run: 'run_test', step: 1, task: '1:0', attempt: 1 },
    });
    expect(typeof occurred?.error.timestamp).toBe('number');
  });

  it('a step runs its frontier concurrently and settles its tasks in ordinal order', async () => {
    const { events } = await run(`
parallel:
  a = session "A"
  b = session "B"
  c = session "C"
`);
    expect(ofType(events, 'stepStarted')[0]?.frontier.map((f) => f.ordinal)).toEqual([0, 1, 2]);
    expect(ofType(events, 'taskSucceeded').map((e) => e.ordinal)).toEqual([0, 1, 2]);
    expect(typesOf(events).at(-1)).toBe('runCompleted');
  });
});
