import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { decideRetry } from '../base/errors/retry.js';
import { formatDiagnostic } from '../flow/syntax/ast.js';
import { checkFlow } from '../flow/check/check.js';
import { createRuntimeRegistry } from '../runtimes/registry.js';
import { RacingRuntime, type ScriptedOutcome } from './model/racing-runtime.js';
import { resumePointFromEvents } from '../base/resume-point.js';
import { ENGINE_SEMANTICS } from './step/resume.js';
import { FlowRun } from './run/run.js';
import { MemorySink } from './run/sinks.js';
import { ofType, planOf, runPlan, runtimeError, ScriptedRuntime, scriptedRegistry, startRun, typesOf } from './testing.js';
import { tempDirs } from '../testing/temp-dirs.js';

const tempDir = tempDirs();

/** Engine regressions: each defect found by trying the engine as a new user would. */

const COMMIT_SCOPED = ['writeApplied', 'checkpointSaved', 'stepFinished'];
const diagnostics = (source: string): string[] => checkFlow(source, 'f.prose').diagnostics.map(formatDiagnostic);

describe('defect 1: assignments are sequential within a thread (rule 7b)', () => {
  it('let x = "a" then x = "b" completes with x = "b"', async () => {
    const { result } = await runPlan(planOf('let x = "a"\nx = "b"\n'));
    expect(result.status).toBe('completed');
    expect(result.channels).toEqual({ x: 'b' });
  });

  it('let x = "seed" then x = session …: the session output wins, and the session saw the seed', async () => {
    const runtime = new ScriptedRuntime({});
    const { result } = await runPlan(planOf('let x = "seed"\nx = session "grow {x}"\n'), { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('completed');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['grow seed']);
    expect(result.channels).toEqual({ x: 'out:grow seed' });
  });

  it('n = "{i}" before a session inside repeat, every iteration', async () => {
    const runtime = new ScriptedRuntime({});
    const { result } = await runPlan(planOf('let n = ""\nrepeat 3 as i:\n  n = "{i}"\n  session "step {n}"\n'), { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('completed');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['step 1', 'step 2', 'step 3']);
    expect(result.channels).toEqual({ n: '3' });
  });

  it('a thread reads its own writes before they are committed', async () => {
    const runtime = new ScriptedRuntime({});
    const { result } = await runPlan(planOf('let x = session "A"\nlet y = "got {x}"\nsession "then {y}"\n'), { registry: scriptedRegistry(runtime) });
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['A', 'then got out:A']);
    expect(result.channels).toEqual({ x: 'out:A', y: 'got out:A' });
  });
});

describe('defect 2: the error of a failed fail-fast parallel does not depend on timing (rule 6)', () => {
  const source = 'parallel:\n  session "A"\n  session "B"\n  session "C"\n';
  const codes: Record<string, ScriptedOutcome> = {
    A: { kind: 'fail', code: 'RUNTIME_CRASHED', message: 'exit 11' },
    B: { kind: 'fail', code: 'RUNTIME_TIMEOUT', message: 'exit 12' },
    C: { kind: 'fail', code: 'RUNTIME_RATE_LIMIT', message: 'exit 13' },
  };

  it('three failing branches settling in any order raise the earliest ordinal error', async () => {
    const messages = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const runtime = new RacingRuntime({ seed, outcome: (_o, _a, prompt) => codes[prompt] as ScriptedOutcome });
      const { result } = await runPlan(planOf(source), { registry: scriptedRegistry(runtime) });
      messages.add(`${result.error?.code}: ${result.error?.message}`);
    }
    expect([...messages]).toEqual(['RUNTIME_CRASHED: exit 11']);
  });

  it('with real fake-agent subprocesses too: exit:11, exit:12, exit:13 end with exit 11', async () => {
    const plan = planOf('parallel:\n  session "A"\n    simulate: "exit:11"\n  session "B"\n    simulate: "exit:12"\n  session "C"\n    simulate: "exit:13"\n');
    for (let i = 0; i < 3; i++) {
      const { result } = await runPlan(plan, { registry: createRuntimeRegistry(), defaultAgent: 'fake' });
      expect(result.error?.message).toContain('exited with code 11');
    }
  });

  it('with the command runtime: ordinal 0 failing after ordinal 1 failed still wins', async () => {
    const dir = tempDir('hw-race-');
    const marker = join(dir, 'b-failed');
    // Branch 0 fails only once branch 1 has failed: the later failure has the lower ordinal.
    writeFileSync(join(dir, 'a.sh'), `while [ ! -f '${marker}' ]; do :; done\necho a >&2\nexit 11\n`);
    writeFileSync(join(dir, 'b.sh'), `echo b >&2\ntouch '${marker}'\nexit 12\n`);
    const plan = planOf(
      `agent a:\n  command: "sh ${join(dir, 'a.sh')}"\nagent b:\n  command: "sh ${join(dir, 'b.sh')}"\nparallel:\n  session: a\n  session: b\n`,
    );
    const { result, events } = await runPlan(plan, { registry: createRuntimeRegistry() });
    expect(result.error?.message).toContain('code 11');
    expect(ofType(events, 'taskFailed').map((e) => [e.ordinal, e.cancelled])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it('a failure cancels only higher ordinals: a lower sibling still running is not cancelled', async () => {
    let releaseA!: () => void;
    const aMayEnd = new Promise<void>((resolve) => (releaseA = resolve));
    const runtime = new ScriptedRuntime({
      // A stops at once if asked to; left alone it ends after B failed.
      A: (_request, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true });
          void aMayEnd.then(() => resolve({ kind: 'succeeded', output: 'A done' }));
        }),
      B: () => {
        setImmediate(releaseA);
        return runtimeError('RUNTIME_CRASHED', 'B crashed');
      },
      C: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true })),
    });
    const { result, events } = await runPlan(planOf('try:\n  parallel:\n    session "A"\n    session "B"\n    session "C"\ncatch:\n  session "handled"\n'), {
      registry: scriptedRegistry(runtime),
    });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'attemptSucceeded').map((e) => e.ordinal)).toContain(0);
    expect(ofType(events, 'taskFailed').map((e) => [e.ordinal, e.cancelled])).toEqual([
      [1, false],
      [2, true],
    ]);
  });
});

