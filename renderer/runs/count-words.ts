import type { RunCounts, RunListStatus } from '../../core/service/api.js';
import { formatCount, plural } from '../lib/format.js';

/**
 * How the Runs screen words the server's counts. A count that stopped at its cap (`atLeast`: a
 * text search past 2,000 matches, an error filter past 10,000; core/store/queries/run-counts.ts)
 * is a lower bound, and says so: "at least 2,001 runs match", chips "1,204+".
 */

/** Whether `total` is a lower bound (the breakdowns may be one while the total was counted exactly: `totalExact`). */
export function totalIsLowerBound(counts: RunCounts): boolean {
  return counts.atLeast === true && counts.totalExact !== true;
}

/** The line beside the title: "1,000,000 runs", "12 runs match", "at least 2,001 runs match". */
export function matchingLine(counts: RunCounts, filtered: boolean): string {
  if (!filtered) return plural(counts.total, 'run');
  const atLeast = totalIsLowerBound(counts);
  const verb = counts.total === 1 && !atLeast ? 'matches' : 'match';
  return `${atLeast ? 'at least ' : ''}${plural(counts.total, 'run')} ${verb}`;
}

/** A count on a status chip or in the flow picker; "…" before the first answer. */
export function countLabel(counts: RunCounts | null, n: number | undefined): string {
  if (counts === null) return '…';
  const value = formatCount(n ?? 0);
  if (!counts.atLeast) return value;
  // A lower bound of 0 says nothing: the counted runs held none, others may.
  return n ? `${value}+` : '–';
}

/** A status chip's count. */
export function chipCount(counts: RunCounts | null, status: RunListStatus): string {
  return countLabel(counts, counts?.byStatus[status]);
}

/** What "select every run matching this filter" may offer: only an exact count (a bulk action names how many it takes). */
export function exactTotal(counts: RunCounts | null): number | null {
  return counts === null || totalIsLowerBound(counts) ? null : counts.total;
}
