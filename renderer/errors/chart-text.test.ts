import { describe, expect, it } from 'vitest';
import { seriesSummary } from './chart-text.js';

describe('the over-time chart’s text alternative', () => {
  it('gives the total, each category’s share and the busiest bar', () => {
    const start = Date.UTC(2026, 10, 26, 3, 0);
    const text = seriesSummary({
      bucket: 'hour',
      stackBy: 'category',
      keys: ['RUNTIME', 'AGENT'],
      points: [
        { start, counts: { RUNTIME: 2, AGENT: 1 } },
        { start: start + 3_600_000, counts: { RUNTIME: 7 } },
      ],
    });
    expect(text).toMatch(/^10 errors in 2 bars of one hour, by category: RUNTIME 9, AGENT 1\. Most in one bar: 7, at \d{4}-\d\d-\d\d \d\d:\d\d\.$/);
  });

  it('says plainly when the window has no error', () => {
    expect(seriesSummary({ bucket: 'day', stackBy: 'category', keys: [], points: [{ start: 0, counts: {} }] })).toBe('No errors in this window.');
  });
});
