import type { TokenUsage, UsageTotalsView } from '../../core/service/api.js';

/**
 * How tokens and cost read in the window (issue 22). Hivewatch keeps no price tables: where an
 * agent reported tokens but no cost, the text says the cost is unknown instead of guessing.
 */

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return n.toLocaleString('en-US');
}

/** "$0.42 · $0.17 on failed attempts"; "cost unknown" when no attempt reported one. */
export function costLine(u: UsageTotalsView): string {
  if (u.attempts === 0) return 'no usage reported';
  if (u.unknownCostAttempts === u.attempts) return 'cost unknown';
  const some = u.unknownCostAttempts > 0 ? ' + unknown' : '';
  return u.failedAttempts > 0 ? `${formatUsd(u.costUsd)}${some} · ${formatUsd(u.failedCostUsd)} on failed attempts` : `${formatUsd(u.costUsd)}${some}`;
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
