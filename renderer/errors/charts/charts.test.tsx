import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ErrorSeries } from '../../../core/service/api.js';
import { CountChart } from '../CountChart.js';
import { SeriesChart } from '../SeriesChart.js';
import { countChartHeight, SERIES_HEIGHT } from './chart-sizes.js';

/**
 * The cards around the charts, as they first paint: recharts draws into them later (its own
 * chunk, after a paint: e2e/errors.test.ts looks at the drawing), so what is here must already
 * say everything — the counts for a screen reader, the legend, the named zoom sliders — and hold
 * the drawing's height, so nothing moves when it comes.
 */

const HOUR = 3_600_000;
const noop = (): void => undefined;

/** Every `<tag …>` opening of the markup, as a map of its attributes. */
function elements(html: string, tag: string): Record<string, string>[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map((m) =>
    Object.fromEntries([...(m[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1] as string, a[2] as string])),
  );
}

describe('CountChart', () => {
  const counts = [
    { key: 'RUNTIME_RATE_LIMIT', count: 30 },
    { key: 'VERIFICATION_TESTS_FAILED_HARD', count: 12_500 },
    { key: 'GIT_MERGE_CONFLICT', count: 7 },
  ];

  it('lists every count whole for a screen reader and keeps the drawing box at its final height', () => {
    const html = renderToStaticMarkup(<CountChart title="code" counts={counts} selected="" onPick={noop} />);
    expect(html).toContain(
      '<ul class="visually-hidden" aria-label="Errors by code"><li>RUNTIME_RATE_LIMIT: 30</li><li>VERIFICATION_TESTS_FAILED_HARD: 12,500</li><li>GIT_MERGE_CONFLICT: 7</li></ul>',
    );
    const box = elements(html, 'div').find((d) => d.class === 'chart-pending');
    expect(box?.style).toBe(`height:${countChartHeight(3)}px`);
    expect(countChartHeight(3)).toBe(4 + 3 * 28 + 24);
    // Nothing in the card takes focus but its buttons.
    expect(html).not.toContain('tabindex');
  });

  it('offers "clear" for a chosen key, and says so when there are no errors', () => {
    expect(renderToStaticMarkup(<CountChart title="code" counts={counts} selected="GIT_MERGE_CONFLICT" onPick={noop} />)).toContain('>clear</button>');
    const empty = renderToStaticMarkup(<CountChart title="origin" counts={[]} selected="" onPick={noop} />);
    expect(empty).toContain('No errors.');
    expect(empty).not.toContain('chart-pending');
  });
});

/** Hour 5 holds 30 runtime and 10 agent errors, every even hour 2 runtime ones, the rest none. */
function countsAt(hour: number): Record<string, number> {
  if (hour === 5) return { runtime: 30, agent: 10 };
  return hour % 2 === 0 ? { runtime: 2 } : {};
}

describe('SeriesChart', () => {
  const start = Date.UTC(2026, 10, 26, 0);
  const series: ErrorSeries = {
    bucket: 'hour',
    stackBy: 'category',
    keys: ['runtime', 'agent'],
    points: Array.from({ length: 24 }, (_, i) => ({ start: start + i * HOUR, counts: countsAt(i) })),
  };

  it('names its legend, keeps the zoom sliders named and reads their times, and summarises the bars', () => {
    const html = renderToStaticMarkup(<SeriesChart series={series} onZoom={noop} />);
    expect(html).toMatch(/<ul class="chart-legend"><li><span class="chart-swatch"[^>]*><\/span>runtime<\/li><li>.*agent<\/li><\/ul>/);
    const sliders = elements(html, 'input');
    expect(sliders.map((s) => [s.min, s.max, s.value, s['aria-valuetext']])).toEqual([
      ['0', '23', '0', '2026-11-26 00:00'],
      ['0', '23', '23', '2026-11-26 23:00'],
    ]);
    expect(html).toContain('Zoom from<input');
    expect(html).toContain('Zoom to<input');
    // Nothing selected yet: no "Zoom to selection".
    expect(html).not.toContain('Zoom to selection');
    expect(html).toContain('64 errors in 24 bars of one hour, by category: runtime 54, agent 10. Most in one bar: 40, at 2026-11-26 05:00.');
    expect(elements(html, 'div').find((d) => d.class === 'chart-pending')?.style).toBe(`height:${SERIES_HEIGHT}px`);
  });

  it('says so when the window holds no bars', () => {
    expect(renderToStaticMarkup(<SeriesChart series={{ ...series, points: [] }} onZoom={noop} />)).toContain('No errors in this window.');
  });
});
