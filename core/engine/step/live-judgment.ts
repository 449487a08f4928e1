import { CancelledError, type HivewatchError } from '../../base/errors/hivewatch-error.js';
import { analyzeFailure, isInside, type Frame, type ParallelState } from '../interpret/frames.js';
import { SIBLING_FAILED } from '../interpret/thread-failures.js';
import { cancelledBySibling, resolveStep, type SettledTask } from './resolve.js';
import type { TaskResult } from '../task/task-executor.js';

/** What the judgment needs of a running task. */
export interface JudgedTask {
  ordinal: number;
  /** The handlers around the task's session (frames.ts). */
  frames: readonly Frame[];
  taskId: string;
  controller: AbortController;
}

/**
 * Where a task's last failure stands: `open` until it can be judged, `counted` once its
 * errorOccurred is journaled (a system error may still cancel it), `final` when nothing can change.
 */
type Standing = 'open' | 'counted' | 'final';

/**
 * Judges a step's tasks while it runs: which running tasks to stop, and when a task's last failure
 * counts. Facts are journaled where they happen (task-executor.ts journals an attempt's end the
 * moment its process ends); this decides only what depends on lower ordinals (rule 6).
 *
 * Stopping (rule 6 as the design makes it normative): a failure at ordinal k cancels the running
 * tasks above k inside the parallels it kills; tasks below k run to their end. An ordinary failure
 * cancels at once: whatever it cancels, any lower-ordinal failure that also kills its parallel
 * would cancel too, so the outcome cannot depend on timing. A system error may kill more (it
 * escapes continue / ignore parallels), so it acts only once every task below it has ended, when
 * `resolveStep` over that prefix is final.
 *
 * Counting (F6): a task's last failure journals its errorOccurred once every lower task of the
 * step whose ordinary failure could cancel it has ended (its *ordinary judges*), or, when by then
 * the step counts it as cancelled, `attemptJudgedCancelled` instead. That verdict is final: any
 * task that could overturn it (by cancelling the judge that cancels it) cancels the task too. A
 * failure that counted can still be cancelled by a lower sibling's system error, which escapes
 * continue / ignore parallels and catches; once every lower task sharing a parallel with it has
 * ended, that is checked too. So a failure in a `continue` parallel counts at once, and whether a
 * failure counts never depends on which subprocess finished first.
 */
export class LiveJudgment {
  private readonly results: (TaskResult | undefined)[];
  private prefix = 0;
  /** The lowest task whose failure escalates (a system error), or Infinity: none yet. */
  private firstEscalating = Number.POSITIVE_INFINITY;
  private readonly parallels: Set<ParallelState>[];
  private readonly killedByOrdinary: ParallelState[][];
  /**
   * For a task, the lower tasks sharing a parallel with it (every task that can cancel it), and of
   * those the ones whose ordinary failure kills a parallel around it. Built only for a task that
   * asks (`awaiting`) or ends with a failure to judge: a success needs no judges, so a wide
   * parallel of successes never pays for lists that grow with its width.
   */
  private readonly judgeLists: (JudgeLists | undefined)[];
  /** For a task whose failure waits, how many of its judges / ordinary judges have not ended. */
  private readonly waiting = new Map<number, { all: number; ordinary: number }>();
  /** For a task that has not ended, the waiting failures it judges (ascending). */
  private readonly waitersOf = new Map<number, number[]>();
  /** Waiting failures whose verdict became due: judged at the end of `settled`, in ordinal order. */
  private readonly due = new Set<number>();
  private readonly standing: Standing[];

  constructor(private readonly tasks: readonly JudgedTask[]) {
    this.results = tasks.map(() => undefined);
    this.parallels = tasks.map((t) => parallelsOf(t.frames));
    this.killedByOrdinary = tasks.map((t) => analyzeFailure(t.frames, false).killed);
    this.judgeLists = tasks.map(() => undefined);
    this.standing = tasks.map(() => 'open');
  }

  /** The lower tasks (ids) that could still cancel task `index` by an ordinary failure: what its last failure waits for. */
  awaiting(index: number): string[] {
    return this.judgesOf(index)
      .ordinary.filter((j) => this.results[j] === undefined)
      .map((j) => (this.tasks[j] as JudgedTask).taskId);
  }

  settled(index: number, result: TaskResult): void {
    this.results[index] = result;
    const task = this.tasks[index] as JudgedTask;
    if (result.kind === 'failed' && !result.error.escalates) this.kill(task, result.error);
    if (result.kind === 'failed' && result.error.escalates) this.firstEscalating = Math.min(this.firstEscalating, index);
    while (this.prefix < this.tasks.length && this.results[this.prefix] !== undefined) this.prefix++;
    // A system error acts once every task below it has ended: the prefix then holds it.
    if (this.firstEscalating < this.prefix) {
      resolveStep(this.settledTasks(range(this.prefix))).outcomes.forEach((outcome, i) => {
        if (outcome.kind === 'failed') this.kill(this.tasks[i] as JudgedTask, outcome.error);
      });
    }
    this.release(index);
    if (result.kind === 'failed' && result.judge !== undefined) this.wait(index);
    else this.standing[index] = 'final';
    this.judgeReady();
  }

