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
  /** For each task, the lower tasks sharing a parallel with it: every task that can cancel it. */
  private readonly judges: number[][];
  /** For each task, the judges whose ordinary (non-system) failure kills a parallel around it. */
  private readonly ordinaryJudges: number[][];
  /** For each task, how many of its judges / ordinary judges have not ended. */
  private readonly waiting: number[];
  private readonly waitingOrdinary: number[];
  /** For each task, the higher tasks it judges / judges ordinarily. */
  private readonly judgeOf: number[][];
  private readonly ordinaryJudgeOf: number[][];
  private readonly standing: Standing[];

  constructor(private readonly tasks: readonly JudgedTask[]) {
    this.results = tasks.map(() => undefined);
    const parallels = tasks.map((t) => parallelsOf(t.frames));
    const killedByOrdinary = tasks.map((t) => analyzeFailure(t.frames, false).killed);
    this.judges = tasks.map((_, k) => range(k).filter((j) => sharesParallel(parallels[j] as Set<ParallelState>, parallels[k] as Set<ParallelState>)));
    this.ordinaryJudges = this.judges.map((judges, k) =>
      judges.filter((j) => (killedByOrdinary[j] as ParallelState[]).some((p) => (parallels[k] as Set<ParallelState>).has(p))),
    );
    this.waiting = this.judges.map((judges) => judges.length);
    this.waitingOrdinary = this.ordinaryJudges.map((judges) => judges.length);
    this.judgeOf = inverse(this.judges, tasks.length);
    this.ordinaryJudgeOf = inverse(this.ordinaryJudges, tasks.length);
    this.standing = tasks.map(() => 'open');
  }

  /** The lower tasks (ids) that could still cancel task `index` by an ordinary failure: what its last failure waits for. */
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
    this.judgeReady();
  }

  /** Journals, in ordinal order, the judgments that became due. */
  private judgeReady(): void {
    this.tasks.forEach((_, k) => {
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
    });
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

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** For lists "k → the tasks j it depends on", the lists "j → the tasks k that depend on it". */
function inverse(lists: readonly number[][], size: number): number[][] {
  const out: number[][] = Array.from({ length: size }, () => []);
  lists.forEach((list, k) => list.forEach((j) => out[j]?.push(k)));
  return out;
}

function parallelsOf(frames: readonly Frame[]): Set<ParallelState> {
  return new Set(frames.flatMap((f) => (f.kind === 'parallel' ? [f.state] : [])));
}

function sharesParallel(a: ReadonlySet<ParallelState>, b: ReadonlySet<ParallelState>): boolean {
  for (const p of a) if (b.has(p)) return true;
  return false;
}
