import type { FailureLink, HivewatchEvent } from '../../base/events.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import type { ErrorCode } from '../../base/errors/taxonomy.js';
import { envelope, JournalBuilder, type BuilderOptions } from './journal-builder.js';

/**
 * Journals of failing runs in the two shapes the store reads (docs/semantics.md "The failure
 * model"): `legacy`, as the engine wrote them before the failure model (causes only in
 * `context.lastError` / `context.cause`, no `runFailed.chain`, a fail-fast sibling's stopped
 * attempt journaled as an error), and `chained`, the contract's shape (envelope `cause`,
 * `runFailed.chain` with each link's errorOccurred seq, `attemptCancelled` for a sibling). Each
 * scenario returns its builder and the seqs of the occurrences a test asserts on.
 */

export type Shape = 'legacy' | 'chained';

export interface Scenario {
  builder: JournalBuilder;
  events: HivewatchEvent[];
  /** errorOccurred seqs by name (e.g. `crash`, `policy`). */
  seqs: Record<string, number>;
}

interface TaskRef {
  step: number;
  ordinal: number;
  taskId: string;
}

/** Event helpers over a JournalBuilder, for scenarios the builder's step scripts cannot express. */
class Script {
  readonly seqs: Record<string, number> = {};
  private stepNo = 0;

  constructor(
    readonly b: JournalBuilder,
    private readonly flow: string,
  ) {}

  step(names: readonly string[]): TaskRef[] {
    this.stepNo += 1;
    const step = this.stepNo;
    const refs = names.map((_, ordinal) => ({ step, ordinal, taskId: `${step}:${ordinal}` }));
    this.b.push({ type: 'stepStarted', step, frontier: refs.map((r, i) => ({ ordinal: r.ordinal, taskId: r.taskId, name: names[i] as string })) });
    return refs;
  }

  error(
    code: ErrorCode,
    ref: TaskRef | { step: number; taskId: null },
    attempt: number | null,
    extra: { cause?: ErrorEnvelope; context?: Record<string, unknown>; message?: string } = {},
  ): ErrorEnvelope {
    const e = envelope(
      { code, message: extra.message ?? `${code.toLowerCase()} in ${ref.taskId ?? 'the flow'}` },
      { project: null, flow: this.flow, run: this.b.runId, step: ref.step, task: ref.taskId, attempt },
      this.b.ts,
    );
    return { ...e, context: { ...e.context, ...extra.context }, ...(extra.cause ? { cause: extra.cause } : {}) };
  }

  occurred(name: string, error: ErrorEnvelope, flags: { caught?: boolean; retrying?: boolean; ref?: TaskRef }): void {
    const ref = flags.ref;
    const event = this.b.push({
      type: 'errorOccurred',
      error,
      caught: flags.caught ?? false,
      retrying: flags.retrying ?? false,
      step: error.correlation.step,
      ordinal: ref?.ordinal ?? null,
      taskId: ref?.taskId ?? null,
    });
    this.seqs[name] = event.seq;
  }

  started(ref: TaskRef, name: string, maxAttempts = 1): void {
    this.b.push({ type: 'taskStarted', ...ref, name, agent: 'fake', maxAttempts });
  }

  /** One attempt that fails with `error`; `retrying` schedules the next one. */
  failedAttempt(name: string, ref: TaskRef, attempt: number, error: ErrorEnvelope, flags: { caught?: boolean; retrying?: boolean } = {}): void {
    this.b.push({ type: 'attemptStarted', ...ref, attempt });
    this.b.push({ type: 'attemptFailed', ...ref, attempt, durationMs: 10, error });
    this.occurred(name, error, { ...flags, ref });
    if (flags.retrying) this.b.push({ type: 'retryScheduled', ...ref, attempt, delayMs: 1000, strategy: 'linear', nextAttemptAt: this.b.ts + 1000 });
  }

  succeeds(ref: TaskRef, attempt: number): void {
    this.b.push({ type: 'attemptStarted', ...ref, attempt });
    this.b.push({ type: 'attemptSucceeded', ...ref, attempt, durationMs: 10 });
    this.b.push({ type: 'taskSucceeded', ...ref, attempts: attempt, output: `output of ${ref.taskId}` });
  }

  okStep(name: string): void {
    const [ref] = this.step([name]) as [TaskRef];
    this.started(ref, name);
    this.succeeds(ref, 1);
    this.b.push({ type: 'checkpointSaved', step: ref.step, channels: {}, delta: true });
    this.b.push({ type: 'stepFinished', step: ref.step });
  }

  link(name: string, e: ErrorEnvelope, how: FailureLink['how'], rethrown = false): FailureLink {
    const c = e.correlation;
    return {
      seq: this.seqs[name] ?? null,
      code: e.code,
      category: e.category,
      origin: e.origin,
      message: e.message,
      step: c.step,
      taskId: c.task,
      attempt: c.attempt,
      how,
      ...(rethrown ? { rethrown } : {}),
    };
  }

