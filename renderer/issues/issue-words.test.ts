import { describe, expect, it } from 'vitest';
import type { IssuePeriod } from '../../core/service/api.js';
import { lineDiff } from './flow-diff.js';
import { bucketText, changeText, changeTone, trendSummary } from './trend-words.js';

/** The issue page's and the issues table's words: the change, the trend read aloud, the flow diff. */

const period = (events: number, before: number | null): IssuePeriod => ({
  since: 0,
  until: 1,
  events,
  failures: 0,
  previous: before === null ? null : { since: -1, until: 0, events: before, failures: 0 },
  change: before === null || before === 0 ? null : (events - before) / before,
});

describe('the change against the period before', () => {
  it('reads as a signed percentage, "new" from nothing, and a dash without a previous period', () => {
    expect(changeText(period(44, 10))).toBe('+340 %');
    expect(changeText(period(5, 10))).toBe('−50 %');
    expect(changeText(period(10, 10))).toBe('±0 %');
    expect(changeText(period(3, 0))).toBe('new');
    expect(changeText(period(0, 0))).toBe('—');
    expect(changeText(period(12, null))).toBe('—');
    expect(changeText(period(2_500, 10))).toBe('+24,900 %');
    expect([changeTone(period(44, 10)), changeTone(period(5, 10)), changeTone(period(3, 0)), changeTone(period(3, null))]).toEqual([
      'worse',
      'better',
      'worse',
      'same',
    ]);
  });
});

describe('a trend in words', () => {
  const HOUR = 3_600_000;
  const start = new Date(2026, 10, 28, 13).getTime();
  const trend = { counts: [2, 41, 0, 3], start, bucketMs: HOUR, partial: true };
  it('names each bucket with its hours and count, the current one "so far"', () => {
    expect(bucketText(trend, 1)).toBe('14:00–15:00: 41 events');
    expect(bucketText(trend, 3)).toBe('16:00–17:00 (so far): 3 events');
    expect(bucketText({ ...trend, partial: false }, 3)).toBe('16:00–17:00: 3 events');
  });
  it('sums it up for a screen reader: the total, the busiest bucket, the current one', () => {
    expect(trendSummary(trend, 'RUNTIME_TIMEOUT per hour')).toBe(
      'RUNTIME_TIMEOUT per hour, 46 events over 4 hours; busiest 14:00–15:00: 41 events; this hour so far 3',
    );
    expect(trendSummary({ counts: [0, 0], start, bucketMs: 24 * HOUR, partial: false }, 'x')).toBe('x, 0 events over 2 days');
  });
});

describe('two versions of a flow', () => {
  it('keeps the common lines and marks what went and what came, in order', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(lineDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });
});
