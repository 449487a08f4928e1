/**
 * How a cost reads to an operator, in the CLI and in the window alike (renderer/lib/cost-format.ts
 * builds the window's wording on these): dollars with cents, and fractions of a cent where agent
 * attempts cost that little. docs/triage.md "What failure costs" names the three figures.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** What some attempts spent: the one shape of the store's cost split, the API's and the words below. */
export interface SpendFigures {
  /** Attempts that reported usage. */
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The costs reported; a lower bound when `unknownCostAttempts` > 0. */
  costUsd: number;
  /** Attempts that reported tokens but no cost (Hivewatch keeps no price tables). */
  unknownCostAttempts: number;
}

type Figures = SpendFigures;

interface CostFigures extends Figures {
  failedCostUsd: number;
}

/** Nothing was consumed: no attempt reported usage, or every report was zeros (a refused request reports nothing). */
export function reportedNothing(u: Figures): boolean {
  return u.attempts === 0 || (u.costUsd === 0 && u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens === 0);
}

/** What some groups of attempts spent together. */
export function sumSpend(parts: readonly SpendFigures[]): SpendFigures {
  const total: SpendFigures = {
    attempts: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    unknownCostAttempts: 0,
  };
  for (const part of parts) for (const key of Object.keys(total) as (keyof SpendFigures)[]) total[key] += part[key];
  return total;
}

/** "$0.42", "$0.42 + 1 attempt(s) of unknown cost", "cost unknown" (tokens without a price are never $0.00). */
function amount(u: Figures): string {
  if (u.attempts > 0 && u.unknownCostAttempts === u.attempts) return 'cost unknown';
  const unknown = u.unknownCostAttempts > 0 ? ` + ${u.unknownCostAttempts} attempt(s) of unknown cost` : '';
  return `${formatUsd(u.costUsd)}${unknown}`;
}

/**
 * One run's spend by outcome: "$2.58 · failed run" (all of a failed run's spend is failure's),
 * "$0.42 · $0.17 retried · $0.25 successful" (a run that went on after failed attempts), "$0.25".
 */
export function runCostSummary(u: CostFigures, status: string): string {
  if (reportedNothing(u)) return 'no usage reported';
  if (u.unknownCostAttempts === u.attempts) return 'cost unknown';
  if (status === 'failed') return `${amount(u)} · failed run`;
  if (u.failedCostUsd === 0) return amount(u);
  return `${amount(u)} · ${formatUsd(u.failedCostUsd)} retried · ${formatUsd(u.costUsd - u.failedCostUsd)} successful`;
}

interface Split {
  failed: Figures;
  retried: Figures;
  succeeded: Figures;
}

/** The three figures: "$48.09 = $14.08 failed runs + $4.01 retried attempts + $30.00 successful work". */
export function splitSummary(s: Split): string {
  const total = sumSpend([s.failed, s.retried, s.succeeded]);
  if (reportedNothing(total)) return 'no usage reported';
  return `${amount(total)} = ${amount(s.failed)} failed runs + ${amount(s.retried)} retried attempts + ${amount(s.succeeded)} successful work`;
}
