import { useApi } from '../app/api-context.js';
import { formatUsd } from '../lib/cost-format.js';
import { useAsync } from '../lib/use-async.js';
import { takePrefetchedCost, usageInput } from './side-loads.js';

/**
 * "· failed attempts cost $0.17" in the Errors header (issue 22): what the attempts that failed
 * in the window (and flow) cost, from the server's usage totals. Nothing when none of them
 * reported usage; "cost unknown" when they reported tokens only.
 */
export function FailureCost({ since, until, flow, refresh }: { since?: number | undefined; until?: number | undefined; flow?: string | undefined; refresh: number }) {
  const api = useApi();
  const { state } = useAsync(
    () => {
      const ask = usageInput(since, until, flow);
      return takePrefetchedCost(ask) ?? api.usageByFlow(ask);
    },
    [api, since, until, flow, refresh],
  );
  const rows = state.data ?? [];
  const failed = rows.reduce((n, r) => n + r.failedAttempts, 0);
  if (failed === 0) return null;
  const cost = rows.reduce((sum, r) => sum + r.failedCostUsd, 0);
  const known = rows.some((r) => r.failedCostUsd > 0) || rows.every((r) => r.unknownCostAttempts === 0);
  return (
    <span data-testid="errors-failure-cost" title={`${failed} failed attempt(s) in this window reported usage; the runs they belong to may still have succeeded`}>
      {' · '}failed attempts cost <strong>{known ? formatUsd(cost) : 'an unknown amount'}</strong>
    </span>
  );
}
