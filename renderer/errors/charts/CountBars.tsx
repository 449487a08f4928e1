import type { MouseEvent } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Rectangle,
  Tooltip,
  XAxis,
  YAxis,
  type BarShapeProps,
  type TooltipContentProps,
  type XAxisTickContentProps,
  type YAxisTickContentProps,
} from 'recharts';
import { countTicks } from '../../lib/axis-ticks.js';
import { colorFor, useChartTheme } from '../../lib/theme.js';
import { ChartTooltip } from './ChartTooltip.js';
import { COUNT_AXIS_ROOM as AXIS_ROOM, COUNT_BAR as BAR, COUNT_ROW as ROW, COUNT_TOP as TOP, countChartHeight } from './chart-sizes.js';
import { axisCount, bucketAt, gridPositions, shorten, tickAnchor } from './geometry.js';

/**
 * The category axis: 22 characters of an 11 px label (an upper-case code runs ~6.6 px a
 * character) fit its 170 px with the tick's offset; a longer one is shortened, the tooltip has it whole.
 */
const AXIS_WIDTH = 170;
const AXIS_CHARS = 22;

export interface CountRow {
  key: string;
  label: string;
  count: number;
}

/**
 * Horizontal bars of error counts by one dimension, drawn by recharts: fixed ticks (countTicks,
 * every one shown), labels drawn as plain SVG text (nothing measured), no animation. A click on
 * a bar's row, its label included, filters by that key. Hidden from screen readers: the card
 * holds the same counts as a list.
 */
export function CountBars({
  rows,
  selected,
  byCategory,
  onPick,
}: {
  rows: readonly CountRow[];
  selected: string;
  byCategory: boolean;
  onPick: (key: string) => void;
}) {
  const theme = useChartTheme();
  const ticks = countTicks(Math.max(0, ...rows.map((d) => d.count)));
  const top = ticks.at(-1) ?? 1;
  const labels = new Map(rows.map((row) => [row.key, row.label]));
  // A click anywhere on a row's band, its label included, is that row's: worked out here from
  // the box, not from recharts' last (throttled) pointer position.
  const plotHeight = rows.length * ROW;
  const pickAt = (event: MouseEvent<HTMLDivElement>): void => {
    const y = event.clientY - event.currentTarget.getBoundingClientRect().top - TOP;
    const row = y >= 0 && y < plotHeight ? rows[bucketAt(y, plotHeight, rows.length)] : undefined;
    if (row) onPick(row.key);
  };
  const countTick = ({ x, y, index, payload }: XAxisTickContentProps) => (
    <text className="chart-tick" x={x} y={Number(y) + 12} textAnchor={tickAnchor(index, ticks.length)} fill={theme.muted}>
      {axisCount(Number(payload.value), top)}
    </text>
  );
  const labelTick = ({ x, y, payload }: YAxisTickContentProps) => (
    <text className="chart-category" x={Number(x) - 4} y={y} textAnchor="end" dominantBaseline="central" fill={theme.text}>
      {shorten(labels.get(String(payload.value)) ?? String(payload.value), AXIS_CHARS)}
    </text>
  );
  const shape = (props: BarShapeProps) => {
    const key = rows[props.index]?.key ?? '';
    return (
      <Rectangle
        {...props}
        className="chart-bar"
        fill={byCategory ? colorFor(key, props.index) : theme.accent}
        fillOpacity={selected && selected !== key ? 0.35 : 1}
      />
    );
  };
  const tooltip = ({ active, payload }: TooltipContentProps) => {
    const row = payload?.[0]?.payload as CountRow | undefined;
    return active && row ? <ChartTooltip title={row.label} rows={[{ label: 'errors', count: row.count }]} /> : null;
  };
  return (
    <div className="count-chart" aria-hidden="true" onClick={pickAt}>
      <BarChart
        layout="vertical"
        data={rows as CountRow[]}
        responsive
        style={{ width: '100%', height: countChartHeight(rows.length) }}
        margin={{ top: TOP, right: 12, bottom: 0, left: 0 }}
        barCategoryGap={ROW - BAR}
        accessibilityLayer={false}
        cursor="pointer"
      >
        <CartesianGrid
          horizontal={false}
          stroke={theme.grid}
          horizontalCoordinatesGenerator={() => []}
          verticalCoordinatesGenerator={({ offset }) => gridPositions(ticks, offset.left, offset.width)}
        />
        <XAxis
          type="number"
          domain={[0, top]}
          ticks={ticks}
          interval={0}
          height={AXIS_ROOM}
          tick={countTick}
          tickLine={false}
          stroke={theme.grid}
          allowDataOverflow
        />
        <YAxis type="category" dataKey="key" width={AXIS_WIDTH} interval={0} tick={labelTick} tickLine={false} axisLine={false} />
        <Tooltip content={tooltip} cursor={{ fill: theme.cursor }} isAnimationActive={false} />
        <Bar dataKey="count" barSize={BAR} isAnimationActive={false} shape={shape} />
      </BarChart>
    </div>
  );
}
