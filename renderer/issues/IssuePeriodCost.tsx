import type { IssueScope } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { CostSplitFigures, hasSpend } from '../components/CostSplitFigures.js';
import { useAsync } from '../lib/use-async.js';
import { periodCostAsk, readPeriodCost, sectionKeys } from './issue-reads.js';
import { takeRead } from '../lib/kept-reads.js';

/**
 * What the issue cost in the page's period (docs/triage.md "What failure costs"), a row of its
 * counts: what the runs that ended failed with it spent, and what its failed attempts in runs
 * that went on cost. An issue is an error, so successful work is no part of it. Nothing
 * reported: the row says so rather than "$0.00".
 */
export function IssuePeriodCost({ issueId, scope, periodWords, refresh }: { issueId: string; scope: IssueScope; periodWords: string; refresh: number }) {
  const api = useApi();
  const ask = periodCostAsk(issueId, scope);
  const { state } = useAsync(() => takeRead(sectionKeys.cost(issueId, scope), () => readPeriodCost(api, issueId, scope)), [api, JSON.stringify(ask), refresh]);
  const answer = state.data;
  return (
    <>
      <dt>Cost, {periodWords}</dt>
      <dd data-testid="issue-period-cost">
        {!answer ? (
          <span className="muted">{state.status === 'error' ? 'could not be read' : 'reading…'}</span>
        ) : hasSpend(answer.total) ? (
          <CostSplitFigures split={answer.total} withSuccess={false} />
        ) : (
          'no usage reported'
        )}
      </dd>
    </>
  );
}
