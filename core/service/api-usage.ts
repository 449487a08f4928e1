/** The API's shapes of tokens and cost (issue 22), re-exported by api.ts. */

/**
 * Tokens and cost summed over attempts (issue 22). `costUsd` sums the costs reported; when
 * `unknownCostAttempts` > 0 some attempts reported tokens but no cost, so the cost is a lower bound.
 */
export interface UsageTotalsView {
  attempts: number;
  failedAttempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  failedCostUsd: number;
  unknownCostAttempts: number;
}

/** A run's usage; `countedIn`: the Hivewatch attempt that ran this session and counts its usage in the totals. */
export interface UsageView extends UsageTotalsView {
  countedIn: { runId: string; taskId: string; attempt: number } | null;
}

export interface FlowUsageView extends UsageTotalsView {
  flow: string;
}
