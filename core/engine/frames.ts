import type { OnFail } from '../flow/ast.js';

/**
 * The static handlers around a task, innermost last. They answer, the moment a task fails and
 * before any thread resumes: will the flow catch this, and which fail-fast parallels does the
 * failure kill on its way out? The commit decision (rule 5), the `caught` flag of errorOccurred
 * and fail-fast sibling cancellation (rule 14) all come from this one walk.
 */
export type Frame =
  | { kind: 'try'; hasCatch: boolean }
  | { kind: 'parallel'; onFail: OnFail; branch: number; state: ParallelState };

export interface ParallelState {
  readonly id: string;
  /** Set when a branch failure escaped in fail-fast mode: the siblings must stop. */
  dead: boolean;
}

export interface FailureReach {
  caught: boolean;
  /** Fail-fast parallels the failure escapes from, innermost first. */
  killed: ParallelState[];
}

export function analyzeFailure(frames: readonly Frame[]): FailureReach {
  const killed: ParallelState[] = [];
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i] as Frame;
    if (frame.kind === 'try') {
      if (frame.hasCatch) return { caught: true, killed };
      continue;
    }
    if (frame.onFail !== 'fail-fast') return { caught: true, killed };
    killed.push(frame.state);
  }
  return { caught: false, killed };
}

/** True when the task runs inside a parallel that has died. */
export function insideDeadParallel(frames: readonly Frame[]): boolean {
  return frames.some((f) => f.kind === 'parallel' && f.state.dead);
}

export function isInside(frames: readonly Frame[], state: ParallelState): boolean {
  return frames.some((f) => f.kind === 'parallel' && f.state === state);
}
