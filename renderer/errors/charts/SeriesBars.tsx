import { useMemo, useRef, type MouseEvent } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Rectangle,
  ReferenceArea,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
  type TooltipContentProps,
  type XAxisTickContentProps,
  type YAxisTickContentProps,
} from 'recharts';
import type { ErrorSeries } from '../../../core/service/api.js';
import { countTicks, largestStack } from '../../lib/axis-ticks.js';
import { formatAbsolute } from '../../lib/format.js';
import { colorFor, useChartTheme, type ChartTheme } from '../../lib/theme.js';
import { useWidth } from '../../lib/use-width.js';
import { ChartTooltip } from './ChartTooltip.js';
import { SERIES_HEIGHT, SERIES_LABEL_ROOM as X_LABEL_ROOM, SERIES_PLOT_TOP as PLOT_TOP } from './chart-sizes.js';
import { axisCount, bucketAt, gridPositions, labelledBuckets, labelWidth, orderedSelection, type ZoomSelection } from './geometry.js';

const Y_AXIS_WIDTH = 44;
const RIGHT = 8;

type Point = ErrorSeries['points'][number];

/**
 * A drag across the bars selects a span of buckets. The pointer's bucket is worked out here from
 * the plot's box, so it never lags a throttled recharts event.
 */
function useBucketDrag(buckets: number, onSelect: (selection: ZoomSelection) => void) {
  const dragFrom = useRef<number | null>(null);
  const bucketOf = (event: MouseEvent<HTMLDivElement>): number => {
    const box = event.currentTarget.getBoundingClientRect();
    return bucketAt(event.clientX - box.left - Y_AXIS_WIDTH, box.width - Y_AXIS_WIDTH - RIGHT, buckets);
  };
  const endDrag = (): void => {
    dragFrom.current = null;
  };
  return {
    onMouseDown: (event: MouseEvent<HTMLDivElement>): void => {
      event.preventDefault();
      const at = bucketOf(event);
      dragFrom.current = at;
      onSelect({ from: at, to: at });
    },
    onMouseMove: (event: MouseEvent<HTMLDivElement>): void => {
      if (dragFrom.current !== null) onSelect(orderedSelection(dragFrom.current, bucketOf(event), buckets));
    },
    onMouseUp: endDrag,
    onMouseLeave: endDrag,
  };
}

/** A time label at the left edge of its bucket, with a short mark above it. */
function timeTickOf(theme: ChartTheme, tick: (ts: number) => string) {
  return ({ x, y, payload }: XAxisTickContentProps) => {
    const left = Number(x) - (payload.offset ?? 0);
    return (
      <g>
        <line x1={left} x2={left} y1={Number(y) - 8} y2={Number(y) - 4} stroke={theme.grid} />
        <text className="chart-tick" x={left} y={Number(y) + 8} textAnchor="start" fill={theme.muted}>
          {tick(Number(payload.value))}
        </text>
      </g>
    );
  };
}

function countTickOf(theme: ChartTheme, top: number) {
  return ({ x, y, payload }: YAxisTickContentProps) => (
    <text className="chart-tick" x={Number(x) - 2} y={y} textAnchor="end" dominantBaseline="central" fill={theme.muted}>
      {axisCount(Number(payload.value), top)}
    </text>
  );
}

/** A bar, faded when a selection leaves its bucket out. */
function barShapeOf(selection: ZoomSelection | null) {
  return (props: BarShapeProps) => {
    const dimmed = selection !== null && (props.index < selection.from || props.index > selection.to);
    return <Rectangle {...props} className="chart-bar" fillOpacity={dimmed ? 0.35 : 1} />;
  };
}

/** The hovered bucket's time and its count per category (the categories it has none of left out). */
function bucketTooltipOf(series: ErrorSeries) {
  return ({ active, payload }: TooltipContentProps) => {
    const point = payload?.[0]?.payload as Point | undefined;
    if (!active || !point) return null;
    const rows = series.keys.flatMap((key, k) =>
      (point.counts[key] ?? 0) > 0 ? [{ label: key, count: point.counts[key] ?? 0, color: colorFor(key, k) }] : [],
    );
    return <ChartTooltip title={formatAbsolute(point.start).slice(0, 16)} rows={rows} />;
  };
}

/**
 * Errors over time, stacked by category, drawn by recharts: fixed ticks on both axes (counts
 * from countTicks; one time label per as many buckets as a label's estimated width needs, from
 * the plot's width), labels as plain SVG text (nothing measured), no animation. A drag across
 * the bars selects a span (useBucketDrag); outside the selection the bars fade.
 */
export function SeriesBars({
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
  const [boxRef, width] = useWidth<HTMLDivElement>();
  const points = series.points;
  const buckets = points.length;
  const drag = useBucketDrag(buckets, onSelect);
  // From 0 up to the tallest stack, in whole steps (never 4000 … 8500, 0).
  const yTicks = useMemo(() => countTicks(largestStack(points)), [points]);
  const top = yTicks.at(-1) ?? 1;
  const plotWidth = Math.max(0, width - Y_AXIS_WIDTH - RIGHT);
  const xTicks = labelledBuckets(buckets, plotWidth, labelWidth(tick(points[0]?.start ?? 0))).map((i) => points[i]?.start ?? 0);
  const shape = barShapeOf(selection);

  return (
    <div className="series-chart" aria-hidden="true" ref={boxRef} {...drag}>
      <BarChart
        data={points as Point[]}
        responsive
        style={{ width: '100%', height: SERIES_HEIGHT }}
        margin={{ top: PLOT_TOP, right: RIGHT, bottom: 0, left: 0 }}
        barCategoryGap="20%"
        accessibilityLayer={false}
        cursor="crosshair"
      >
        <CartesianGrid
          vertical={false}
          stroke={theme.grid}
          verticalCoordinatesGenerator={() => []}
          horizontalCoordinatesGenerator={({ offset }) => gridPositions(yTicks, offset.top, offset.height, true)}
        />
        <XAxis
          dataKey="start"
          type="category"
          ticks={xTicks}
          interval={0}
          height={X_LABEL_ROOM}
          tick={timeTickOf(theme, tick)}
          tickLine={false}
          stroke={theme.grid}
        />
        <YAxis
          type="number"
          domain={[0, top]}
          ticks={yTicks}
          interval={0}
          width={Y_AXIS_WIDTH}
          tick={countTickOf(theme, top)}
          tickLine={false}
          axisLine={false}
          allowDataOverflow
        />
        <Tooltip content={bucketTooltipOf(series)} cursor={{ fill: theme.cursor }} isAnimationActive={false} />
        {selection && (
          <ReferenceArea x1={points[selection.from]?.start} x2={points[selection.to]?.start} fill={theme.cursor} fillOpacity={1} ifOverflow="hidden" />
        )}
        {series.keys.map((key, k) => (
          <Bar
            key={key}
            name={key}
            dataKey={(point: Point) => point.counts[key] ?? 0}
            stackId="errors"
            fill={colorFor(key, k)}
            isAnimationActive={false}
            shape={shape}
          />
        ))}
      </BarChart>
    </div>
  );
}
