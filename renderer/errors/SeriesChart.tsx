import { useMemo, useRef, useState } from 'react';
import type { Bucket, ErrorSeries } from '../../core/service/api.js';
import { countTicks, largestStack } from '../lib/axis-ticks.js';
import { formatAbsolute } from '../lib/format.js';
import { colorFor, useChartTheme, type ChartTheme } from '../lib/theme.js';
import { useWidth } from '../lib/use-width.js';
import { BUCKET_MS } from './bins.js';
import { seriesSummary } from './chart-text.js';
import { ChartTooltip } from './charts/ChartTooltip.js';
import { axisCount, labelledBuckets, labelWidth, narrows, orderedSelection, pct, stackSegments, zoomWindow, type ZoomSelection } from './charts/geometry.js';
import { ZoomControl } from './charts/ZoomControl.js';

const Y_AXIS_WIDTH = 44;
const PLOT_TOP = 8;
const PLOT_HEIGHT = 200;
const X_LABEL_ROOM = 24;
const HEIGHT = PLOT_TOP + PLOT_HEIGHT + X_LABEL_ROOM;
/** The share of a bucket's width its bar fills (the rest is the gap between bars). */
const BAR_SHARE = 0.8;

function tickOf(bucket: Bucket): (ts: number) => string {
  return (ts) => {
    const text = formatAbsolute(ts);
    return bucket === 'day' ? text.slice(5, 10) : bucket === 'hour' ? `${text.slice(5, 10)} ${text.slice(11, 13)}h` : text.slice(11, 16);
  };
}

/**
 * Errors over time, stacked by category, in plain SVG. Dragging over the bars or the two "Zoom"
 * sliders selects a span; "Zoom to selection" makes it the page's time window (in the URL).
 */
