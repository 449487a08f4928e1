import type { ErrorEnvelope } from '../errors/envelope.js';
import type { HivewatchEvent } from './events.js';

/** How a task of a committed step ended: what replay feeds back instead of running it again. */
export type TaskOutcome = { ok: true; output: string } | { ok: false; error: ErrorEnvelope };

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
}

/** Pure: the resume point of a run from its own journal (events in seq order). */
export function resumePointFromEvents(runId: string, events: readonly HivewatchEvent[]): ResumePoint {
  let throughStep = 0;
  for (const event of events) {
    if (event.type === 'checkpointSaved') throughStep = Math.max(throughStep, event.step);
  }
  const outcomes = new Map<string, TaskOutcome>();
  for (const event of events) {
    if (event.type === 'taskSucceeded' && event.step <= throughStep) {
      outcomes.set(event.taskId, { ok: true, output: event.output });
    } else if (event.type === 'taskFailed' && event.step <= throughStep && !event.cancelled) {
      outcomes.set(event.taskId, { ok: false, error: event.error });
    }
  }
  return { fromRunId: runId, throughStep, outcomes };
}

export function taskIdOf(step: number, ordinal: number): string {
  return `${step}:${ordinal}`;
}
