import type { RunSummary, UsageView } from '../../core/service/api.js';
import { hrefToRun } from '../app/router.js';
import { runCost, tokenLine } from '../lib/cost-format.js';

/**
 * The run header's cost: the run's total by outcome (all of a failed run's spend is failure's;
 * a run that went on has its retried share and its successful one), its tokens, and for a session
 * a Hivewatch attempt ran, where that usage is counted. Nothing when no attempt reported usage (a
 * command or fake agent, or a report of zeros).
 */
export function CostFact({ usage, status }: { usage: UsageView | null; status: RunSummary['status'] }) {
  const cost = usage === null ? null : runCost(usage, status);
  if (usage === null || cost === null) return null;
  return (
    <div>
      <dt>Cost</dt>
      <dd data-testid="run-cost" title={cost.sentence}>
        <span>{cost.total}</span>
        {cost.failure !== null && <span className="cost-failure"> · {cost.failure}</span>}
        {cost.success !== null && <span> · {cost.success}</span>}
        <span className="muted"> · {tokenLine(usage)}</span>
        {usage.countedIn && (
          <span className="muted">
            {' '}
            · counted in <a href={hrefToRun(usage.countedIn.runId)}>attempt {usage.countedIn.attempt} of its run</a>
          </span>
        )}
      </dd>
    </div>
  );
}
