import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ErrorSeries } from '../../../core/service/api.js';
import { CountChart } from '../CountChart.js';
import { SeriesChart } from '../SeriesChart.js';

const HOUR = 3_600_000;
const noop = (): void => undefined;

/** Every `<tag …>` opening of the markup, as a map of its attributes. */
function elements(html: string, tag: string): Record<string, string>[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map((m) => Object.fromEntries([...(m[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1] as string, a[2] as string])));
}

const texts = (html: string, className: string): string[] => [...html.matchAll(new RegExp(`<text[^>]*class="${className}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1] as string);

describe('CountChart', () => {
  const counts = [
    { key: 'RUNTIME_RATE_LIMIT', count: 30 },
    { key: 'VERIFICATION_TESTS_FAILED_HARD', count: 12 },
    { key: 'GIT_MERGE_CONFLICT', count: 7 },
  ];

  it('draws one bar per key scaled to the count axis, whose ticks run from 0 at the left to the top at the right', () => {
    const html = renderToStaticMarkup(<CountChart title="code" counts={counts} selected="" onPick={noop} />);
    // countTicks(30): 0, 10, 20, 30.
    expect(texts(html, 'chart-tick')).toEqual(['0', '10', '20', '30']);
    const ticks = elements(html, 'text').filter((t) => t.class === 'chart-tick');
    expect(ticks.map((t) => [t.x, t['text-anchor']])).toEqual([
      ['0%', 'start'],
      ['33.333%', 'middle'],
      ['66.667%', 'middle'],
      ['100%', 'end'],
    ]);
    const bars = elements(html, 'rect').filter((r) => r.class === 'chart-bar');
    expect(bars.map((b) => [b['data-key'], b.width])).toEqual([
      ['RUNTIME_RATE_LIMIT', '100%'],
      ['VERIFICATION_TESTS_FAILED_HARD', '40%'],
      ['GIT_MERGE_CONFLICT', '23.333%'],
    ]);
  });

  it('shortens long labels on the axis and keeps every label whole in the text alternative', () => {
    const html = renderToStaticMarkup(<CountChart title="code" counts={counts} selected="" onPick={noop} />);
    expect(texts(html, 'chart-category')).toEqual(['RUNTIME_RATE_LIMIT', 'VERIFICATION_TESTS_FA…', 'GIT_MERGE_CONFLICT']);
    expect(html).toContain('<li>VERIFICATION_TESTS_FAILED_HARD: 12</li>');
    // The drawings are hidden from screen readers; nothing in them takes focus.
    const svgs = elements(html, 'svg');
    expect(svgs).toHaveLength(2);
    for (const svg of svgs) expect(svg['aria-hidden']).toBe('true');
    expect(html).not.toContain('tabindex');
  });

  it('keeps the selected bar at full opacity and fades the others', () => {
    const html = renderToStaticMarkup(<CountChart title="code" counts={counts} selected="GIT_MERGE_CONFLICT" onPick={noop} />);
    const bars = elements(html, 'rect').filter((r) => r.class === 'chart-bar');
    expect(bars.map((b) => b['fill-opacity'])).toEqual(['0.35', '0.35', '1']);
    expect(html).toContain('>clear</button>');
  });

  it('says so when there are no errors', () => {
    expect(renderToStaticMarkup(<CountChart title="origin" counts={[]} selected="" onPick={noop} />)).toContain('No errors.');
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

  it('stacks one bar per bucket on a Y axis from 0 to a top at or above the tallest stack', () => {
    const html = renderToStaticMarkup(<SeriesChart series={series} onZoom={noop} />);
    expect(texts(html, 'chart-tick').slice(0, 5)).toEqual(['0', '10', '20', '30', '40']);
    const bars = elements(html, 'rect').filter((r) => r.class === 'chart-bar');
    // 12 even hours with one segment, and hour 5 with two; its bar starts a tenth into the bucket: (5 + 0.1) / 24.
    expect(bars).toHaveLength(14);
    const five = bars.filter((b) => b.x === '21.25%');
    expect(five.map((b) => [b['data-key'], b.y, b.height])).toEqual([
      ['runtime', '58', '150'],
      ['agent', '8', '50'],
    ]);
    // The Y axis' labels climb as the values grow (monotonic, 0 at the bottom).
    const ys = elements(html, 'text').filter((t) => t.class === 'chart-tick' && t['text-anchor'] === 'end').map((t) => Number(t.y));
    expect(ys).toEqual([...ys].sort((a, b) => b - a));
  });

  it('names its legend, keeps the zoom sliders named and reads their times, and hides the drawing', () => {
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
    for (const svg of elements(html, 'svg')) expect(svg['aria-hidden']).toBe('true');
    expect(html).toContain('errors in 24 bars of one hour');
  });
});