describe('defect 3: a failure leaving a branch through throw stops the whole fail-fast parallel', () => {
  it('throw in one branch: the sibling starts no later session', async () => {
    const runtime = new ScriptedRuntime({});
    const { result } = await runPlan(
      planOf('parallel:\n  do:\n    session "A"\n    throw "boom"\n  do:\n    session "B"\n    session "B2"\n    session "B3"\n'),
      { registry: scriptedRegistry(runtime) },
    );
    expect(result.error?.code).toBe('USER_THROWN');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['A', 'B']);
  });

  it('a rethrow from a catch inside a branch: the sibling starts no later session', async () => {
    const runtime = new ScriptedRuntime({ A: () => runtimeError('RUNTIME_CRASHED', 'A crashed') });
    const { result } = await runPlan(
      planOf('parallel:\n  try:\n    session "A"\n  catch:\n    session "log"\n    throw\n  do:\n    session "B"\n    session "B2"\n    session "B3"\n'),
      { registry: scriptedRegistry(runtime) },
    );
    expect(result.error?.message).toBe('A crashed');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['A', 'B', 'log', 'B2']);
  });
});

describe('defect 4: a cancel landing after the tasks settled and before the commit', () => {
  it('leaves no commit-scoped event and no stepStarted after cancelRequested (rule 11)', async () => {
    const { run, done, sink } = startRun(planOf('let x = session "A"\nsession "B"\n'));
    run.onEvent((e) => {
      // Queued behind the attempt's own result: it runs after the tasks settled, before the commit.
      if (e.type === 'attemptSucceeded' && e.step === 1) setImmediate(() => run.cancel({ commandId: 'cmd_late' }));
    });
    const result = await done;
    expect(result.status).toBe('cancelled');
    const types = typesOf(sink.events);
    const after = types.slice(types.indexOf('cancelRequested'));
    expect(after.filter((t) => COMMIT_SCOPED.includes(t) || t === 'stepStarted')).toEqual([]);
    const failed = ofType(sink.events, 'taskFailed');
    expect(failed.map((e) => [e.ordinal, e.cancelled, e.settled])).toEqual([[0, true, { outcome: 'succeeded' }]]);
    expect(types.at(-1)).toBe('runCancelled');
  });
});