  fail(error: ErrorEnvelope, chain: FailureLink[] | null): void {
    this.b.push({ type: 'runFailed', error, ...(chain ? { chain } : {}) });
  }

  done(): Scenario {
    return { builder: this.b, events: this.b.events, seqs: this.seqs };
  }
}

function script(runId: string, options: BuilderOptions): Script {
  const b = new JournalBuilder(runId, { flow: 'flows/failing.prose', flowName: 'failing', ...options }).start();
  return new Script(b, options.flow ?? 'flows/failing.prose');
}

/** `retry: 2` gives up after three timeouts: POLICY_RETRY_LIMIT_EXCEEDED → the last attempt's timeout. */
export function retryLimit(runId: string, shape: Shape, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [ref] = s.step(['flaky']) as [TaskRef];
  s.started(ref, 'flaky', 3);
  let last = s.error('RUNTIME_TIMEOUT', ref, 1);
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    last = s.error('RUNTIME_TIMEOUT', ref, attempt);
    s.failedAttempt(`timeout${attempt}`, ref, attempt, last, { retrying: attempt < 3 });
  }
  const policy = s.error('POLICY_RETRY_LIMIT_EXCEEDED', ref, 3, shape === 'legacy' ? { context: { attempts: 3, lastError: last } } : { cause: last });
  s.occurred('policy', policy, { ref });
  s.b.push({ type: 'taskFailed', ...ref, attempts: 3, error: policy, cancelled: false });
  s.fail(policy, shape === 'legacy' ? null : [s.link('policy', policy, 'retry-limit'), s.link('timeout3', last, null)]);
  return s.done();
}

/** A caught crash, the catch's session, then a bare `throw`: the crash itself ends the run. */
export function rethrow(runId: string, shape: Shape, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [ref] = s.step(['deploy']) as [TaskRef];
  s.started(ref, 'deploy');
  const crash = s.error('RUNTIME_CRASHED', ref, 1);
  s.failedAttempt('crash', ref, 1, crash, { caught: true });
  s.b.push({ type: 'taskFailed', ...ref, attempts: 1, error: crash, cancelled: false });
  s.okStep('record the failure');
  s.okStep('cleanup');
  s.fail(crash, shape === 'legacy' ? null : [s.link('crash', crash, null, true)]);
  return s.done();
}

/** A caught crash and `throw "deploy failed"` in the catch: USER_THROWN → the crash. */
export function thrownInCatch(runId: string, shape: Shape, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [ref] = s.step(['deploy']) as [TaskRef];
  s.started(ref, 'deploy');
  const crash = s.error('RUNTIME_CRASHED', ref, 1);
  s.failedAttempt('crash', ref, 1, crash, { caught: true });
  s.b.push({ type: 'taskFailed', ...ref, attempts: 1, error: crash, cancelled: false });
  const thrown = s.error('USER_THROWN', { step: 1, taskId: null }, null, {
    message: 'deploy failed',
    ...(shape === 'legacy' ? { context: { line: 9, column: 3, cause: crash } } : { cause: crash }),
  });
  s.occurred('thrown', thrown, {});
  s.fail(thrown, shape === 'legacy' ? null : [s.link('thrown', thrown, 'thrown-in-catch'), s.link('crash', crash, null)]);
  return s.done();
}

/**
 * A fail-fast parallel: A (ordinal 0) times out twice and then succeeds, B (ordinal 1) crashes, C
 * (ordinal 2) is stopped by B's failure. The run's newest occurrence is not what ended it: in the
 * legacy shape A's second timeout comes after B's crash and C's stopped attempt journals an error
 * of its own; in the chained shape B's crash waits until A settled and C ends `attemptCancelled`.
 */
