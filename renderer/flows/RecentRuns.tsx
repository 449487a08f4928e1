import { useMemo } from 'react';
import { useApi, useRunsSnapshot } from '../app/api-context.js';
import { hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime, RunDuration } from '../components/Time.js';
import { failureHeadline, failureSummary } from '../lib/failure-headline.js';
import { copyFullId, distinctTailLength, idTail } from '../lib/run-ids.js';
import { useAsync } from '../lib/use-async.js';

const RECENT = 5;

/**
 * The newest runs of one flow (the server's listRuns filtered by flow, over the whole history),
 * read again whenever a live run of this flow starts or changes status.
 */
export function RecentRuns({ flowId }: { flowId: string }) {
  const api = useApi();
  const { runs } = useRunsSnapshot();
  const liveKey = useMemo(() => {
    const parts: string[] = [];
    for (const run of runs.values()) if (run.flow === flowId) parts.push(`${run.id}:${run.status}`);
    return parts.sort().join(',');
  }, [runs, flowId]);
  const { state } = useAsync(() => api.listRuns({ flow: flowId, limit: RECENT, sort: '-started' }), [api, flowId, liveKey]);
  const items = state.data?.items ?? [];
  const tail = distinctTailLength(items.map((r) => r.id));

  return (
    <section className="recent-runs" aria-labelledby="recent-runs-title" data-testid="recent-runs">
      <h3 id="recent-runs-title">Recent runs</h3>
      {state.status === 'error' && <p className="error-text small-print">Could not load the runs of this flow: {state.error}</p>}
      {state.status !== 'error' && items.length === 0 && (
        <p className="muted small-print">{state.status === 'loading' ? 'Loading…' : 'No runs of this flow yet.'}</p>
      )}
      {items.length > 0 && (
        <ul>
          {items.map((run) => (
            <li key={run.id} data-run-id={run.id}>
              <a href={hrefToRun(run.id)} className="recent-run">
                <StatusBadge status={run.status} />
                <span className="mono muted" title={run.id} onCopy={(e) => copyFullId(e, run.id)}>
                  {idTail(run.id, tail)}
                </span>
                <RelativeTime ts={run.startedWall} />
                <span className="muted">
                  <RunDuration run={run} active={run.status === 'running' || run.status === 'cancelling' || run.status === 'queued'} compact />
                </span>
                {/* Why it ended: a failure in red; a cancel or an interruption quietly; nothing for a completed run. */}
                {run.endingError && run.status === 'failed' && (
                  <span className="error-text recent-error" title={failureSummary(run.endingError)} data-testid="recent-ending-code">
                    {failureHeadline(run.endingError).code}
                  </span>
                )}
                {run.endingError && (run.status === 'cancelled' || run.status === 'interrupted') && (
                  <span className="muted recent-error" title={run.endingError.message} data-testid="recent-ending-code">
                    {run.endingError.code}
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
      )}
      <a className="small-print" href={`#/runs?flow=${encodeURIComponent(flowId)}`}>
        All runs of this flow
      </a>
    </section>
  );
}
