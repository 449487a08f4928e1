import type { IssuePeriod } from '../../core/service/api.js';
import { formatAbsolute, formatCount } from '../lib/format.js';

/**
 * How an issue's trend and its change read (pure): each bucket's label and value for hover and
 * screen readers, the partial (current) bucket said to be "so far", never a finished bucket, and
 * the change against the period before ("+340 %").
 */

const HOUR = 3_600_000;

export interface TrendView {
  counts: readonly number[];
  start: number;
  bucketMs: number;
  /** The last bucket is the current one, still filling. */
  partial: boolean;
}

/** "14:00–15:00" for an hour, "2026-11-28" for a day (local time, as every time in the window). */
export function bucketLabel(start: number, bucketMs: number): string {
  const from = formatAbsolute(start);
  if (bucketMs >= 24 * HOUR) return from.slice(0, 10);
  return `${from.slice(11, 16)}–${formatAbsolute(start + bucketMs).slice(11, 16)}`;
}

/** One bucket in words: "14:00–15:00: 41 events", "15:00–16:00 (so far): 3 events". */
export function bucketText(trend: TrendView, index: number): string {
  const n = trend.counts[index] ?? 0;
  const partial = trend.partial && index === trend.counts.length - 1;
  return `${bucketLabel(trend.start + index * trend.bucketMs, trend.bucketMs)}${partial ? ' (so far)' : ''}: ${formatCount(n)} event${n === 1 ? '' : 's'}`;
}

/** The whole trend in one sentence for a screen reader: total, busiest bucket, the current one. */
export function trendSummary(trend: TrendView, what: string): string {
  if (trend.counts.length === 0) return `${what}: no trend`;
  const unit = trend.bucketMs >= 24 * HOUR ? 'day' : 'hour';
  const total = trend.counts.reduce((a, b) => a + b, 0);
  let peak = 0;
  trend.counts.forEach((n, i) => {
    if (n > (trend.counts[peak] ?? 0)) peak = i;
  });
  const parts = [`${what}, ${formatCount(total)} events over ${trend.counts.length} ${unit}s`];
  if (total > 0) parts.push(`busiest ${bucketText(trend, peak)}`);
  if (trend.partial) parts.push(`this ${unit} so far ${formatCount(trend.counts[trend.counts.length - 1] ?? 0)}`);
  return parts.join('; ');
}

/** "+340 %", "−50 %", "±0 %"; "new" from nothing; "—" without a previous period or events. */
export function changeText(period: IssuePeriod): string {
  if (period.previous === null) return '—';
  if (period.change === null) return period.events > 0 ? 'new' : '—';
  const pct = Math.round(period.change * 100);
  if (pct === 0) return '±0 %';
  return `${pct > 0 ? '+' : '−'}${formatCount(Math.abs(pct))} %`;
}

/** Whether the change is worse (more events), better, or neither: its colour. */
export function changeTone(period: IssuePeriod): 'worse' | 'better' | 'same' {
  if (period.previous === null) return 'same';
  if (period.change === null) return period.events > 0 ? 'worse' : 'same';
  return period.change > 0 ? 'worse' : period.change < 0 ? 'better' : 'same';
}

/** "+340 % against the 24 hours before (27 events)" for a tooltip. */
export function changeTitle(period: IssuePeriod): string {
  if (period.previous === null) return 'no previous period: all time';
  const n = period.previous.events;
  return `${changeText(period)} against the period before (${formatCount(n)} event${n === 1 ? '' : 's'} in it)`;
}
