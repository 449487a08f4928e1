import { flowDigest } from '../../flow/plan/digest.js';
import type { ResumePoint } from '../../base/resume-point.js';

/**
 * The rules this engine runs flows by. A journal records the version it was written under
 * (`runStarted.semantics`; journals from before the field are version 1). Resuming replays a
 * journal through the interpreter, which is only sound under the rules that wrote it.
 *
 * 2: sequential assignments per thread, deterministic fail-fast, finally on uncaught
 *    failures, escalating system errors.
 * 3: the failure model: a branch that a fail-fast parallel cancels runs its
 *    `finally` blocks before the parallel raises (F5), so threads land elsewhere than under 2.
 */
export const ENGINE_SEMANTICS = 3;

/**
 * Why a run cannot be resumed from `source` (the flow's text now), or null. Replay answers the
 * program's sessions with the journal's outcomes by ordinal, so it is only sound for the rules
 * and the exact program that wrote them. Exact text: the CLI and the API show it.
 */
export function resumeProblem(point: ResumePoint, source: string): string | null {
  const retry = `retry it instead (hivewatch retry ${point.fromRunId})`;
  if (point.semantics !== ENGINE_SEMANTICS) {
    return (
      `run ${point.fromRunId} was journaled under engine semantics ${point.semantics} and this Hivewatch runs semantics ` +
      `${ENGINE_SEMANTICS}; replaying it under other rules could land somewhere else, so it cannot be resumed: ` +
      `${retry}, which runs the flow afresh`
    );
  }
  const now = flowDigest(source);
  if (point.flowDigest !== null && point.flowDigest !== now) {
    return (
      `the flow changed since run ${point.fromRunId} ran it (${shortDigest(point.flowDigest)} then, ${shortDigest(now)} now); ` +
      `resuming would answer the changed program with the old run's recorded outcomes, so it cannot be resumed: ` +
      `${retry}, which runs the file as it is now`
    );
  }
  return null;
}

function shortDigest(digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12);
}

export function taskIdOf(step: number, ordinal: number): string {
  return `${step}:${ordinal}`;
}
