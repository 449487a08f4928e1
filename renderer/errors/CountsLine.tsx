import type { ErrorCount, HANDLED_KEYS } from '../../core/service/api.js';
import { formatCount, plural } from '../lib/format.js';

// The keys of errorCounts({ by: 'handled' }) (the renderer imports only types from the API).
const HANDLED: (typeof HANDLED_KEYS)['handled'] = 'handled';
const UNHANDLED: (typeof HANDLED_KEYS)['unhandled'] = 'unhandled';
const PENDING: (typeof HANDLED_KEYS)['pending'] = 'pending';

/** What the Errors header counts (rule 17): failures and occurrences, each under its own name. */
export interface HeaderCounts {
  /** Runs that ended failed in the window, one failure each (failureCounts.total). */
  failures: number;
  /** Every errorOccurred in the window, whatever became of it. */
  occurrences: number;
  handled: number;
  unhandled: number;
  pending: number;
}

export function headerCounts(byHandled: readonly ErrorCount[], failures: number): HeaderCounts {
  const of = (key: string): number => byHandled.find((c) => c.key === key)?.count ?? 0;
  return { failures, occurrences: byHandled.reduce((sum, c) => sum + c.count, 0), handled: of(HANDLED), unhandled: of(UNHANDLED), pending: of(PENDING) };
}

/** "3 failures · 11 occurrences (8 handled, 3 unhandled, 1 pending)": pending only while some are. */
export function CountsLine({ counts }: { counts: HeaderCounts }) {
  return (
    <>
      <span
        className={counts.failures > 0 ? 'failures-count error-text' : 'failures-count'}
        data-testid="errors-failures"
        title="runs that ended failed in this window (by their end time): one failure each, however many errors its cause chain links"
      >
        {plural(counts.failures, 'failure')}
      </span>
      {' · '}
      <span data-testid="errors-occurrences" title="every error journaled in this window, retried, caught or not">
        {plural(counts.occurrences, 'occurrence')}
      </span>{' '}
      <span className="dispositions">
        (
        <span className="handled-count" data-testid="errors-handled" title="handled: retried, caught, or not what ended a run">
          {formatCount(counts.handled)} handled
        </span>
        {', '}
        <span className="unhandled-count" data-testid="errors-unhandled" title="unhandled: links of a failed run’s ending-error chain">
          {formatCount(counts.unhandled)} unhandled
        </span>
        {counts.pending > 0 && (
          <>
            {', '}
            <span className="pending-count" data-testid="errors-pending" title="pending: their runs are still live; settled when each run ends">
              {formatCount(counts.pending)} pending
            </span>
          </>
        )}
        )
      </span>
    </>
  );
}