describe("defect 5: a default agent's retry policy", () => {
  it('applies to sessions that get the agent as the run default', async () => {
    const plan = planOf('agent flaky:\n  runtime: "noop"\n  retry: 2\n  backoff: "none"\nsession "work"\n  simulate: "crash, crash, ok"\n');
    const { result, events } = await runPlan(plan, { defaultAgent: 'flaky' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'attemptStarted')).toHaveLength(3);
    expect(ofType(events, 'taskStarted')[0]?.maxAttempts).toBe(3);
  });
});

describe('defect 6: an assignment to an undeclared name', () => {
  it('is a check-time diagnostic at line:col', () => {
    expect(diagnostics('session "a"\nghost = session "b"\n')).toEqual([
      'f.prose:2:1: assignment to undeclared variable "ghost": declare it first with let ghost = ... (or const)',
    ]);
  });

  it('two branches writing one outer variable is a check-time diagnostic too', () => {
    expect(diagnostics('let x = ""\nparallel:\n  do:\n    x = session "a"\n  do:\n    x = session "b"\n')).toEqual([
      'f.prose:6:5: "x" is written by more than one branch of the parallel at 2:1 (at 4:5 and 6:5): branches run concurrently, so their writes could collide; give each branch a variable of its own (a named branch, or a let inside the branch)',
    ]);
  });
});

describe('defect 7: the error model invariants are enforced (hivemind-error-model.md §9)', () => {
  const systemFailure = (): ScriptedRuntime =>
    new ScriptedRuntime({
      risky: () => ({ kind: 'failed', error: new HivewatchError('SYSTEM_INVARIANT_VIOLATED', { message: 'broken' }) }),
    });

  it('a catch does not swallow a system error; finally still runs, then the run fails', async () => {
    const runtime = systemFailure();
    const { result, events } = await runPlan(planOf('try:\n  session "risky"\ncatch:\n  session "handler"\nfinally:\n  session "cleanup"\nsession "after"\n'), {
      registry: scriptedRegistry(runtime),
    });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['risky', 'cleanup']);
    expect(ofType(events, 'errorOccurred')[0]?.caught).toBe(false);
  });

  it('a continue or ignore parallel does not absorb a system error', async () => {
    for (const mode of ['continue', 'ignore']) {
      const runtime = systemFailure();
      const { result } = await runPlan(planOf(`parallel (on-fail: "${mode}"):\n  session "risky"\n  session "other"\nsession "after"\n`), {
        registry: scriptedRegistry(runtime),
      });
      expect(result.error?.code).toBe('SYSTEM_INVARIANT_VIOLATED');
      expect(runtime.calls.map((c) => c.prompt)).not.toContain('after');
    }
  });

  it('a scope error cannot be recoverable, nor come from another origin than scope_enforcer', () => {
    expect(() => new HivewatchError('SCOPE_VIOLATION_WRITE', { message: 'x', recoverable: true })).toThrow(
      'error model invariant violated: SCOPE_VIOLATION_WRITE: a scope error is always fatal to the attempt: it cannot be recoverable',
    );
    expect(() => new HivewatchError('SCOPE_VIOLATION_WRITE', { message: 'x', origin: 'agent:coder' })).toThrow(
      'error model invariant violated: SCOPE_VIOLATION_WRITE: a scope error must originate from "scope_enforcer", got "agent:coder"',
    );
    expect(() => new HivewatchError('RUNTIME_CRASHED', { message: 'x', origin: 'user' })).toThrow('a runtime error must originate from "runtime:<adapter>"');
  });

  it('a runtime handing back an error that breaks the model is a SYSTEM_INVARIANT_VIOLATED failure, never retried', async () => {
    const runtime = new ScriptedRuntime({
      '*': () => ({ kind: 'failed', error: new HivewatchError('SCOPE_VIOLATION_WRITE', { message: 'x', recoverable: true }) }),
    });
    const { result, events } = await runPlan(planOf('session "work" (retry: 3)\n'), { registry: scriptedRegistry(runtime) });
    expect(result.error?.code).toBe('SYSTEM_INVARIANT_VIOLATED');
    expect(ofType(events, 'attemptStarted')).toHaveLength(1);
  });

  it('VERIFICATION_AGENT_REJECTED is not recoverable', () => {
    const rejected = new HivewatchError('VERIFICATION_AGENT_REJECTED', { message: 'HARD FAIL', origin: 'verifier' });
    expect(rejected.recoverable).toBe(false);
    expect(decideRetry({ retries: 3, backoff: null, baseDelayMs: null, maxDelayMs: null }, rejected, 1).retry).toBe(false);
  });
});

