import type { HivewatchEvent, HivewatchEventBody, SpawnedBy } from '../../base/events.js';
import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ErrorCode } from '../../base/errors/taxonomy.js';
import { seededRandom } from '../../testing/seeded-random.js';

/**
 * Builds realistic run journals for tests (and benchmarks): the event sequences the engine
 * emits for steps of tasks with retries, caught and uncaught failures, cancellation during or
 * between steps, and runs left open by a dead host. Deterministic: time advances by `tick` per
 * event plus every backoff delay.
 */

export interface ErrorSpec {
  code: ErrorCode;
  message?: string;
  origin?: string;
}

/** One attempt's outcome: `'ok'` or the error it fails with. */
export type AttemptScript = 'ok' | ErrorSpec;

export interface TaskScript {
  name?: string;
  agent?: string;
  /** Outcomes in order; the task ends with the last one. */
  attempts: AttemptScript[];
  /** A try/catch handles the final failure (the step still commits). */
  caught?: boolean;
  /** Backoff after each failed attempt that is retried (default 1000 · attempt). */
  delayMs?: number;
}

export interface BuilderOptions {
  flow?: string;
  flowName?: string;
  start?: number;
  tick?: number;
  project?: string | null;
  resumedFrom?: string | null;
  retryOf?: string | null;
  resumeStep?: number;
  maxSteps?: number;
  /**
   * The run's clock (default real: `ts` is then the wall time the store journals). On a
   * virtual clock the store stamps the commit time from its own clock as the wall time.
   */
  clock?: 'real' | 'virtual';
}

export function envelope(spec: ErrorSpec, correlation: ErrorEnvelope['correlation'], timestamp: number): ErrorEnvelope {
  return new HivewatchError(spec.code, {
    message: spec.message ?? `${spec.code.toLowerCase().replace(/_/g, ' ')}`,
    ...(spec.origin !== undefined ? { origin: spec.origin } : {}),
    timestamp,
    correlation,
  }).toEnvelope();
}

/** The `runStarted` of a Claude Code session reported over OTLP (`runId` is its session id), a subagent's when `spawnedBy` is set. */
export function claudeSessionStarted(runId: string, spawnedBy: SpawnedBy | null = null): HivewatchEventBody {
  return {
    type: 'runStarted',
    flow: 'external:claude-code',
    flowName: `Claude Code session ${runId}`,
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
    options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: 'claude-code' },
    external: { origin: 'runtime:claude-code', sessionId: runId, source: 'claude-code 2.1.332', ...(spawnedBy ? { spawnedBy } : {}) },
  };
}

export class JournalBuilder {
  readonly events: HivewatchEvent[] = [];
  /** The uncaught failure of the last step, if any (what `fail()` reports). */
  failure: ErrorEnvelope | null = null;
  private seq = 0;
  private now: number;
  private stepNo: number;
  private readonly tick: number;
  private readonly flow: string;

  constructor(
    readonly runId: string,
    private readonly options: BuilderOptions = {},
  ) {
    this.now = options.start ?? Date.UTC(2026, 0, 1);
    this.tick = options.tick ?? 10;
    this.stepNo = options.resumeStep ?? 0;
    this.flow = options.flow ?? 'examples/demo.prose';
  }

  get ts(): number {
    return this.now;
  }

  get step(): number {
    return this.stepNo;
  }

  /** Moves time forward without an event (a backoff, a slow task). */
  wait(ms: number): this {
    this.now += ms;
    return this;
  }

  push(body: HivewatchEventBody): HivewatchEvent {
    this.seq += 1;
    this.now += this.tick;
    const event = { runId: this.runId, seq: this.seq, ts: this.now, ...body } as HivewatchEvent;
    this.events.push(event);
    return event;
  }

  private correlation(step: number | null, taskId: string | null, attempt: number | null): ErrorEnvelope['correlation'] {
    return { project: this.options.project ?? null, flow: this.flow, run: this.runId, step, task: taskId, attempt };
  }

