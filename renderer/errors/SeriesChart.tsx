import { useMemo, useState } from 'react';
import { Bar, BarChart, Brush, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Bucket, ErrorSeries } from '../../core/service/api.js';
import { countTicks, largestStack } from '../lib/axis-ticks.js';
import { formatAbsolute } from '../lib/format.js';
import { colorFor, useChartTheme } from '../lib/theme.js';
import { BUCKET_MS } from './bins.js';
import { seriesSummary } from './chart-text.js';

/** What the brush's handles select, for a screen reader (recharts' own label reads "Min value: undefined"). */
function brushLabel(data: readonly { start: number }[], brush: { startIndex: number; endIndex: number } | null, tick: (ts: number) => string): string {
  const from = data[brush?.startIndex ?? 0]?.start;
  const to = data[brush?.endIndex ?? data.length - 1]?.start;
  return from !== undefined && to !== undefined ? `Zoom span: ${tick(from)} to ${tick(to)}` : 'Zoom span';
}

function tickOf(bucket: Bucket): (ts: number) => string {
  return (ts) => {
    const text = formatAbsolute(ts);
    return bucket === 'day' ? text.slice(5, 10) : bucket === 'hour' ? `${text.slice(5, 10)} ${text.slice(11, 13)}h` : text.slice(11, 16);
  };
}

/**
 * Errors over time, stacked by category. The brush under the chart zooms the view; "Zoom to
 * selection" makes the brushed span the page's time window (in the URL).
 */
export function SeriesChart({ series, onZoom }: { series: ErrorSeries; onZoom: (since: number, until: number) => void }) {
  const theme = useChartTheme();
  const data = useMemo(() => series.points.map((p) => ({ start: p.start, ...p.counts })), [series]);
  const [brush, setBrush] = useState<{ startIndex: number; endIndex: number } | null>(null);
  const tick = tickOf(series.bucket);
  // From 0 up to the tallest stack, in whole steps (never recharts' guess: issue 24's 4000 … 8500, 0).
  const yTicks = useMemo(() => countTicks(largestStack(series.points)), [series]);

  if (data.length === 0) return <p className="muted chart-empty">No errors in this window.</p>;

  const brushed = brush && (brush.startIndex > 0 || brush.endIndex < data.length - 1) ? brush : null;
  const zoom = (): void => {
    if (!brushed) return;
    const from = data[brushed.startIndex]?.start;
    const to = data[brushed.endIndex]?.start;
    if (from !== undefined && to !== undefined) onZoom(from, to + BUCKET_MS[series.bucket]);
  };

  return (
    <figure className="chart-card chart-wide" aria-label="Errors over time by category">
      <figcaption>
        Over time, by {series.stackBy} <span className="muted">(one bar per {series.bucket})</span>
        {brushed && (
          <button type="button" className="small primary" onClick={zoom}>
            Zoom to selection
          </button>
        )}
      </figcaption>
      {/* The text alternative of the bars; the brush's two handles stay keyboard sliders (arrow keys), named by the span they select. */}
      <p className="visually-hidden">{seriesSummary(series)}</p>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 4, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke={theme.grid} />
          <XAxis dataKey="start" tickFormatter={tick} tick={{ fill: theme.muted, fontSize: 11 }} stroke={theme.grid} minTickGap={24} />
          <YAxis allowDecimals={false} domain={[0, yTicks.at(-1) ?? 1]} ticks={yTicks} interval={0} tick={{ fill: theme.muted, fontSize: 11 }} stroke={theme.grid} width={36} />
          <Tooltip
            cursor={{ fill: theme.cursor }}
            contentStyle={{ background: theme.tooltipBg, border: `1px solid ${theme.tooltipBorder}`, color: theme.text }}
            labelStyle={{ color: theme.text }}
            // Recharts paints an item in its series' colour, black where the bar has none (Cells): unreadable on the dark theme.
            itemStyle={{ color: theme.text }}
            labelFormatter={(label) => formatAbsolute(Number(label)).slice(0, 16)}
          />
          <Legend wrapperStyle={{ fontSize: 12, color: theme.text }} />
          {series.keys.map((key, i) => (
            <Bar key={key} dataKey={key} stackId="errors" fill={colorFor(key, i)} isAnimationActive={false} />
          ))}
          <Brush
            dataKey="start"
            height={24}
            stroke={theme.muted}
            fill={theme.brushFill}
            travellerWidth={8}
            tickFormatter={tick}
            ariaLabel={brushLabel(data, brush, tick)}
            onChange={(range: { startIndex?: number; endIndex?: number }) => {
              if (range.startIndex !== undefined && range.endIndex !== undefined) setBrush({ startIndex: range.startIndex, endIndex: range.endIndex });
            }}
          />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
