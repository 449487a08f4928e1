import type { TokenUsage, UsageView } from '../../core/service/api.js';

/** A report of nothing but zeros (Claude Code after a refused request) is no usage, as the store keeps it. */
function reportsNothing(usage: TokenUsage): boolean {
  return (
    (usage.inputTokens ?? 0) === 0 &&
    (usage.outputTokens ?? 0) === 0 &&
    (usage.cacheReadTokens ?? 0) === 0 &&
    (usage.cacheWriteTokens ?? 0) === 0 &&
    (usage.costUsd ?? 0) === 0
  );
}

/**
 * A live row's usage after one more attempt ended with `usage` (as the store's run_usage sums
 * it, core/store/rollups/usage-rollups.ts), so the Runs list's cost moves with the run's events.
 */
export function addAttemptUsage(current: UsageView | null, usage: TokenUsage, failed: boolean): UsageView | null {
  if (reportsNothing(usage)) return current;
  const base: UsageView = current ?? {
    attempts: 0,
    failedAttempts: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    failedCostUsd: 0,
    unknownCostAttempts: 0,
    countedIn: null,
  };
  const cost = usage.costUsd ?? 0;
  return {
    ...base,
    attempts: base.attempts + 1,
    failedAttempts: base.failedAttempts + (failed ? 1 : 0),
    inputTokens: base.inputTokens + (usage.inputTokens ?? 0),
    outputTokens: base.outputTokens + (usage.outputTokens ?? 0),
    cacheReadTokens: base.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: base.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    costUsd: base.costUsd + cost,
    failedCostUsd: base.failedCostUsd + (failed ? cost : 0),
    unknownCostAttempts: base.unknownCostAttempts + (usage.costUsd === undefined ? 1 : 0),
  };
}