describe('defect 8: retry policies are followed as written', () => {
  it('delay: "1h" waits an hour (max-delay defaults to at least the delay)', async () => {
    const plan = planOf('session "work" (retry: 1, backoff: "fixed", delay: "1h")\n  agent: noop\n  simulate: "crash, ok"\n');
    const { events } = await runPlan(plan);
    expect(ofType(events, 'retryScheduled').map((e) => e.delayMs)).toEqual([3_600_000]);
  });

  it('a max-delay shorter than a listed delay is a check-time diagnostic', () => {
    expect(diagnostics('session "a" (retry: 2, backoff: [1s, 10m], max-delay: "5m")\n')).toEqual([
      'f.prose:1:55: max-delay (300000ms) must not be less than the longest backoff delay (600000ms): it would never be waited',
    ]);
  });
});

describe('defect 9: throw "message" inside a catch', () => {
  it('carries the caught error as its cause', async () => {
    const runtime = new ScriptedRuntime({ risky: () => runtimeError('RUNTIME_TIMEOUT', 'took too long') });
    const { result } = await runPlan(planOf('try:\n  session "risky"\ncatch err:\n  throw "gave up: {err.code}"\n'), { registry: scriptedRegistry(runtime) });
    expect(result.error?.code).toBe('USER_THROWN');
    // The cause is the envelope's own field now (rule 16), no longer `context.cause`.
    expect(result.error?.cause).toMatchObject({ code: 'RUNTIME_TIMEOUT', message: 'took too long' });
    expect(result.error?.context.cause).toBeUndefined();
  });
});

describe('defect 10: cancel during a fan-out keeps what had settled', () => {
  it('taskFailed for every task, with the outcome each had reached', async () => {
    const runtime = new ScriptedRuntime({
      A: () => ({ kind: 'succeeded', output: 'A done' }),
      B: () => runtimeError('RUNTIME_CRASHED', 'B crashed'),
      C: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true })),
    });
    const { run, done, sink } = startRun(planOf('parallel (on-fail: "continue"):\n  session "A"\n  session "B"\n  session "C"\n'), {
      registry: scriptedRegistry(runtime),
    });
    run.onEvent((e) => {
      if (e.type === 'attemptFailed' && e.ordinal === 1) setImmediate(() => run.cancel());
    });
    await done;
    expect(ofType(sink.events, 'taskFailed').map((e) => [e.ordinal, e.cancelled, e.settled?.outcome ?? null])).toEqual([
      [0, true, 'succeeded'],
      [1, true, 'failed'],
      [2, true, null],
    ]);
  });
});

