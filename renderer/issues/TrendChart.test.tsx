import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TREND_HEIGHT } from '../errors/charts/chart-sizes.js';
import { TrendChart } from './TrendChart.js';

/**
 * An issue's trend as it first paints, before recharts' chunk draws into it (e2e/issue-page.test.ts
 * looks at the drawing): its box already has the drawing's height, and its values are all there
 * as a table, the current bucket read "(so far)" and no other.
 */

const HOUR = 3_600_000;

describe("an issue's trend", () => {
  it('holds the drawing box at its final height and every value in a table, the current hour "so far"', () => {
    const trend = { counts: [3, 0, 41, 2], start: 100 * HOUR, bucketMs: HOUR, partial: true };
    const html = renderToStaticMarkup(<TrendChart trend={trend} />);
    expect(html).toContain(`<div class="chart-pending" style="height:${TREND_HEIGHT}px" data-state="waiting">`);
    const rows = [...html.matchAll(/<tr><td>([^<]*)<\/td><td class="num">([^<]*)<\/td><\/tr>/g)].map((m) => [m[1], m[2]]);
    expect(rows.map(([, n]) => n)).toEqual(['3', '0', '41', '2']);
    expect(rows.map(([label]) => /\(so far\)$/.test(label ?? ''))).toEqual([false, false, false, true]);
    expect(rows.every(([label]) => /^\d\d:\d\d–\d\d:\d\d/.test(label ?? ''))).toBe(true);
    expect(html).toContain('<caption class="visually-hidden">Events per hour</caption>');
  });

  it('counts days past three days and marks no bucket partial for a period that has ended', () => {
    const html = renderToStaticMarkup(<TrendChart trend={{ counts: [1, 2], start: 0, bucketMs: 24 * HOUR, partial: false }} />);
    expect(html).toContain('<caption class="visually-hidden">Events per day</caption>');
    expect(html).not.toContain('so far');
    expect([...html.matchAll(/<tr><td>(\d{4}-\d\d-\d\d)<\/td>/g)]).toHaveLength(2);
  });
});
