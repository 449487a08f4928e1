import type { OnFail } from '../flow/ast.js';

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
  | { kind: 'parallel'; onFail: OnFail; branch: number; state: ParallelState };

export interface ParallelState {
  readonly id: string;
  /** Set when a failure left one of its branches in fail-fast mode: every branch stops. */
  dead: boolean;
}

export const FailureReachKind = {
  /** A `catch`, or a continue / ignore parallel, absorbs it. */
  caught: 'caught',
  /** A `finally` runs first; the failure goes on propagating after it. */
  deferred: 'deferred',
  /** Nothing stands between the failure and the top of the program: the step aborts. */
  unhandled: 'unhandled',
} as const;
export type FailureReachKind = (typeof FailureReachKind)[keyof typeof FailureReachKind];

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

/** True when the frames lie inside a parallel that has died. */
export function insideDeadParallel(frames: readonly Frame[]): boolean {
  return frames.some((f) => f.kind === 'parallel' && f.state.dead);
}

export function isInside(frames: readonly Frame[], state: ParallelState): boolean {
  return frames.some((f) => f.kind === 'parallel' && f.state === state);
}

/** The dead parallels the frames lie inside. */
export function deadParallelsOf(frames: readonly Frame[]): ParallelState[] {
  return frames.flatMap((f) => (f.kind === 'parallel' && f.state.dead ? [f.state] : []));
}
