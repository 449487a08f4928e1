import { useState } from 'react';
import type { Bucket, ErrorSeries } from '../../core/service/api.js';
import { formatAbsolute } from '../lib/format.js';
import { colorFor } from '../lib/theme.js';
import { BUCKET_MS } from './bins.js';
import { seriesSummary } from './chart-text.js';
import { ChartSlot } from './charts/ChartSlot.js';
import { SERIES_HEIGHT } from './charts/chart-sizes.js';
import { narrows, zoomWindow, type ZoomSelection } from './charts/geometry.js';
import { useCharts } from './charts/load-charts.js';
import { ZoomControl } from './charts/ZoomControl.js';

function tickOf(bucket: Bucket): (ts: number) => string {
  return (ts) => {
    const text = formatAbsolute(ts);
    return bucket === 'day' ? text.slice(5, 10) : bucket === 'hour' ? `${text.slice(5, 10)} ${text.slice(11, 13)}h` : text.slice(11, 16);
  };
}

/**
 * Errors over time, stacked by category: a one-sentence summary for screen readers, recharts'
 * stacked bars (charts/SeriesBars.tsx, loaded apart) for the eye, an HTML legend, and the two
 * "Zoom" sliders. Dragging over the bars or moving the sliders selects a span; "Zoom to
 * selection" makes it the page's time window (in the URL).
 */
export function SeriesChart({ series, onZoom }: { series: ErrorSeries; onZoom: (since: number, until: number) => void }) {
  // The selection belongs to the series it was made on: a new answer starts unselected.
  const [picked, setPicked] = useState<{ series: ErrorSeries; selection: ZoomSelection } | null>(null);
  const charts = useCharts();
  const buckets = series.points.length;
  if (buckets === 0) return <p className="muted chart-empty">No errors in this window.</p>;

  const tick = tickOf(series.bucket);
  const full = { from: 0, to: buckets - 1 };
  const selection = picked?.series === series ? picked.selection : full;
  const narrowed = narrows(selection, buckets) ? selection : null;
  const select = (next: ZoomSelection): void => setPicked({ series, selection: next });
  const starts = series.points.map((p) => p.start);
  const zoom = (): void => {
    const span = narrowed && zoomWindow(starts, narrowed, BUCKET_MS[series.bucket]);
    if (span) onZoom(span.since, span.until);
  };

  return (
    <figure className="chart-card chart-wide" aria-label="Errors over time by category">
      <figcaption>
        Over time, by {series.stackBy} <span className="muted">(one bar per {series.bucket})</span>
        {narrowed && (
          <button type="button" className="small primary" onClick={zoom}>
            Zoom to selection
          </button>
        )}
      </figcaption>
      {/* The text alternative of the bars; the drawing is hidden from screen readers, the zoom sliders are not. */}
      <p className="visually-hidden">{seriesSummary(series)}</p>
      <ChartSlot charts={charts} height={SERIES_HEIGHT}>
        {({ SeriesBars }) => <SeriesBars series={series} tick={tick} selection={narrowed} onSelect={select} />}
      </ChartSlot>
      <ul className="chart-legend">
        {series.keys.map((key, i) => (
          <li key={key}>
            <span className="chart-swatch" style={{ background: colorFor(key, i) }} />
            {key}
          </li>
        ))}
      </ul>
      <ZoomControl buckets={buckets} selection={selection} timeOf={(i) => formatAbsolute(starts[i] ?? 0).slice(0, 16)} onSelect={select} />
    </figure>
  );
}
