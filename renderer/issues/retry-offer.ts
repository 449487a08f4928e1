import type { BULK_MAX_RUNS, RunCounts } from '../../core/service/api.js';
import { totalIsLowerBound } from '../runs/count-words.js';
import { formatCount } from '../lib/format.js';

/**
 * What the issue page offers for its failed, cancelled and interrupted runs. A bulk retry by
 * filter takes the runs the filter matches, at most BULK_MAX_RUNS of them, and refuses more
 * (core/service/runs/bulk.ts): the button names the exact number it will retry, and past that bound
 * (or when the count stopped at its cap, so its number is only a lower bound) there is no button,
 * a note that says how many (at least) and where to act.
 */
/** The most one bulk call takes: no value crosses into the renderer, so the type (the literal 10000) holds the two equal. */
const BULK_MOST: typeof BULK_MAX_RUNS = 10_000;

export type RetryOffer = { kind: 'none' } | { kind: 'retry'; runs: number; label: string } | { kind: 'tooMany'; note: string };

export function retryOffer(counts: Pick<RunCounts, 'total' | 'atLeast' | 'totalExact'>): RetryOffer {
  const runs = counts.total;
  const lowerBound = totalIsLowerBound(counts as RunCounts);
  if (runs === 0 && !lowerBound) return { kind: 'none' };
  const n = formatCount(runs);
  if (runs > BULK_MOST) {
    return {
      kind: 'tooMany',
      note: `${lowerBound ? 'at least ' : ''}${n} runs to retry: more than one bulk retry takes (${formatCount(BULK_MOST)}); narrow them in Runs and retry in parts`,
    };
  }
  if (lowerBound) return { kind: 'tooMany', note: `at least ${n} runs to retry; open them in Runs to retry them` };
  return { kind: 'retry', runs, label: `Retry these ${formatCount(runs)} run${runs === 1 ? '' : 's'}` };
}
