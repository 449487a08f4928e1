import type { UsageView } from '../../core/service/api.js';
import { hrefToRun } from '../app/router.js';
import { costLine, tokenLine } from '../lib/cost-format.js';

/**
 * The run header's cost (issue 22): the run's total and what its failed attempts cost, its
 * tokens, and for a session a Hivewatch attempt ran, where that usage is counted. Nothing when
 * no attempt reported usage (a command or fake agent).
 */
export function CostFact({ usage }: { usage: UsageView | null }) {
  if (usage === null) return null;
  const unknown = usage.unknownCostAttempts > 0 ? `${usage.unknownCostAttempts} attempt(s) reported tokens but no cost; Hivewatch keeps no price tables` : undefined;
  return (
    <div>
      <dt>Cost</dt>
      <dd data-testid="run-cost" title={unknown}>
        <span className={usage.failedCostUsd > 0 ? 'cost-failed' : ''}>{costLine(usage)}</span>
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
