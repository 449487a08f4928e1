import type { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { AttemptResult } from '../../runtimes/runtime.js';
import { JOURNAL_OUTPUT_CHARS, keepHead, redactSecrets } from './attempt-trace.js';
import type { EventBodyOf, TaskEnv, TaskRef } from './task-env.js';

/**
 * Answers that come after the task was stopped under them: a result of an older epoch (the run was
 * cancelled, rule 12) or of an attempt a fail-fast sibling cancelled (F6). Neither changes what the
 * task did; what it carried stays on the record, bounded like an attempt trace.
 */

/** What an answer carried, bounded like an attempt trace (attempt-trace.ts), for the record only. */
function carried(env: TaskEnv, attempt: number, answer: AttemptResult): { output?: string; error?: HivewatchError } | null {
  if (answer.kind === 'succeeded') return { output: keepHead(redactSecrets(answer.output, env.agent), JOURNAL_OUTPUT_CHARS) };
  if (answer.kind === 'failed') {
    const correlation = { project: env.project, flow: env.flow, run: env.runId, step: env.step, task: env.taskId, attempt };
    return { error: answer.error.withCorrelation(correlation, env.clock.now()) };
  }
  return null;
}

/** Rule 12: a result of an older epoch changes nothing; what it carried stays on the record. */
export function journalStale(env: TaskEnv, ref: TaskRef, attempt: number, epoch: number, answer: AttemptResult): void {
  const what = carried(env, attempt, answer);
  if (what === null || answer.kind === 'cancelled') return;
  env.emit({
    type: 'receiptIgnoredStale',
    ...ref,
    attempt,
    epoch,
    currentEpoch: env.epoch(),
    outcome: answer.kind,
    ...(what.output !== undefined ? { output: what.output } : {}),
    ...(what.error !== undefined ? { error: what.error.toEnvelope() } : {}),
  });
}

export function journalCancelledBySibling(env: TaskEnv, ref: TaskRef, attempt: number, durationMs: number, answer: AttemptResult): void {
  const what = carried(env, attempt, answer);
  const reported: EventBodyOf<'attemptCancelled'>['reported'] =
    what === null
      ? undefined
      : what.error
        ? { outcome: 'failed', error: what.error.toEnvelope() }
        : { outcome: 'succeeded', ...(what.output !== undefined ? { output: what.output } : {}) };
  env.emit({ type: 'attemptCancelled', ...ref, attempt, durationMs, by: 'sibling', ...(reported ? { reported } : {}) });
}