describe('defects 11 and 12: the front end on hostile text', () => {
  it('deep nesting is a diagnostic, not a stack overflow', () => {
    const brackets = `session "x" (retry: 1, backoff: ${'['.repeat(3400)}${']'.repeat(3400)})\n`;
    expect(diagnostics(brackets)).toEqual(['f.prose:1:97: nesting deeper than 64 levels (blocks and lists): flatten this part of the flow']);
    let blocks = '';
    for (let i = 0; i < 1200; i++) blocks += `${' '.repeat(i)}do:\n`;
    expect(diagnostics(`${blocks}${' '.repeat(1200)}session "x"\n`)).toEqual([
      'f.prose:65:65: nesting deeper than 64 levels (blocks and lists): flatten this part of the flow',
    ]);
  });

  it('lone CR line endings are line breaks', async () => {
    const runtime = new ScriptedRuntime({});
    const { result } = await runPlan(planOf('let x = "a"\rsession "use {x}"\r'), { registry: scriptedRegistry(runtime) });
    expect(result.status).toBe('completed');
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['use a']);
  });
});

describe('semantics version', () => {
  it('is journaled at runStarted; a journal written under other rules is refused for resume', async () => {
    const { events } = await runPlan(planOf('session "a"\n'));
    expect(ofType(events, 'runStarted')[0]?.semantics).toBe(ENGINE_SEMANTICS);
    const old = events.map((e) => (e.type === 'runStarted' ? { ...e, semantics: undefined } : e));
    const point = resumePointFromEvents('run_old', old);
    expect(point.semantics).toBe(1);
    expect(() => new FlowRun({ plan: planOf('session "a"\n'), registry: createRuntimeRegistry(), sink: new MemorySink(), resume: point })).toThrow(
      `run run_old was journaled under engine semantics 1 and this Hivewatch runs semantics ${ENGINE_SEMANTICS}`,
    );
  });
});

describe('finally on an uncaught failure (found by the reference model)', () => {
  it('try/finally without catch runs the finally, then the run fails with the original error', async () => {
    const runtime = new ScriptedRuntime({ risky: () => runtimeError('RUNTIME_CRASHED', 'risky crashed') });
    const { result, events } = await runPlan(planOf('try:\n  session "risky"\nfinally:\n  session "cleanup"\n'), { registry: scriptedRegistry(runtime) });
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['risky', 'cleanup']);
    expect(result.error?.message).toBe('risky crashed');
    expect(ofType(events, 'stepFinished').map((e) => e.step)).toEqual([1, 2]);
  });

  it('a failure inside a catch still runs the finally', async () => {
    const runtime = new ScriptedRuntime({ risky: () => runtimeError('RUNTIME_CRASHED', 'risky'), handler: () => runtimeError('RUNTIME_CRASHED', 'handler') });
    const { result } = await runPlan(planOf('try:\n  session "risky"\ncatch:\n  session "handler"\nfinally:\n  session "cleanup"\n'), {
      registry: scriptedRegistry(runtime),
    });
    expect(runtime.calls.map((c) => c.prompt)).toEqual(['risky', 'handler', 'cleanup']);
    expect(result.error?.message).toBe('handler');
  });
});

describe('found by the generated flows (shrunk counterexamples)', () => {
  it('branches of two parallels that ran one after the other may write one variable in the same step', async () => {
    // Both writes land in step 1's commit: the first parallel's task and the second's assignment.
    const { result } = await runPlan(
      planOf('let g0 = ""\nparallel:\n  do:\n    g0 = session "A"\n  session "B"\nparallel:\n  do:\n    g0 = "after {g0}"\n  session "C"\n'),
      {
        registry: scriptedRegistry(new ScriptedRuntime({})),
      },
    );
    expect(result.status).toBe('completed');
    expect(result.channels.g0).toBe('after out:A');
  });
});
