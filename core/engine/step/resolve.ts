import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { FailureChain } from '../interpret/failure-chain.js';
import { analyzeFailure, isInside, unwindsFinally, withPendingFinallies, type FailureReach, type Frame, type ParallelState } from '../interpret/frames.js';
import type { TaskResult } from '../task/task-executor.js';

/**
 * How a step's settled tasks are judged, as a pure function of their results in ordinal order,
 * so that the outcome never depends on the order they finished in (rules 6 and 14):
 *
 * - A failure that leaves a fail-fast parallel kills it. Every task of that parallel with a
 *   higher ordinal counts as cancelled, whatever it did: if it had already finished, what it did
 *   is kept on the record (`settled`) but changes nothing. Tasks with lower ordinals count as
 *   they ended; their own failures kill in turn.
 * - The step aborts when a failure reaches the top of the program (no catch, continue / ignore
 *   parallel or finally on its way); the run fails with the earliest such failure. Unless a
 *   branch the failure cancels has a `finally` to run (F5): then, as behind a finally of its
 *   own, the step commits, the cleanups run in later steps and the failure goes on after them.
 * - Threads inside a dead parallel are not resumed, except along the path of a failure that
 *   killed it, which travels up to the parallel's join.
 */

export interface SettledTask {
  ordinal: number;
  frames: readonly Frame[];
  result: TaskResult;
}

/** What a task had finished with before it was cancelled: kept on the record, never acted on. */
export type SettledBeforeCancel = { outcome: 'succeeded' } | { outcome: 'failed'; error: HivewatchError };

export type ResolvedOutcome =
  | { kind: 'succeeded'; output: string }
  | { kind: 'failed'; error: HivewatchError; chain: FailureChain; reach: FailureReach }
  | { kind: 'cancelled'; settled: SettledBeforeCancel | null };

export interface StepResolution {
  outcomes: ResolvedOutcome[];
  /** Parallels killed by this step's failures. */
  killed: Set<ParallelState>;
  /** The earliest failure that reaches the top: the step aborts with it (rule 5). */
  unhandled: { ordinal: number; chain: FailureChain } | null;
}

export function settledBeforeCancel(result: TaskResult): SettledBeforeCancel | null {
  if (result.kind === 'succeeded') return { outcome: 'succeeded' };
  if (result.kind === 'failed') return { outcome: 'failed', error: result.error };
  return null;
}

function insideAny(frames: readonly Frame[], parallels: ReadonlySet<ParallelState>): boolean {
  return frames.some((f) => f.kind === 'parallel' && parallels.has(f.state));
}

/** `tasks` in ascending ordinal. */
export function resolveStep(tasks: readonly SettledTask[]): StepResolution {
  const killed = new Set<ParallelState>();
  let unhandled: StepResolution['unhandled'] = null;
  const outcomes = tasks.map((task): ResolvedOutcome => {
    if (insideAny(task.frames, killed)) return { kind: 'cancelled', settled: settledBeforeCancel(task.result) };
    const { result } = task;
    if (result.kind === 'succeeded') return { kind: 'succeeded', output: result.output };
    if (result.kind === 'cancelled') return { kind: 'cancelled', settled: null };
    const reach = analyzeFailure(task.frames, result.error.escalates);
    for (const parallel of reach.killed) killed.add(parallel);
    if (reach.kind === 'unhandled' && unhandled === null && !cancelsIntoCleanup(task, reach, tasks)) {
      unhandled = { ordinal: task.ordinal, chain: withPendingFinallies(result.chain, task.frames) };
    }
    return { kind: 'failed', error: result.error, chain: result.chain, reach };
  });
  return { outcomes, killed, unhandled };
}

/** Whether a branch that this failure cancels has a `finally` to run first (F5). */
function cancelsIntoCleanup(failed: SettledTask, reach: FailureReach, tasks: readonly SettledTask[]): boolean {
  return tasks.some((other) => other !== failed && reach.killed.some((parallel) => isInside(other.frames, parallel) && unwindsFinally(other.frames, parallel)));
}

/**
 * Whether the last of `tasks` counts as cancelled by a lower sibling. `tasks`, in ascending
 * ordinal, must hold every lower task of the step that shares a parallel with it: only those
 * can cancel it, and only those can cancel them (a parallel that kills one of them either holds
 * the last task too, or lies inside one that does).
 */
export function cancelledBySibling(tasks: readonly SettledTask[]): boolean {
  return resolveStep(tasks).outcomes.at(-1)?.kind === 'cancelled';
}

/** Whether a thread learns of its task's outcome (else it stops, as cancelled). */
export function resumesThread(task: SettledTask, outcome: ResolvedOutcome, killed: ReadonlySet<ParallelState>): boolean {
  if (outcome.kind === 'cancelled') return false;
  const deadAround = task.frames.flatMap((f) => (f.kind === 'parallel' && killed.has(f.state) ? [f.state] : []));
  if (deadAround.length === 0) return true;
  // A failure resumes its thread only to carry it up through every parallel it killed.
  return outcome.kind === 'failed' && deadAround.every((p) => outcome.reach.killed.includes(p));
}
