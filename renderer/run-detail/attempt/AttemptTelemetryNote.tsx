import type { AttemptTelemetry } from '../../../core/service/api.js';
import { hrefToRun } from '../../app/router.js';

/**
 * The agent CLI's own telemetry sent from inside one attempt: the requests it
 * reported, in order, with the code of each that failed. They are part of this attempt and are
 * never counted as failures of their own (docs/otel.md "Presets feed the receiver").
 */
export function AttemptTelemetryNote({ telemetry: t }: { telemetry: AttemptTelemetry }) {
  const calls = t.calls ?? [];
  return (
    <div className="attempt-telemetry">
      <p>
        Inside this attempt, {t.origin} reported {t.apiCalls} API call{t.apiCalls === 1 ? '' : 's'} and {t.errors} error{t.errors === 1 ? '' : 's'}:{' '}
        <a href={hrefToRun(t.runId)}>session {t.sessionId.slice(0, 12)}</a>
      </p>
      {calls.length > 0 && (
        <ol className="attempt-telemetry-calls" aria-label={`API calls ${t.origin} reported inside this attempt`}>
          {calls.map((c) => (
            <li key={c.n}>
              {c.status === 'failed'
                ? `failed: ${c.code ?? 'unknown'}${c.message ? ` — ${c.message}` : ''}`
                : c.status === 'succeeded'
                  ? 'succeeded'
                  : 'no answer yet'}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