  /** Task `index` ended: the failures waiting on it have one judge less to wait for. */
  private release(index: number): void {
    const ordinaryJudge = this.killedByOrdinary[index] as ParallelState[];
    for (const k of this.waitersOf.get(index) ?? []) {
      const waiting = this.waiting.get(k);
      if (waiting === undefined) continue; // judged final already
      waiting.all--;
      if (ordinaryJudge.some((p) => (this.parallels[k] as Set<ParallelState>).has(p))) waiting.ordinary--;
      if (this.isDue(k)) this.due.add(k);
    }
    this.waitersOf.delete(index);
  }

  /** Task `index` ended with a failure to judge: it waits for its judges that have not ended. */
  private wait(index: number): void {
    const { all, ordinary } = this.judgesOf(index);
    const open = (j: number): boolean => this.results[j] === undefined;
    this.waiting.set(index, { all: all.filter(open).length, ordinary: ordinary.filter(open).length });
    for (const j of all.filter(open)) {
      const waiters = this.waitersOf.get(j);
      if (waiters === undefined) this.waitersOf.set(j, [index]);
      else waiters.push(index);
    }
    if (this.isDue(index)) this.due.add(index);
  }

  private isDue(k: number): boolean {
    const waiting = this.waiting.get(k);
    if (waiting === undefined) return false;
    return (this.standing[k] === 'open' && waiting.ordinary === 0) || (this.standing[k] === 'counted' && waiting.all === 0);
  }

  /**
   * Journals, in ordinal order, the judgments that became due. Judging one task changes no other
   * task's counters or standing, so judging the due ones in ascending ordinal makes the same calls
   * in the same order as walking every task would.
   */
  private judgeReady(): void {
    const due = [...this.due].sort((a, b) => a - b);
    this.due.clear();
    for (const k of due) this.judge(k);
  }

  private judge(k: number): void {
    const result = this.results[k] as TaskResult;
    const judge = result.kind === 'failed' ? result.judge : undefined;
    const waiting = this.waiting.get(k);
    if (judge === undefined || waiting === undefined) return;
    const judges = this.judgesOf(k);
    if (this.standing[k] === 'open' && waiting.ordinary === 0) {
      if (cancelledBySibling(this.settledTasks([...judges.ordinary, k]))) {
        judge.cancelled();
        this.finish(k);
        return;
      }
      judge.counts();
      this.standing[k] = 'counted';
    }
    if (this.standing[k] === 'counted' && waiting.all === 0) {
      if (cancelledBySibling(this.settledTasks([...judges.all, k]))) judge.cancelled();
      this.finish(k);
    }
  }

  private finish(k: number): void {
    this.standing[k] = 'final';
    this.waiting.delete(k);
    this.judgeLists[k] = undefined;
  }

  private judgesOf(k: number): JudgeLists {
    const known = this.judgeLists[k];
    if (known !== undefined) return known;
    const around = this.parallels[k] as Set<ParallelState>;
    const all = range(k).filter((j) => sharesParallel(this.parallels[j] as Set<ParallelState>, around));
    const ordinary = all.filter((j) => (this.killedByOrdinary[j] as ParallelState[]).some((p) => around.has(p)));
    const lists = { all, ordinary };
    this.judgeLists[k] = lists;
    return lists;
  }

  private settledTasks(indices: readonly number[]): SettledTask[] {
    return indices.map((i) => {
      const t = this.tasks[i] as JudgedTask;
      return { ordinal: t.ordinal, frames: t.frames, result: this.results[i] as TaskResult };
    });
  }

  private kill(failed: JudgedTask, error: HivewatchError): void {
    const killed: ParallelState[] = analyzeFailure(failed.frames, error.escalates).killed;
    for (const parallel of killed) {
      for (const other of this.tasks) {
        if (other.ordinal > failed.ordinal && isInside(other.frames, parallel)) {
          other.controller.abort(new CancelledError(SIBLING_FAILED));
        }
      }
    }
  }
}

interface JudgeLists {
  /** Every lower task sharing a parallel with the task, ascending. */
  all: number[];
  /** Of those, the ones whose ordinary (non-system) failure kills a parallel around it. */
  ordinary: number[];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function parallelsOf(frames: readonly Frame[]): Set<ParallelState> {
  return new Set(frames.flatMap((f) => (f.kind === 'parallel' ? [f.state] : [])));
}

function sharesParallel(a: ReadonlySet<ParallelState>, b: ReadonlySet<ParallelState>): boolean {
  for (const p of a) if (b.has(p)) return true;
  return false;
}
