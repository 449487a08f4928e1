import {
  Bar,
  BarChart,
  CartesianGrid,
  LabelList,
  Rectangle,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
  type LabelProps,
  type TooltipContentProps,
  type XAxisTickContentProps,
  type YAxisTickContentProps,
} from 'recharts';
import { bucketLabel, type TrendView } from '../../issues/trend-words.js';
import { countTicks } from '../../lib/axis-ticks.js';
import { useChartTheme } from '../../lib/theme.js';
import { useWidth } from '../../lib/use-width.js';
import { ChartTooltip } from './ChartTooltip.js';
import { TREND_HEIGHT, TREND_LABEL_ROOM as X_LABEL_ROOM, TREND_PLOT_TOP as PLOT_TOP } from './chart-sizes.js';
import { axisCount, gridPositions, labelledBuckets, labelWidth } from './geometry.js';
import { formatCount } from '../../lib/format.js';

const Y_AXIS_WIDTH = 40;
const RIGHT = 8;

interface TrendPoint {
  index: number;
  start: number;
  count: number;
  /** The current bucket, still filling. */
  partial: boolean;
  /** The value written above the bar: the busiest bucket's, and the current one's "so far". */
  label: string;
}

function trendPoints(trend: TrendView): TrendPoint[] {
  const last = trend.counts.length - 1;
  const peak = trend.counts.indexOf(Math.max(...trend.counts));
  return trend.counts.map((count, index) => {
    const partial = trend.partial && index === last;
    const label = partial ? `${formatCount(count)} so far` : index === peak && count > 0 ? formatCount(count) : '';
    return { index, start: trend.start + index * trend.bucketMs, count, partial, label };
  });
}

/**
 * An issue's events per bucket over the period, drawn by recharts as the Errors charts are:
 * fixed ticks, labels as plain SVG text (nothing measured), no animation. The busiest bucket
 * carries its value; the current bucket, still filling, is drawn faint with a dashed outline and
 * labelled "so far", so it never reads as a finished drop. Hover shows any bucket's time and
 * count. Hidden from screen readers: the page holds the same values as a table.
 */
export function TrendBars({ trend }: { trend: TrendView }) {
  const theme = useChartTheme();
  const [boxRef, width] = useWidth<HTMLDivElement>();
  const points = trendPoints(trend);
  const yTicks = countTicks(Math.max(0, ...trend.counts));
  const top = yTicks.at(-1) ?? 1;
  const plotWidth = Math.max(0, width - Y_AXIS_WIDTH - RIGHT);
  const day = trend.bucketMs >= 86_400_000;
  const tickText = (start: number): string => bucketLabel(start, trend.bucketMs).slice(0, day ? 10 : 5);
  const xTicks = labelledBuckets(points.length, plotWidth, labelWidth(tickText(trend.start))).map((i) => points[i]?.start ?? 0);

  const timeTick = ({ x, y, payload }: XAxisTickContentProps) => {
    const left = Number(x) - (payload.offset ?? 0);
    return (
      <text className="chart-tick" x={left} y={Number(y) + 8} textAnchor="start" fill={theme.muted}>
        {tickText(Number(payload.value))}
      </text>
    );
  };
  const countTick = ({ x, y, payload }: YAxisTickContentProps) => (
    <text className="chart-tick" x={Number(x) - 2} y={y} textAnchor="end" dominantBaseline="central" fill={theme.muted}>
      {axisCount(Number(payload.value), top)}
    </text>
  );
  const shape = (props: BarShapeProps) => {
    const partial = points[props.index]?.partial ?? false;
    return (
      <Rectangle
        {...props}
        className={partial ? 'chart-bar trend-partial' : 'chart-bar'}
        fill={theme.accent}
        fillOpacity={partial ? 0.35 : 1}
        stroke={partial ? theme.accent : undefined}
        strokeDasharray={partial ? '3 2' : undefined}
      />
    );
  };
  const valueLabel = ({ x, y, width: barWidth, value }: LabelProps) =>
    value ? (
      <text className="chart-tick trend-value" x={Number(x) + Number(barWidth) / 2} y={Number(y) - 4} textAnchor="middle" fill={theme.text}>
        {String(value)}
      </text>
    ) : null;
  const tooltip = ({ active, payload }: TooltipContentProps) => {
    const point = payload?.[0]?.payload as TrendPoint | undefined;
    if (!active || !point) return null;
    return (
      <ChartTooltip
        title={`${bucketLabel(point.start, trend.bucketMs)}${point.partial ? ' (so far)' : ''}`}
        rows={[{ label: point.partial ? 'events so far' : 'events', count: point.count }]}
      />
    );
  };

  return (
    <div className="series-chart trend-chart" aria-hidden="true" ref={boxRef} data-testid="trend-bars">
      <BarChart
        data={points}
        responsive
        style={{ width: '100%', height: TREND_HEIGHT }}
        margin={{ top: PLOT_TOP, right: RIGHT, bottom: 0, left: 0 }}
        barCategoryGap="20%"
        accessibilityLayer={false}
      >
        <CartesianGrid
          vertical={false}
          stroke={theme.grid}
          verticalCoordinatesGenerator={() => []}
          horizontalCoordinatesGenerator={({ offset }) => gridPositions(yTicks, offset.top, offset.height, true)}
        />
        <XAxis dataKey="start" type="category" ticks={xTicks} interval={0} height={X_LABEL_ROOM} tick={timeTick} tickLine={false} stroke={theme.grid} />
        <YAxis
          type="number"
          domain={[0, top]}
          ticks={yTicks}
          interval={0}
          width={Y_AXIS_WIDTH}
          tick={countTick}
          tickLine={false}
          axisLine={false}
          allowDataOverflow
        />
        <Tooltip content={tooltip} cursor={{ fill: theme.cursor }} isAnimationActive={false} />
        <Bar dataKey="count" isAnimationActive={false} shape={shape} minPointSize={(value) => (Number(value) > 0 ? 1 : 0)}>
          <LabelList dataKey="label" content={valueLabel} />
        </Bar>
      </BarChart>
    </div>
  );
}