export function SeriesChart({ series, onZoom }: { series: ErrorSeries; onZoom: (since: number, until: number) => void }) {
  // The selection belongs to the series it was made on: a new answer starts unselected.
  const [picked, setPicked] = useState<{ series: ErrorSeries; selection: ZoomSelection } | null>(null);
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
      <SeriesBars series={series} tick={tick} selection={narrowed} onSelect={select} />
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

function SeriesBars({
  series,
  tick,
  selection,
  onSelect,
}: {
  series: ErrorSeries;
  tick: (ts: number) => string;
  selection: ZoomSelection | null;
  onSelect: (selection: ZoomSelection) => void;
}) {
  const theme = useChartTheme();
  const [plotRef, width] = useWidth<HTMLDivElement>();
  const [hover, setHover] = useState<number | null>(null);
  const dragFrom = useRef<number | null>(null);
  const points = series.points;
  const buckets = points.length;
  // From 0 up to the tallest stack, in whole steps (issue 24: never 4000 … 8500, 0).
  const yTicks = useMemo(() => countTicks(largestStack(points)), [points]);
  const top = yTicks.at(-1) ?? 1;
  const yOf = (count: number): number => PLOT_TOP + PLOT_HEIGHT - (count / top) * PLOT_HEIGHT;
  const labelled = labelledBuckets(buckets, width, labelWidth(tick(points[0]?.start ?? 0)));
  const hovered = hover === null ? undefined : points[hover];
  const endDrag = (): void => {
    dragFrom.current = null;
  };

  return (
    <div className="series-chart" onMouseLeave={() => setHover(null)}>
      <svg className="svg-chart" aria-hidden="true" width={Y_AXIS_WIDTH} height={HEIGHT}>
        {yTicks.map((t) => (
          <text key={t} className="chart-tick" x={Y_AXIS_WIDTH - 6} y={yOf(t)} textAnchor="end" dominantBaseline="central" fill={theme.muted}>
            {axisCount(t, yTicks.at(-1))}
          </text>
        ))}
      </svg>
      <div className="chart-plot" ref={plotRef}>
        <svg className="svg-chart" aria-hidden="true" width="100%" height={HEIGHT} onMouseUp={endDrag} onMouseLeave={endDrag}>
          {yTicks.map((t) => (
            <line key={t} x1={0} x2="100%" y1={yOf(t)} y2={yOf(t)} stroke={theme.grid} />
          ))}
          {selection && <rect x={pct(selection.from / buckets)} y={PLOT_TOP} width={pct((selection.to - selection.from + 1) / buckets)} height={PLOT_HEIGHT} fill={theme.cursor} />}
          {hover !== null && <rect x={pct(hover / buckets)} y={PLOT_TOP} width={pct(1 / buckets)} height={PLOT_HEIGHT} fill={theme.cursor} />}
          {points.map((p, i) => (
            <StackedBar key={p.start} counts={p.counts} keys={series.keys} index={i} buckets={buckets} top={top} dimmed={selection !== null && (i < selection.from || i > selection.to)} />
          ))}
          {points.map((p, i) => (
            <rect
              key={p.start}
              className="chart-hit"
              x={pct(i / buckets)}
              y={PLOT_TOP}
              width={pct(1 / buckets)}
              height={PLOT_HEIGHT}
              fill="transparent"
              onMouseEnter={() => {
                setHover(i);
                if (dragFrom.current !== null) onSelect(orderedSelection(dragFrom.current, i, buckets));
              }}
              onMouseDown={(e) => {
                e.preventDefault();
                dragFrom.current = i;
                onSelect({ from: i, to: i });
              }}
            />
          ))}
          <TimeLabels starts={labelled.map((i) => points[i]?.start ?? 0)} indexes={labelled} buckets={buckets} tick={tick} theme={theme} />
        </svg>
        {hovered && hover !== null && (
          <ChartTooltip
            x={(hover + 0.5) / buckets}
            top={0}
            title={formatAbsolute(hovered.start).slice(0, 16)}
            rows={series.keys.flatMap((key, k) => ((hovered.counts[key] ?? 0) > 0 ? [{ label: key, count: hovered.counts[key] ?? 0, color: colorFor(key, k) }] : []))}
          />
        )}
      </div>
    </div>
  );
}

/** One bucket's bar: its categories stacked bottom up in the legend's order. */
function StackedBar({ counts, keys, index, buckets, top, dimmed }: { counts: Readonly<Record<string, number>>; keys: readonly string[]; index: number; buckets: number; top: number; dimmed: boolean }) {
  const x = pct((index + (1 - BAR_SHARE) / 2) / buckets);
  const width = pct(BAR_SHARE / buckets);
  return (
    <g className="chart-stack" fillOpacity={dimmed ? 0.35 : 1} pointerEvents="none">
      {stackSegments(counts, keys, top, PLOT_HEIGHT).map((s) => (
        <rect key={s.key} className="chart-bar" data-key={s.key} x={x} y={PLOT_TOP + s.y} width={width} height={s.height} fill={colorFor(s.key, keys.indexOf(s.key))} />
      ))}
    </g>
  );
}

/** Time labels under the chosen buckets, each starting at its bucket's left edge over a short tick. */
function TimeLabels({ starts, indexes, buckets, tick, theme }: { starts: readonly number[]; indexes: readonly number[]; buckets: number; tick: (ts: number) => string; theme: ChartTheme }) {
  const axisY = PLOT_TOP + PLOT_HEIGHT;
  return (
    <g>
      <line x1={0} x2="100%" y1={axisY} y2={axisY} stroke={theme.grid} />
      {indexes.map((i, n) => (
        <g key={i}>
          <line x1={pct(i / buckets)} x2={pct(i / buckets)} y1={axisY} y2={axisY + 4} stroke={theme.grid} />
          <text className="chart-tick" x={pct(i / buckets)} y={axisY + 16} textAnchor="start" fill={theme.muted}>
            {tick(starts[n] ?? 0)}
          </text>
        </g>
      ))}
    </g>
  );
}
