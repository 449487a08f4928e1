import type { OnFail } from '../../flow/syntax/ast.js';
import type { FailureChain } from './failure-chain.js';

/**
 * The static handlers around a task or statement, innermost last. They answer, the moment a
 * failure happens and before any thread resumes: does the flow catch it, does a `finally` stand
 * in its way (it will propagate once the finally ran), or does it reach the top of the program,
 * and which fail-fast parallels does it kill on its way out? The commit decision (rule 5), the
 * `caught` flag of errorOccurred and fail-fast sibling cancellation (rule 14) all come from this
 * one walk.
 */
export type Frame =
  | { kind: 'try'; hasCatch: boolean; hasFinally: boolean }
  | { kind: 'parallel'; onFail: OnFail; branch: number; state: ParallelState }
  /**
   * The `finally` body a branch runs because a fail-fast parallel around it died (F5). A failure
   * inside stops here: it joins the killing failure's chain at the parallel's join, and kills
   * nothing outside the cleanup. Parallels outside it are dead already; that does not stop it.
   */
  | { kind: 'cleanup' }
  /**
   * A `finally` body that runs while a failure is pending. It stops nothing; a failure that
   * leaves it replaces the pending one and keeps it as its cause (rule 16, `finally-failed`).
   */
  | { kind: 'finally'; pending: FailureChain };

export interface ParallelState {
  readonly id: string;
  /** Set when a failure left one of its branches in fail-fast mode: every branch stops. */
  dead: boolean;
}

type FailureReachKind =
  /** A `catch`, or a continue / ignore parallel, absorbs it. */
  | 'caught'
  /** A `finally` runs first; the failure goes on propagating after it. */
  | 'deferred'
  /** Nothing stands between the failure and the top of the program: the step aborts. */
  | 'unhandled';

export interface FailureReach {
  kind: FailureReachKind;
  /** Fail-fast parallels the failure leaves on its way to what stops it, innermost first. */
  killed: ParallelState[];
}

/**
 * `escalates`: a system error (hivemind-error-model.md §9) — no catch catches it and no
 * continue / ignore parallel absorbs it; only `finally` blocks still run on its way up.
 */
export function analyzeFailure(frames: readonly Frame[], escalates: boolean): FailureReach {
  const killed: ParallelState[] = [];
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i] as Frame;
    if (frame.kind === 'cleanup') return { kind: 'deferred', killed };
    if (frame.kind === 'finally') continue;
    if (frame.kind === 'try') {
      if (frame.hasCatch && !escalates) return { kind: 'caught', killed };
      if (frame.hasFinally) return { kind: 'deferred', killed };
      continue;
    }
    if (frame.onFail !== 'fail-fast' && !escalates) return { kind: 'caught', killed };
    killed.push(frame.state);
  }
  return { kind: 'unhandled', killed };
}

/**
 * True when the frames lie inside a parallel that has died, counting only the parallels inside
 * the innermost cleanup: a cancelled branch's `finally` runs, and what it does counts (F5).
 */
export function insideDeadParallel(frames: readonly Frame[]): boolean {
  const cleanup = frames.map((f) => f.kind).lastIndexOf('cleanup');
  return frames.some((f, i) => i > cleanup && f.kind === 'parallel' && f.state.dead);
}

/** Whether a thread with these frames, cancelled because `parallel` died, has a `finally` to run inside it (F5). */
export function unwindsFinally(frames: readonly Frame[], parallel: ParallelState): boolean {
  const at = frames.findIndex((f) => f.kind === 'parallel' && f.state === parallel);
  return at !== -1 && frames.slice(at + 1).some((f) => f.kind === 'try' && f.hasFinally);
}

export function isInside(frames: readonly Frame[], state: ParallelState): boolean {
  return frames.some((f) => f.kind === 'parallel' && f.state === state);
}

/**
 * A failure that reaches the top from inside `finally` bodies with failures pending: what the
 * threads would have made of it, had they run on (rule 16): each pending failure, innermost
 * first, becomes its cause.
 */
export function withPendingFinallies(chain: FailureChain, frames: readonly Frame[]): FailureChain {
  let linked = chain;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i] as Frame;
    if (frame.kind === 'finally') linked = linked.causedBy('finally-failed', frame.pending);
  }
  return linked;
}
