import type { HivewatchEvent } from '../../core/service/api.js';
import { failureLine } from '../lib/ending-story.js';
import { endingOfChain } from '../live/ending-error.js';

/**
 * Which live events tell the operator that something failed (issue #12 part 3): a run that
 * failed, and a task that exhausted its retries while the run went on (its error caught). A
 * task that exhausts its retries and is not caught fails the run, and that `runFailed` is the
 * one alert; it says the run's ending error (rule 16) with its cause chain ("retry limit after 4
 * attempts → RUNTIME_CRASHED in task 1:0 attempt 4: …"), never a newer error of the run. Electron's notifier (electron/notify.ts) applies the same rule; a test there
 * holds the two together.
 */

export const RETRIES_EXHAUSTED_CODE = 'POLICY_RETRY_LIMIT_EXCEEDED';

export interface FailureAlert {
  runId: string;
  /** The run's flow key (what a mute names); null when the event does not carry it. */
  flow: string | null;
  title: string;
  body: string;
}

export function failureAlertOf(event: HivewatchEvent): FailureAlert | null {
  if (event.type === 'runFailed') {
    const flow = event.error.correlation.flow ?? null;
    const ending = event.chain && event.chain.length > 0 ? endingOfChain(event.chain) : null;
    const body = ending ? failureLine(ending) : `${event.error.code}: ${event.error.message}`;
    return { runId: event.runId, flow, title: `Run failed: ${flow ?? event.runId}`, body: body.slice(0, 200) };
  }
  if (event.type === 'errorOccurred' && event.caught && event.error.code === RETRIES_EXHAUSTED_CODE) {
    const flow = event.error.correlation.flow ?? null;
    return { runId: event.runId, flow, title: `Retries exhausted: ${flow ?? event.runId}`, body: event.error.message.slice(0, 200) };
  }
  return null;
}
