import type { HivewatchEvent, RunSummary } from '../../core/service/api.js';

/**
 * A live run's telemetry silence (docs/otel.md "Telemetry health") as the service reports it, kept
 * until something ends it: any event of an agent session (its telemetry arrived), the end of the
 * silent attempt, or the run's end. A silence that starts while the window watches appears with
 * the next fetch of the row.
 */

const ENDS_RUN: ReadonlySet<HivewatchEvent['type']> = new Set(['runCompleted', 'runFailed', 'runCancelled', 'runInterrupted', 'externalRunIdle']);
const ENDS_ATTEMPT: ReadonlySet<HivewatchEvent['type']> = new Set(['attemptSucceeded', 'attemptFailed']);

export function withSilenceHeard(s: RunSummary, event: HivewatchEvent): RunSummary {
  const silence = s.telemetrySilence;
  if (!silence) return s;
  const heard =
    ENDS_RUN.has(event.type) ||
    s.source !== undefined ||
    (ENDS_ATTEMPT.has(event.type) && 'taskId' in event && event.taskId === silence.taskId && 'attempt' in event && event.attempt === silence.attempt);
  if (!heard) return s;
  const { telemetrySilence: _gone, ...rest } = s;
  return rest;
}
