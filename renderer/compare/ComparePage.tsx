import { useMemo, useState } from 'react';
import type { RunDetail } from '../../core/service/api.js';
import { useApi, useRunsSnapshot } from '../app/api-context.js';
import { hrefToCompare, hrefToRun } from '../app/router.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { RelativeTime } from '../components/Time.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { StaleNote } from '../components/StaleNote.js';
import { useAsync } from '../lib/use-async.js';
import { usePacedReloads, useReadInFlight } from '../lib/use-paced-reloads.js';
import { takeRun } from '../run-detail/run-reads.js';
import { CompareGroups } from './CompareGroups.js';
import { compareRuns } from './compare-runs.js';
import { costDifference, differingTasks } from './compare-view.js';

function RunHead({ detail }: { detail: RunDetail }) {
  const run = detail.run;
  return (
    <th scope="col">
      <a className="mono" href={hrefToRun(run.id)}>
        {run.id}
      </a>{' '}
      <StatusBadge status={run.status} />
      <div className="muted">
        started <RelativeTime ts={run.startedWall} />
      </div>
    </th>
  );
}

/** `#/compare/<a>/<b>`: two runs side by side, cells that differ marked. */
export function ComparePage({ left, right }: { left: string; right: string }) {
  const api = useApi();
  const [differencesOnly, setDifferencesOnly] = useState(false);
  // Either run still running: read both again as it moves (paced), so a run that ends or retries
  // while compared is not shown as it was.
  const { runs } = useRunsSnapshot();
  const leftLive = runs.get(left);
  const rightLive = runs.get(right);
  const moved = useMemo(() => ({ leftLive, rightLive }), [leftLive, rightLive]);
  const live = usePacedReloads(moved);
  const { state, reload } = useAsync(() => Promise.all([takeRun(api, left), takeRun(api, right)]), [api, left, right, live.count]);
  useReadInFlight(live, state.status === 'loading');
  if (state.status === 'error') return <ErrorState title="Could not load the runs" error={state.error} onRetry={reload} />;
  if (!state.data) return <Loading what="the two runs" />;
  const [a, b] = state.data;
  if (!a || !b) {
    return (
      <EmptyState title="No such run">
        There is no run <code>{!a ? left : right}</code> in this database. <a href="#/runs">Back to all runs</a>
      </EmptyState>
    );
  }
  const groups = compareRuns(a, b);
  const tasks = differingTasks(groups);
  const costs = costDifference(groups);
  return (
    <section className="page compare" aria-label={`Compare ${left} with ${right}`}>
      <header className="run-header">
        <div className="run-title">
          <a href="#/runs" className="back" title="Back to all runs">
            ← Runs
          </a>
          <h1>Compare runs</h1>
          <div className="run-actions">
            <a className="button-link" href={hrefToCompare(right, left)} title="swap the two sides">
              Swap sides
            </a>
          </div>
        </div>
        <StaleNote />
        {a.run.flow !== b.run.flow && (
          <p className="compare-note">These runs are of different flows: their tasks are matched by place (step and ordinal) only.</p>
        )}
      </header>
      <section className="panel">
        <label className="compare-toggle">
          <input
            type="checkbox"
            checked={differencesOnly}
            onChange={(e) => setDifferencesOnly(e.currentTarget.checked)}
            data-testid="compare-differences-only"
          />
          Differences only{' '}
          <span className="muted">
            ({tasks.differ} of {tasks.total} {tasks.total === 1 ? 'task differs' : 'tasks differ'}, times in attempts aside
            {costs !== null && <span data-testid="compare-cost-differs">; the cost differs: {costs}</span>})
          </span>
        </label>
        <table className="compare-table" data-testid="compare-table">
          <thead>
            <tr>
              <th className="compare-label" scope="col" />
              <RunHead detail={a} />
              <RunHead detail={b} />
            </tr>
          </thead>
          <CompareGroups groups={groups} differencesOnly={differencesOnly} />
        </table>
      </section>
    </section>
  );
}
