import { useState } from 'react';
import type { RunSummary } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { formatHash, hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime } from '../components/Time.js';
import { ErrorState, Loading } from '../components/states.js';
import { runCostLine } from '../lib/cost-format.js';
import { copyFullId, distinctTailLength, idTail } from '../lib/run-ids.js';
import { errorText, useAsync, type AsyncResult } from '../lib/use-async.js';
import { BulkStatus } from '../runs/BulkStatus.js';
import { useBulkAction } from '../runs/use-bulk-action.js';
import { retryOffer, type RetryOffer } from './retry-offer.js';
import { readRetryCount, readRunsAffected, RETRYABLE, RUNS_PAGE, sectionKeys } from './issue-reads.js';
import { takeRead } from '../lib/kept-reads.js';
import { formatCount } from '../lib/format.js';

interface Loaded {
  runs: RunSummary[];
  next: string | null;
}

/**
 * The runs an issue hit, newest first (status, flow, when, cost, a link each), a page at a time,
 * and "Retry these N runs": the failed, cancelled and interrupted ones among them, through the
 * Runs screen's bulk retry (a dry run to confirm, then the runs by id; docs/triage.md "Bulk
 * actions"). The filter names the issue, so it never widens to every failed run. The offer's count
 * reads each of the issue's runs, so it is asked once the runs are drawn, on its own, and the
 * offer comes when it does (issue-reads.ts).
 */
export function RunsAffected({ issueId, total, refresh }: { issueId: string; total: number; refresh: number }) {
  const api = useApi();
  const bulk = useBulkAction();
  const [more, setMore] = useState<{ runs: RunSummary[]; next: string | null } | null>(null);
  const [moreError, setMoreError] = useState<string | null>(null);
  const [retried, setRetried] = useState(0);
  const { state, reload } = useAsync(async (): Promise<Loaded> => {
    const page = await takeRead(sectionKeys.runs(issueId), () => readRunsAffected(api, issueId));
    setMore(null);
    return { runs: page.items, next: page.nextCursor };
  }, [api, issueId, refresh, retried]);
  const data = state.data;
  const drawn = data !== undefined;
  const offer = useAsync(
    async (): Promise<RetryOffer | null> => (drawn ? retryOffer(await readRetryCount(api, issueId)) : null),
    [api, issueId, refresh, retried, drawn],
  );
  const runs = [...(data?.runs ?? []), ...(more?.runs ?? [])];
  const tail = distinctTailLength(runs.map((r) => r.id));
  const next = more ? more.next : (data?.next ?? null);

  const loadMore = (): void => {
    if (next === null) return;
    setMoreError(null);
    api.listRuns({ issue: issueId, limit: RUNS_PAGE, cursor: next }).then(
      (page) => setMore((m) => ({ runs: [...(m?.runs ?? []), ...page.items], next: page.nextCursor })),
      (error: unknown) => setMoreError(errorText(error)),
    );
  };
  const retry = (): void => {
    void bulk.run('retry', { kind: 'filter', filter: { issue: issueId, status: RETRYABLE }, every: null }).then((done) => done && setRetried((n) => n + 1));
  };

  return (
    <section className="panel issue-runs" aria-labelledby="issue-runs-title">
      <h2 id="issue-runs-title">
        Runs affected <span className="muted">({formatCount(total)})</span>
      </h2>
      <div className="toolbar">
        <RetryOfferView offer={offer} onRetry={retry} />
        <a href={formatHash(['runs'], { issue: issueId })}>Open them in Runs →</a>
      </div>
      <BulkStatus state={bulk.state} onDismiss={bulk.dismiss} />
      {state.status === 'loading' && !data ? (
        <Loading what="the runs" />
      ) : state.status === 'error' && !data ? (
        <ErrorState title="Could not load the runs" error={state.error} onRetry={reload} />
      ) : (
        <table className="compact-table issue-runs-table">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Flow</th>
              <th scope="col">Started</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} data-run-id={run.id}>
                <td>
                  <a href={hrefToRun(run.id)} className="mono" title={run.id} onCopy={(e) => copyFullId(e, run.id)}>
                    {idTail(run.id, tail)}
                  </a>
                </td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td>{run.flowName}</td>
                <td>
                  <RelativeTime ts={run.startedWall} />
                </td>
                {/* A run that reported no usage shows a dash: no "$0.00" it never spent. */}
                <td>
                  {(run.usage && runCostLine(run.usage, run.status)) ?? (
                    <span className="muted" title="this run reported no usage">
                      —
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {moreError && <p className="error-text">Could not load more: {moreError}</p>}
      {next !== null && (
        <button type="button" onClick={loadMore}>
          Load more
        </button>
      )}
    </section>
  );
}

/** "Retry these N runs", or why not, once its count is in; while it counts, a line saying so (the toolbar keeps its place). */
function RetryOfferView({ offer, onRetry }: { offer: AsyncResult<RetryOffer | null>; onRetry: () => void }) {
  const { state, reload } = offer;
  const retry = state.data;
  if (state.status === 'error' && !retry) {
    return (
      <span className="muted" data-testid="retry-affected-failed">
        Could not count the runs to retry ({state.error}){' '}
        <button type="button" className="link" onClick={reload}>
          Count again
        </button>
      </span>
    );
  }
  if (!retry) {
    return (
      <span className="muted" data-testid="retry-affected-counting">
        Counting the runs to retry…
      </span>
    );
  }
  if (retry.kind === 'retry') {
    return (
      <button type="button" onClick={onRetry} data-testid="retry-affected">
        {retry.label}
      </button>
    );
  }
  return retry.kind === 'tooMany' ? (
    <span className="muted" data-testid="retry-affected-too-many">
      {retry.note}
    </span>
  ) : null;
}
