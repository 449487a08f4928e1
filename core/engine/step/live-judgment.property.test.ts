import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CancelledError, HivewatchError } from '../../base/errors/hivewatch-error.js';
import { analyzeFailure, isInside, type Frame, type ParallelState } from '../interpret/frames.js';
import { FailureChain } from '../interpret/failure-chain.js';
import { SIBLING_FAILED } from '../interpret/thread-failures.js';
import { assertProperty } from '../../testing/property.js';
import { seededRandom } from '../../testing/seeded-random.js';
import type { TaskResult } from '../task/task-executor.js';
import { LiveJudgment, type JudgedTask } from './live-judgment.js';
import { cancelledBySibling, resolveStep, type SettledTask } from './resolve.js';

/**
 * LiveJudgment against the straightforward judgment it replaced (below, kept here only as the
 * oracle): every task's judges listed up front, every task walked on every settle. On random
 * frame shapes (nested parallels with random on-fail, try / catch / finally around them), random
 * results (successes, cancellations, ordinary and system failures, with and without a judge) and
 * random settle orders, both must make the same calls in the same order: `awaiting` before each
 * task ends, every abort, every `counts()` / `cancelled()`.
 */

type Standing = 'open' | 'counted' | 'final';

class OracleJudgment {
  private readonly results: (TaskResult | undefined)[];
  private prefix = 0;
  private readonly judges: number[][];
  private readonly ordinaryJudges: number[][];
  private readonly waiting: number[];
  private readonly waitingOrdinary: number[];
  private readonly judgeOf: number[][];
  private readonly ordinaryJudgeOf: number[][];
  private readonly standing: Standing[];

  constructor(private readonly tasks: readonly JudgedTask[]) {
    this.results = tasks.map(() => undefined);
    const parallels = tasks.map((t) => new Set(t.frames.flatMap((f) => (f.kind === 'parallel' ? [f.state] : []))));
    const killedByOrdinary = tasks.map((t) => analyzeFailure(t.frames, false).killed);
    this.judges = tasks.map((_, k) => range(k).filter((j) => [...(parallels[j] as Set<ParallelState>)].some((p) => parallels[k]?.has(p))));
    this.ordinaryJudges = this.judges.map((judges, k) => judges.filter((j) => killedByOrdinary[j]?.some((p) => parallels[k]?.has(p))));
    this.waiting = this.judges.map((judges) => judges.length);
    this.waitingOrdinary = this.ordinaryJudges.map((judges) => judges.length);
    const inverse = (lists: number[][]): number[][] => {
      const out: number[][] = tasks.map(() => []);
      lists.forEach((list, k) => list.forEach((j) => out[j]?.push(k)));
      return out;
    };
    this.judgeOf = inverse(this.judges);
    this.ordinaryJudgeOf = inverse(this.ordinaryJudges);
    this.standing = tasks.map(() => 'open');
  }

  awaiting(index: number): string[] {
    return (this.ordinaryJudges[index] as number[]).filter((j) => this.results[j] === undefined).map((j) => (this.tasks[j] as JudgedTask).taskId);
  }

  settled(index: number, result: TaskResult): void {
    this.results[index] = result;
    const task = this.tasks[index] as JudgedTask;
    if (result.kind === 'failed' && !result.error.escalates) this.kill(task, result.error);
    while (this.prefix < this.tasks.length && this.results[this.prefix] !== undefined) this.prefix++;
    if (this.results.slice(0, this.prefix).some((r) => r?.kind === 'failed' && r.error.escalates)) {
      resolveStep(this.settledTasks(range(this.prefix))).outcomes.forEach((outcome, i) => {
        if (outcome.kind === 'failed') this.kill(this.tasks[i] as JudgedTask, outcome.error);
      });
    }
    for (const k of this.judgeOf[index] as number[]) this.waiting[k] = (this.waiting[k] as number) - 1;
    for (const k of this.ordinaryJudgeOf[index] as number[]) this.waitingOrdinary[k] = (this.waitingOrdinary[k] as number) - 1;
    this.tasks.forEach((_, k) => this.judgeOne(k));
  }