  start(): this {
    this.push({
      type: 'runStarted',
      flow: this.flow,
      flowName: this.options.flowName ?? 'demo',
      options: { maxSteps: this.options.maxSteps ?? 100, concurrency: 4, clock: this.options.clock ?? 'real', defaultAgent: 'fake' },
      resumedFrom: this.options.resumedFrom ?? null,
      retryOf: this.options.retryOf ?? null,
      resumeStep: this.options.resumeStep ?? 0,
    });
    return this;
  }

  private stepStarted(tasks: readonly TaskScript[]): { step: number; ids: string[] } {
    this.stepNo += 1;
    const step = this.stepNo;
    const ids = tasks.map((_, ordinal) => `${step}:${ordinal}`);
    this.push({
      type: 'stepStarted',
      step,
      frontier: tasks.map((t, ordinal) => ({ ordinal, taskId: `${step}:${ordinal}`, name: t.name ?? `task ${ordinal}` })),
    });
    return { step, ids };
  }

  /** Runs one task to its end; returns its final error when it failed. */
  private runTask(step: number, ordinal: number, task: TaskScript): ErrorEnvelope | null {
    const taskId = `${step}:${ordinal}`;
    const ref = { step, ordinal, taskId };
    const max = task.attempts.length;
    this.push({ type: 'taskStarted', ...ref, name: task.name ?? `task ${ordinal}`, agent: task.agent ?? 'fake', maxAttempts: max });
    for (let i = 0; i < max; i += 1) {
      const attempt = i + 1;
      const outcome = task.attempts[i] as AttemptScript;
      this.push({ type: 'attemptStarted', ...ref, attempt });
      if (outcome === 'ok') {
        this.push({ type: 'attemptSucceeded', ...ref, attempt, durationMs: this.tick });
        this.push({ type: 'taskSucceeded', ...ref, attempts: attempt, output: `output of ${taskId}` });
        return null;
      }
      const error = envelope(outcome, this.correlation(step, taskId, attempt), this.now + this.tick);
      const retrying = attempt < max;
      this.push({ type: 'attemptFailed', ...ref, attempt, durationMs: this.tick, error });
      this.push({ type: 'errorOccurred', error, caught: !retrying && (task.caught ?? false), retrying, step, ordinal, taskId });
      if (retrying) {
        const delayMs = task.delayMs ?? 1000 * attempt;
        this.push({ type: 'retryScheduled', ...ref, attempt, delayMs, strategy: 'linear', nextAttemptAt: this.now + delayMs });
        this.wait(delayMs);
      } else {
        this.push({ type: 'taskFailed', ...ref, attempts: attempt, error, cancelled: false });
        return error;
      }
    }
    return null;
  }

  /**
   * One step: every task in ordinal order, then (when nothing failed uncaught) its writes, the
   * checkpoint and `stepFinished`. An uncaught failure leaves the step uncommitted and is kept
   * in `failure` for `fail()`.
   */
  runStep(tasks: readonly TaskScript[]): this {
    const { step, ids } = this.stepStarted(tasks);
    let uncaught: ErrorEnvelope | null = null;
    tasks.forEach((task, ordinal) => {
      const error = this.runTask(step, ordinal, task);
      if (error && !task.caught && !uncaught) uncaught = error;
    });
    if (uncaught) {
      this.failure = uncaught;
      return this;
    }
    ids.forEach((taskId, ordinal) => {
      this.push({ type: 'writeApplied', step, channel: `r${ordinal}`, ordinal, value: `output of ${taskId}` });
    });
    this.push({ type: 'checkpointSaved', step, channels: Object.fromEntries(ids.map((id, o) => [`r${o}`, `output of ${id}`])) });
    this.push({ type: 'stepFinished', step });
    return this;
  }

