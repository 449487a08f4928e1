import type { ErrorSeries } from '../../core/service/api.js';
import { formatAbsolute, formatCount } from '../lib/format.js';

/**
 * The chart's text alternative: the total per key and the busiest bar, e.g. "42 errors in 24
 * bars of one hour, by category: RUNTIME 30, AGENT 12. Most in one bar: 9, at 2026-11-26 03:00."
 */
export function seriesSummary(series: ErrorSeries): string {
  const totals = new Map<string, number>();
  let busiest: { start: number; count: number } | null = null;
  for (const point of series.points) {
    let inBar = 0;
    for (const [key, count] of Object.entries(point.counts)) {
      totals.set(key, (totals.get(key) ?? 0) + count);
      inBar += count;
    }
    if (busiest === null || inBar > busiest.count) busiest = { start: point.start, count: inBar };
  }
  const total = [...totals.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 'No errors in this window.';
  const parts = [...totals].sort((a, b) => b[1] - a[1]).map(([key, count]) => `${key} ${formatCount(count)}`);
  const head = `${formatCount(total)} errors in ${series.points.length} bars of one ${series.bucket}, by ${series.stackBy}: ${parts.join(', ')}.`;
  return busiest && busiest.count > 0 ? `${head} Most in one bar: ${formatCount(busiest.count)}, at ${formatAbsolute(busiest.start).slice(0, 16)}.` : head;
}
