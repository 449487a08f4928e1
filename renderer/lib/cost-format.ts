import type { CostFiguresView, CostSplitView, RunSummary, TokenUsage, UsageTotalsView } from '../../core/service/api.js';
import { formatUsd, reportedNothing, sumSpend, type SpendFigures } from '../../core/common/usage-format.js';
import { formatCount } from './format.js';

/**
 * How tokens and cost read in the window (docs/triage.md "What failure costs"). Hivewatch keeps
 * no price tables: where an agent reported tokens but no cost, the text says the cost is unknown
 * instead of guessing; where nothing was consumed (no tokens, no cost), nothing is shown.
 */

function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return formatCount(n);
}

/** "$0.42", "$0.42 + unknown", "cost unknown" (tokens without a price are never $0.00). */
export function amountText(u: SpendFigures): string {
  if (u.attempts > 0 && u.unknownCostAttempts === u.attempts) return 'cost unknown';
  return `${formatUsd(u.costUsd)}${u.unknownCostAttempts > 0 ? ' + unknown' : ''}`;
}

/** One run's spend by outcome; null when the run reported no usage (nothing is shown for it). */
export interface RunCost {
  /** "$0.42", "cost unknown". */
  total: string;
  /** "failed run" (all of a failed run's spend), "$0.17 retried", or null. */
  failure: string | null;
  /** "$0.25 successful" beside a retried share, or null. */
  success: string | null;
  /** Say it in full (a tooltip, a screen reader). */
  sentence: string;
}

export function runCost(u: UsageTotalsView, status: RunSummary['status']): RunCost | null {
  if (reportedNothing(u)) return null;
  const total = amountText(u);
  const unknown = u.unknownCostAttempts > 0 ? ` ${u.unknownCostAttempts} attempt(s) reported tokens but no cost; Hivewatch keeps no price tables.` : '';
  if (status === 'failed') return { total, failure: 'failed run', success: null, sentence: `${total}, all spent by a run that failed.${unknown}` };
  if (u.failedCostUsd === 0 || u.unknownCostAttempts === u.attempts) return { total, failure: null, success: null, sentence: `${total} spent.${unknown}` };
  const retried = formatUsd(u.failedCostUsd);
  const succeeded = formatUsd(u.costUsd - u.failedCostUsd);
  return {
    total,
    failure: `${retried} retried`,
    success: `${succeeded} successful`,
    sentence: `${total}: ${retried} on failed attempts the run went on from, ${succeeded} on successful ones.${unknown}`,
  };
}

/** The run's cost on one line: "$0.42 · $0.17 retried · $0.25 successful", "$2.58 · failed run"; null when it reported none. */
export function runCostLine(u: UsageTotalsView, status: RunSummary['status']): string | null {
  const cost = runCost(u, status);
  return cost === null ? null : [cost.total, cost.failure, cost.success].filter((s) => s !== null).join(' · ');
}

export function splitTotal(s: CostSplitView): CostFiguresView {
  return sumSpend([s.failed, s.retried, s.succeeded]);
}

/** The share spent on failure (failed runs and retried attempts) of what has a price, 0–1; null when nothing has one. */
export function failureShare(s: CostSplitView): number | null {
  const total = s.failed.costUsd + s.retried.costUsd + s.succeeded.costUsd;
  return total === 0 ? null : (s.failed.costUsd + s.retried.costUsd) / total;
}

/** "2,700 in · 320 out" (input counts what came from the prompt cache too). */
export function tokenLine(u: Pick<UsageTotalsView, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): string {
  return `${formatTokens(u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens)} in · ${formatTokens(u.outputTokens)} out`;
}

/** One attempt's usage: its tokens by kind and its cost, or "cost unknown". */
export function attemptUsageLine(u: TokenUsage): string {
  const cached = (u.cacheReadTokens ?? 0) > 0 ? ` (${formatTokens(u.cacheReadTokens ?? 0)} from cache)` : '';
  const tokens = `${tokenLine({ inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, cacheReadTokens: u.cacheReadTokens ?? 0, cacheWriteTokens: u.cacheWriteTokens ?? 0 })}${cached}`;
  const cost = u.costUsd === undefined ? 'cost unknown' : formatUsd(u.costUsd);
  return `${tokens} · ${cost}${u.source === 'telemetry' ? ' (from its telemetry)' : ''}`;
}