  complete(): this {
    this.push({ type: 'runCompleted', steps: this.stepNo });
    return this;
  }

  fail(error?: ErrorEnvelope): this {
    const e = error ?? this.failure ?? envelope({ code: 'SYSTEM_INVARIANT_VIOLATED' }, this.correlation(null, null, null), this.now);
    this.push({ type: 'runFailed', error: e });
    return this;
  }

  /** A cancel between steps: no new step, `runCancelled` is the only further event. */
  cancelBetweenSteps(commandId = 'cmd-1', reason = 'operator'): this {
    this.push({ type: 'cancelRequested', commandId, reason, alreadyCancelling: false });
    this.push({ type: 'runCancelling', epoch: 1, commandId });
    this.push({ type: 'runCancelled', cause: { commandId, reason }, correlation: { run: this.runId, step: null, epoch: 1 } });
    return this;
  }

  /**
   * A cancel during a step: the first task is mid-attempt (after one failed attempt and its
   * backoff for a retrying one), the others have not started; every frontier task gets
   * `taskFailed` with a cancellation cause, in ascending ordinal, then `runCancelled`.
   */
  cancelDuringStep(tasks: readonly TaskScript[], commandId = 'cmd-1', reason = 'operator'): this {
    const { step, ids } = this.stepStarted(tasks);
    const first = tasks[0];
    if (first) {
      const ref = { step, ordinal: 0, taskId: ids[0] as string };
      this.push({ type: 'taskStarted', ...ref, name: first.name ?? 'task 0', agent: first.agent ?? 'fake', maxAttempts: 3 });
      this.push({ type: 'attemptStarted', ...ref, attempt: 1 });
      const spec = first.attempts.find((a): a is ErrorSpec => a !== 'ok');
      if (spec) {
        const error = envelope(spec, this.correlation(step, ref.taskId, 1), this.now);
        this.push({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: this.tick, error });
        this.push({ type: 'errorOccurred', error, caught: false, retrying: true, step, ordinal: 0, taskId: ref.taskId });
        this.push({ type: 'retryScheduled', ...ref, attempt: 1, delayMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: this.now + 30_000 });
      }
    }
    this.push({ type: 'cancelRequested', commandId, reason, alreadyCancelling: false });
    this.push({ type: 'runCancelling', epoch: 1, commandId });
    ids.forEach((taskId, ordinal) => {
      const error = new HivewatchError('SYSTEM_CANCELLED', {
        message: `cancelled: ${reason}`,
        timestamp: this.now,
        correlation: this.correlation(step, taskId, null),
      }).toEnvelope();
      this.push({ type: 'taskFailed', step, ordinal, taskId, attempts: ordinal === 0 ? 1 : 0, error, cancelled: true });
    });
    this.push({ type: 'runCancelled', cause: { commandId, reason }, correlation: { run: this.runId, step, epoch: 1 } });
    return this;
  }

  /** A step whose host dies mid-flight: tasks started, one attempt running, no terminal event. */
  dieDuringStep(tasks: readonly TaskScript[]): this {
    const { step, ids } = this.stepStarted(tasks);
    const ref = { step, ordinal: 0, taskId: ids[0] as string };
    this.push({ type: 'taskStarted', ...ref, name: tasks[0]?.name ?? 'task 0', agent: 'fake', maxAttempts: 2 });
    this.push({ type: 'attemptStarted', ...ref, attempt: 1 });
    return this;
  }
}

/**
 * A run whose host died in step 2 with two agent process groups journaled: task 2:1's was
 * cancelled by its fail-fast sibling (its group ended, `attemptCancelled`), task 2:0's attempt 1
 * never journaled an end, so it is the one leftover recovery must look for.
 */
