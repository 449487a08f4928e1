import type { ErrorEnvelope } from '../errors/envelope.js';
import { flowDigest } from '../flow/digest.js';
import type { HivewatchEvent } from './events.js';

/**
 * The rules this engine runs flows by. A journal records the version it was written under
 * (`runStarted.semantics`; journals from before the field are version 1). Resuming replays a
 * journal through the interpreter, which is only sound under the rules that wrote it.
 *
 * 2: sequential assignments per thread, deterministic fail-fast (issue #8), finally on uncaught
 *    failures, escalating system errors.
 * 3: the failure model (issue #19): a branch that a fail-fast parallel cancels runs its
 *    `finally` blocks before the parallel raises (F5), so threads land elsewhere than under 2.
 */
export const ENGINE_SEMANTICS = 3;

/**
 * How a task of a committed step ended: what replay feeds back instead of running it again.
 * `cancelled`: a fail-fast sibling's failure stopped it.
 */
export type TaskOutcome =
  | { ok: true; output: string }
  | { ok: false; error: ErrorEnvelope; cancelled?: boolean };

/**
 * Where a resumed run picks up: the interpreter is deterministic given task outcomes, so
 * re-running the program while answering every task of steps 1..throughStep from `outcomes`
 * lands exactly on the checkpoint (same channels, same thread positions) without executing
 * anything; the first step after it runs for real.
 */
export interface ResumePoint {
  fromRunId: string;
  throughStep: number;
  /** Keyed by taskId (`<step>:<ordinal>`). */
  outcomes: ReadonlyMap<string, TaskOutcome>;
  /** The engine semantics the journal was written under. */
  semantics: number;
  /** The digest of the flow text the run ran (`runStarted.flowDigest`); null in journals from before it. */
  flowDigest: string | null;
  /**
   * Agent work (issue #10): the repository the run worked in and its branch's head at the
   * checkpoint, where a resumed run's branch starts; null without a workspace.
   */
  repo: { root: string; head: string } | null;
}

/** Pure: the resume point of a run from its own journal (events in seq order). */
export function resumePointFromEvents(runId: string, events: readonly HivewatchEvent[]): ResumePoint {
  let throughStep = 0;
  let semantics = 1;
  let digest: string | null = null;
  let repo: { root: string; head: string } | null = null;
  for (const event of events) {
    if (event.type === 'checkpointSaved') throughStep = Math.max(throughStep, event.step);
    if (event.type === 'workspaceReady') repo = { root: event.repo, head: event.base };
    if (event.type === 'runStarted') {
      semantics = event.semantics ?? 1;
      digest = event.flowDigest ?? null;
    }
  }
  const outcomes = new Map<string, TaskOutcome>();
  for (const event of events) {
    if (event.type === 'taskSucceeded' && event.step <= throughStep) {
      outcomes.set(event.taskId, { ok: true, output: event.output });
    } else if (event.type === 'taskFailed' && event.step <= throughStep) {
      outcomes.set(event.taskId, event.cancelled ? { ok: false, error: event.error, cancelled: true } : { ok: false, error: event.error });
    }
  }
  // Merges are commit-scoped, so the last one journaled is the head at the last checkpoint.
  for (const event of events) if (event.type === 'branchMerged' && event.step <= throughStep && repo) repo = { ...repo, head: event.head };
  return { fromRunId: runId, throughStep, outcomes, semantics, flowDigest: digest, repo };
}

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