  private judgeOne(k: number): void {
    const result = this.results[k];
    if (result === undefined || this.standing[k] === 'final') return;
    const judge = result.kind === 'failed' ? result.judge : undefined;
    if (judge === undefined) {
      this.standing[k] = 'final';
      return;
    }
    if (this.standing[k] === 'open' && this.waitingOrdinary[k] === 0) {
      if (cancelledBySibling(this.settledTasks([...(this.ordinaryJudges[k] as number[]), k]))) {
        judge.cancelled();
        this.standing[k] = 'final';
        return;
      }
      judge.counts();
      this.standing[k] = 'counted';
    }
    if (this.standing[k] === 'counted' && this.waiting[k] === 0) {
      if (cancelledBySibling(this.settledTasks([...(this.judges[k] as number[]), k]))) judge.cancelled();
      this.standing[k] = 'final';
    }
  }

  private settledTasks(indices: readonly number[]): SettledTask[] {
    return indices.map((i) => {
      const t = this.tasks[i] as JudgedTask;
      return { ordinal: t.ordinal, frames: t.frames, result: this.results[i] as TaskResult };
    });
  }

  private kill(failed: JudgedTask, error: HivewatchError): void {
    for (const parallel of analyzeFailure(failed.frames, error.escalates).killed) {
      for (const other of this.tasks) {
        if (other.ordinal > failed.ordinal && isInside(other.frames, parallel)) other.controller.abort(new CancelledError(SIBLING_FAILED));
      }
    }
  }
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

type Kind = 'succeeded' | 'cancelled' | 'failed' | 'failed-unjudged' | 'system';

interface Scenario {
  frames: Frame[][];
  kinds: Kind[];
  order: number[];
}

/** A random program's tasks: nested parallels and tries, leaves in ordinal order. */
function scenario(seed: number): Scenario {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const frames: Frame[][] = [];
  let parallels = 0;
  const grow = (around: Frame[], depth: number): void => {
    const roll = random();
    if (depth >= 4 || roll < 0.3) {
      frames.push(around);
      return;
    }
    if (roll < 0.45) {
      grow([...around, { kind: 'try', hasCatch: random() < 0.5, hasFinally: random() < 0.5 }], depth + 1);
      return;
    }
    const state: ParallelState = { id: `p${parallels++}`, dead: false };
    const onFail = pick(['fail-fast', 'continue', 'ignore'] as const);
    const width = 1 + Math.floor(random() * 5);
    for (let branch = 0; branch < width; branch++) grow([...around, { kind: 'parallel', onFail, branch, state }], depth + 1);
  };
  while (frames.length < 2) grow([], 0);
  const kinds = frames.map(() => pick(['succeeded', 'succeeded', 'cancelled', 'failed', 'failed', 'failed-unjudged', 'system'] as const));
  const order = range(frames.length);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return { frames, kinds, order };
}

interface Judgment {
  awaiting(index: number): string[];
  settled(index: number, result: TaskResult): void;
}

/** Drives a judgment through the scenario; returns every call it made, in order. */
function drive(s: Scenario, make: (tasks: JudgedTask[]) => Judgment): string[] {
  const log: string[] = [];
  const tasks = s.frames.map((frames, i): JudgedTask => {
    const controller = new AbortController();
    const abort = controller.abort.bind(controller);
    controller.abort = (reason?: unknown) => {
      log.push(`abort ${i}`);
      abort(reason);
    };
    return { ordinal: i, frames, taskId: `1:${i}`, controller };
  });
  const judgment = make(tasks);
  for (const i of s.order) {
    log.push(`awaiting ${i}: ${judgment.awaiting(i).join(',')}`);
    judgment.settled(i, result(s.kinds[i] as Kind, i, log));
  }
  return log;
}

function result(kind: Kind, i: number, log: string[]): TaskResult {
  if (kind === 'succeeded') return { kind, output: `out ${i}`, attempts: 1 };
  if (kind === 'cancelled') return { kind, attempts: 1 };
  const error =
    kind === 'system' ? new HivewatchError('SYSTEM_INVARIANT_VIOLATED', { message: 'broken' }) : new HivewatchError('RUNTIME_CRASHED', { message: 'crashed' });
  const judge = { counts: () => log.push(`counts ${i}`), cancelled: () => log.push(`cancelled ${i}`) };
  return { kind: 'failed', error, chain: FailureChain.of(error), attempts: 1, ...(kind === 'failed-unjudged' ? {} : { judge }) };
}

describe('LiveJudgment', () => {
  it('makes the same calls, in the same order, as judging every task on every settle', async () => {
    await assertProperty(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const s = scenario(seed);
        expect(drive(s, (tasks) => new LiveJudgment(tasks))).toEqual(drive(s, (tasks) => new OracleJudgment(tasks)));
      }),
      { seed: 3535, numRuns: 500 },
    );
  });
});
