import type { AlertDeliveryView } from '../../core/service/api.js';
import { EmptyState } from '../components/states.js';
import { formatAbsolute } from '../lib/format.js';

/** What each status means to an operator reading the log. */
const STATUS_TEXT: Record<AlertDeliveryView['status'], string> = {
  pending: 'pending',
  sent: 'sent',
  failed: 'failed, will retry',
  'given-up': 'given up',
  throttled: 'throttled (counted)',
  desktop: 'desktop only',
};

const STATUS_TONE: Record<AlertDeliveryView['status'], string> = {
  pending: 'tone-run',
  sent: 'tone-ok',
  failed: 'tone-warn',
  'given-up': 'tone-fail',
  throttled: 'tone-idle',
  desktop: 'tone-ok',
};

/** The newest deliveries: kind, status, the receiver's HTTP code, attempts, and the next retry of a failed one. */
export function DeliveryLog({ deliveries, onRefresh }: { deliveries: AlertDeliveryView[]; onRefresh: () => void }) {
  return (
    <>
      <button type="button" className="small" onClick={onRefresh}>
        Refresh
      </button>
      {deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">Alerts appear here as they are sent, retried or given up; “Send test” adds one.</EmptyState>
      ) : (
        <div className="alerts-table-wrap">
          <table className="alerts-table" data-testid="alert-deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Rule</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP</th>
                <th scope="col">Attempts</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{formatAbsolute(d.createdAt)}</td>
                  <td className="mono">{d.ruleId}</td>
                  <td>{d.kind === 'resolve' ? 'follow-up' : d.kind}</td>
                  <td>
                    <span className={`alert-status ${STATUS_TONE[d.status]}`}>{STATUS_TEXT[d.status]}</span>
                    {d.nextAttemptAt !== null && d.status === 'failed' && <span className="muted"> · next {formatAbsolute(d.nextAttemptAt)}</span>}
                  </td>
                  <td className="mono">{d.responseCode ?? '—'}</td>
                  <td>{d.attempts}</td>
                  <td className="alerts-message">
                    {d.title}
                    {d.lastError && <span className="muted"> — {d.lastError}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
