/**
 * How a cost reads to an operator (CLI; the window keeps its own copy, renderer imports no core
 * code): dollars with cents, and fractions of a cent where agent attempts cost that little.
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

interface CostFigures {
  attempts: number;
  costUsd: number;
  failedCostUsd: number;
  unknownCostAttempts: number;
}

/** "$0.42 · $0.17 on failed attempts", "cost unknown" when no attempt reported a cost, "+ unknown" when some did not. */
export function costSummary(u: CostFigures): string {
  if (u.attempts === 0) return 'no usage reported';
  if (u.unknownCostAttempts === u.attempts) return 'cost unknown';
  const unknown = u.unknownCostAttempts > 0 ? ` + ${u.unknownCostAttempts} attempt(s) of unknown cost` : '';
  return `${formatUsd(u.costUsd)}${unknown} · ${formatUsd(u.failedCostUsd)} on failed attempts`;
}