export function diedWithCancelledSibling(runId: string, hostname: string): JournalBuilder {
  const b = new JournalBuilder(runId)
    .start()
    .runStep([{ attempts: ['ok'] }])
    .dieDuringStep([{ attempts: ['ok'] }, { attempts: ['ok'] }]);
  const open = { step: b.step, ordinal: 0, taskId: `${b.step}:0` };
  const cancelled = { step: b.step, ordinal: 1, taskId: `${b.step}:1` };
  b.push({ type: 'taskStarted', ...cancelled, name: 'task 1', agent: 'fake', maxAttempts: 1 });
  b.push({ type: 'attemptStarted', ...cancelled, attempt: 1 });
  b.push({ type: 'attemptProcess', ...cancelled, attempt: 1, pid: 515_151, startTime: '778', hostname });
  b.push({ type: 'attemptCancelled', ...cancelled, attempt: 1, durationMs: 5, by: 'sibling' });
  b.push({ type: 'attemptProcess', ...open, attempt: 1, pid: 424_242, startTime: '777', hostname });
  return b;
}

export { seededRandom as prng };

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const RANDOM_ERRORS: readonly ErrorSpec[] = [
  { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 30000ms' },
  { code: 'RUNTIME_CRASHED', origin: 'runtime:command', message: 'runtime command exited with code 137: /tmp/work/run-1a2b3c4d/out.log' },
  { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code', message: 'runtime claude-code was rate limited: 429 Too Many Requests' },
  { code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: 'agent coder produced no changes' },
  { code: 'VERIFICATION_CHECK_FAILED', origin: 'check:pytest', message: 'check pytest failed: 3 of 120 tests failed' },
  { code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in src/app.ts' },
  { code: 'USER_THROWN', origin: 'user', message: 'thrown by the flow' },
  { code: 'SCOPE_VIOLATION_WRITE', origin: 'scope_enforcer', message: 'wrote /etc/passwd outside the scope' },
];

/**
 * A random but realistic journal: `runs` runs over several flows, spread over `spanMs`, each with
 * 1-4 steps of 1-3 tasks whose attempts fail with random errors, ending completed, failed or
 * cancelled (or left open when `openShare` allows).
 */
export function randomJournals(seed: number, runs: number, options: { start?: number; spanMs?: number; openShare?: number } = {}): HivewatchEvent[][] {
  const random = seededRandom(seed);
  const start = options.start ?? Date.UTC(2026, 0, 1);
  const span = options.spanMs ?? 3 * 86_400_000;
  const flows = ['flows/a.prose', 'flows/b.prose', 'flows/c.prose'];
  const journals: HivewatchEvent[][] = [];
  for (let r = 0; r < runs; r += 1) {
    const flow = pick(random, flows);
    const b = new JournalBuilder(`run-${seed}-${r}`, {
      flow,
      flowName: flow.replace(/^flows\/|\.prose$/g, ''),
      start: start + Math.floor(random() * span),
      tick: 1 + Math.floor(random() * 20_000),
    }).start();
    const steps = 1 + Math.floor(random() * 4);
    let failed = false;
    for (let s = 0; s < steps && !failed; s += 1) {
      const tasks: TaskScript[] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const attempts: AttemptScript[] = [];
        const n = 1 + Math.floor(random() * 3);
        for (let i = 0; i < n - 1; i += 1) attempts.push(pick(random, RANDOM_ERRORS));
        attempts.push(random() < 0.8 ? 'ok' : pick(random, RANDOM_ERRORS));
        return { attempts, caught: random() < 0.3, delayMs: Math.floor(random() * 120_000) };
      });
      b.runStep(tasks);
      failed = b.failure !== null;
    }
    const ending = random();
    if (failed) b.fail();
    else if (options.openShare && ending < options.openShare) b.dieDuringStep([{ attempts: ['ok'] }]);
    else if (ending < 0.15) b.cancelDuringStep([{ attempts: [pick(random, RANDOM_ERRORS), 'ok'] }, { attempts: ['ok'] }]);
    else b.complete();
    journals.push(b.events);
  }
  return journals;
}
