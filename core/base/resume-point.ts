import type { ErrorEnvelope } from './errors/envelope.js';
import type { HivewatchEvent } from './events.js';

/*
 * What a journal says about where a run can pick up again. The store derives it from a run's
 * events (recovery, `resume`) and the engine replays to it (core/engine/step/resume.ts keeps the
 * rules: the engine semantics and why a resume is refused), so it lives below both.
 */

/**
 * How a task of a committed step ended: what replay feeds back instead of running it again.
 * `cancelled`: a fail-fast sibling's failure stopped it.
 */
export type TaskOutcome = { ok: true; output: string } | { ok: false; error: ErrorEnvelope; cancelled?: boolean };

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
   * Agent work: the repository the run worked in and its branch's head at the
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