export function failFast(runId: string, shape: Shape, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [a, b, c] = s.step(['A', 'B', 'C']) as [TaskRef, TaskRef, TaskRef];
  for (const [ref, name] of [
    [a, 'A'],
    [b, 'B'],
    [c, 'C'],
  ] as const)
    s.started(ref, name, ref === a ? 3 : 1);
  s.failedAttempt('timeout1', a, 1, s.error('RUNTIME_TIMEOUT', a, 1), { retrying: true });
  const crash = s.error('RUNTIME_CRASHED', b, 1, { message: 'B exited with code 12' });
  s.b.push({ type: 'attemptStarted', ...b, attempt: 1 });
  s.b.push({ type: 'attemptFailed', ...b, attempt: 1, durationMs: 10, error: crash });
  s.b.push({ type: 'attemptStarted', ...c, attempt: 1 });
  const stopped = s.error('RUNTIME_CRASHED', c, 1, { message: 'C was killed by SIGTERM' });
  if (shape === 'legacy') {
    s.occurred('crash', crash, { ref: b });
    s.b.push({ type: 'taskFailed', ...b, attempts: 1, error: crash, cancelled: false });
    s.b.push({ type: 'attemptFailed', ...c, attempt: 1, durationMs: 10, error: stopped });
    s.occurred('stopped', stopped, { ref: c });
  } else {
    s.b.push({ type: 'attemptCancelled', ...c, attempt: 1, durationMs: 10, by: 'sibling', reported: { outcome: 'failed', error: stopped } });
  }
  s.b.push({ type: 'taskFailed', ...c, attempts: 1, error: s.error('SYSTEM_CANCELLED', c, null, { message: 'a sibling failed' }), cancelled: true });
  s.failedAttempt('timeout2', a, 2, s.error('RUNTIME_TIMEOUT', a, 2), { retrying: true });
  s.succeeds(a, 3);
  if (shape === 'chained') {
    s.occurred('crash', crash, { ref: b });
    s.b.push({ type: 'taskFailed', ...b, attempts: 1, error: crash, cancelled: false });
  }
  s.fail(crash, shape === 'legacy' ? null : [s.link('crash', crash, null)]);
  return s.done();
}

/**
 * A fail-fast parallel in the order the engine journals facts (docs/semantics.md "Event order
 * within a step"): B (ordinal 1) exits 12 first, its end journaled at once while it waits for A;
 * A (ordinal 0) then exits 11, which counts and ends the run, and B is judged cancelled by it
 * (`attemptJudgedCancelled`, no error of its own).
 */
export function judgedCancelled(runId: string, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [a, b] = s.step(['A', 'B']) as [TaskRef, TaskRef];
  s.started(a, 'A');
  s.started(b, 'B');
  s.b.push({ type: 'attemptStarted', ...a, attempt: 1 });
  s.b.push({ type: 'attemptStarted', ...b, attempt: 1 });
  const twelve = s.error('RUNTIME_CRASHED', b, 1, { message: 'B exited with code 12' });
  const usage = { inputTokens: 100, outputTokens: 20, costUsd: 0.01, source: 'result' as const };
  s.b.push({ type: 'attemptFailed', ...b, attempt: 1, durationMs: 10, error: twelve, usage, awaiting: [a.taskId] });
  const eleven = s.error('RUNTIME_CRASHED', a, 1, { message: 'A exited with code 11' });
  s.b.push({ type: 'attemptFailed', ...a, attempt: 1, durationMs: 30, error: eleven });
  s.occurred('crash', eleven, { ref: a });
  s.b.push({ type: 'attemptJudgedCancelled', ...b, attempt: 1, by: 'sibling' });
  s.b.push({ type: 'taskFailed', ...a, attempts: 1, error: eleven, cancelled: false });
  s.b.push({
    type: 'taskFailed',
    ...b,
    attempts: 1,
    error: s.error('SYSTEM_CANCELLED', b, null, { message: 'a sibling failed' }),
    cancelled: true,
    settled: { outcome: 'failed', error: twelve },
  });
  s.fail(eleven, [s.link('crash', eleven, null)]);
  return s.done();
}

/** A crash in a try with a finally whose session then times out: the timeout replaces the crash. */
export function finallyFailed(runId: string, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [ref] = s.step(['deploy']) as [TaskRef];
  s.started(ref, 'deploy');
  const crash = s.error('RUNTIME_CRASHED', ref, 1);
  s.failedAttempt('crash', ref, 1, crash);
  s.b.push({ type: 'taskFailed', ...ref, attempts: 1, error: crash, cancelled: false });
  const [cleanup] = s.step(['cleanup']) as [TaskRef];
  s.started(cleanup, 'cleanup');
  const timeout = s.error('RUNTIME_TIMEOUT', cleanup, 1, { cause: crash });
  s.failedAttempt('timeout', cleanup, 1, timeout);
  s.b.push({ type: 'taskFailed', ...cleanup, attempts: 1, error: timeout, cancelled: false });
  s.fail(timeout, [s.link('timeout', timeout, 'finally-failed'), s.link('crash', crash, null)]);
  return s.done();
}

/** A caught crash and a run that completes: the crash was handled. */
export function caughtAndCompleted(runId: string, options: BuilderOptions = {}): Scenario {
  const s = script(runId, options);
  const [ref] = s.step(['download']) as [TaskRef];
  s.started(ref, 'download');
  s.failedAttempt('crash', ref, 1, s.error('RUNTIME_CRASHED', ref, 1), { caught: true });
  s.b.push({ type: 'taskFailed', ...ref, attempts: 1, error: s.error('RUNTIME_CRASHED', ref, 1), cancelled: false });
  s.okStep('build from scratch');
  s.b.complete();
  return s.done();
}
