import type { HivewatchEvent } from '../../core/service/api.js';

/**
 * Which live events tell the operator that something failed: a run that
 * failed, and a task that exhausted its retries while the run went on (its error caught). A
 * task that exhausts its retries and is not caught fails the run, and that `runFailed` is the
 * one alert; it says `runFailed.error`, the run's ending error (rule 16, its message carries the
 * root cause's for a retry limit), never a newer error of the run. Electron's notifier (electron/notify.ts) applies the same rule; a test there
 * holds the two together.
 */

const RETRIES_EXHAUSTED_CODE = 'POLICY_RETRY_LIMIT_EXCEEDED';

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
    return { runId: event.runId, flow, title: `Run failed: ${flow ?? event.runId}`, body: `${event.error.code}: ${event.error.message}`.slice(0, 200) };
  }
  if (event.type === 'errorOccurred' && event.caught && event.error.code === RETRIES_EXHAUSTED_CODE) {
    const flow = event.error.correlation.flow ?? null;
    return { runId: event.runId, flow, title: `Retries exhausted: ${flow ?? event.runId}`, body: event.error.message.slice(0, 200) };
  }
  return null;
}
