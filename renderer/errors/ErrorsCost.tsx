import type { ErrorFilter } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { CostSplitFigures, CostTrend, hasSpend } from '../components/CostSplitFigures.js';
import { useAsync } from '../lib/use-async.js';
import type { ErrorsQuery } from './errors-query.js';
import { costInput, takePrefetchedCost } from './side-loads.js';

/**
 * The Errors header's cost (docs/triage.md "What failure costs"): under every filter of the
 * screen (window, category, origin, code, flow, run, the issues' status), what runs that ended
 * failed spent, what failed attempts of runs that went on cost, and, with no error filter,
 * successful work, with their trend over the window. Nothing when no attempt in scope reported
 * usage: an origin no run failed with costs nothing, next to its "0 failures".
 */
export function ErrorsCost({ filter, issueStatus, refresh }: { filter: ErrorFilter; issueStatus: ErrorsQuery['issueStatus']; refresh: number }) {
  const api = useApi();
  const ask = costInput(filter, issueStatus);
  const key = JSON.stringify(ask);
  const { state } = useAsync(() => takePrefetchedCost(ask) ?? api.costSplit(ask), [api, key, refresh]);
  const answer = state.data;
  if (!answer || !hasSpend(answer.total)) return null;
  const errorFiltered = filter.category !== undefined || filter.origin !== undefined || filter.code !== undefined || issueStatus !== '';
  return (
    <span className="errors-cost" data-testid="errors-cost">
      {' · '}cost: <CostSplitFigures split={answer.total} withSuccess={!errorFiltered} /> <CostTrend trend={answer.trend} withSuccess={!errorFiltered} />
    </span>
  );
}
