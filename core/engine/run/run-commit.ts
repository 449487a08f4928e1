import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { HivewatchEventBody } from '../../base/events.js';
import type { SettledTask } from '../step/resolve.js';
import type { RunChannels } from './run-channels.js';
import type { StepMerge } from './run-work.js';
import type { PendingTask } from '../step/step.js';
import type { TaskResult } from '../task/task-executor.js';
import type { RunWork } from '../task/task-work.js';

/**
 * The step's commit, as functions of what the step produced (no clock, no I/O of their own), so
 * a replayed step commits exactly what the live one did.
 *
 * Determinism: tasks are judged in frontier order, which is ordinal order, never in the order
 * they finished (rules 6 and 14); the channels apply the step's writes in the order the threads
 * made them and reject them all or none (rule 11); the merged branch head is journaled before the
 * checkpoint, so a resume finds the step's work in the branch it resumes from (W5).
 */

/** The frontier's tasks with their results, in ordinal order: what `resolveStep` judges. */
export function settledInOrder(frontier: readonly PendingTask[], results: readonly (TaskResult | undefined)[]): SettledTask[] {
  return frontier.map((task, i) => {
    const result = results[i];
    if (result === undefined) throw new Error(`session ${task.call.spec.ordinal} of the step has no result`);
    return { ordinal: task.call.spec.ordinal, frames: task.call.frames, result };
  });
}

export interface StepCommit {
  step: number;
  channels: RunChannels;
  work: RunWork | null;
  /** Journals the commit's events; null when replaying (the journal has them already). */
  emit: ((body: HivewatchEventBody) => void) | null;
  /** The step's task commits merged into the run's branch; null when there were none (or replaying). */
  merge: StepMerge | null;
}

/**
 * Applies the writes made since the last commit, then records the merged branch head before the
 * checkpoint. Returns the error that rejects them all (nothing applied), or null.
 */
export function commitStep({ step, channels, work, emit, merge }: StepCommit): HivewatchError | null {
  return channels.commit(step, emit, () => {
    if (!merge?.ok || work === null) return;
    emit?.({ type: 'branchMerged', step, branch: work.branch, head: merge.head, merged: merge.merged });
    work.advance(merge.head);
  });
}
