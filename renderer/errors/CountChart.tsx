import { useState } from 'react';
import type { ErrorCount } from '../../core/service/api.js';
import { countTicks } from '../lib/axis-ticks.js';
import { colorFor, useChartTheme } from '../lib/theme.js';
import { ChartTooltip } from './charts/ChartTooltip.js';
import { axisCount, pct, shorten, tickAnchor } from './charts/geometry.js';

/**
 * The category axis: 22 characters of an 11 px label (an upper-case code runs ~6.6 px a
 * character) fit its 170 px with the tick's offset; a longer one is shortened, the tooltip has it whole.
 */
const AXIS_WIDTH = 170;
const AXIS_CHARS = 22;
const ROW = 28;
const BAR = 18;
const TOP = 4;
/** Room under the rows for the count axis' labels. */
const AXIS_ROOM = 24;

interface Row {
  key: string;
  label: string;
  count: number;
}

/** Horizontal bars of error counts by one dimension, in plain SVG; a click filters by that bar's key. */
export function CountChart({
  title,
  counts,
  selected,
  byCategory,
  onPick,
}: {
  title: string;
  counts: readonly ErrorCount[];
  selected: string;
  /** Colour bars by category (the category chart) instead of one accent colour. */
  byCategory?: boolean;
  onPick: (key: string) => void;
}) {
  const rows: Row[] = counts.map((c) => ({ key: c.key, label: c.label ?? c.key, count: c.count }));
  return (
    <figure className="chart-card" aria-label={`Errors by ${title}`}>
      <figcaption>
        By {title}
        {selected && (
          <button type="button" className="link" onClick={() => onPick(selected)}>
            clear
          </button>
        )}
      </figcaption>
      {rows.length === 0 ? (
        <p className="muted chart-empty">No errors.</p>
      ) : (
        <>
          {/* The text alternative: the same counts as a list a screen reader reads; the drawing is hidden from it. */}
          <ul className="visually-hidden" aria-label={`Errors by ${title}`}>
            {rows.map((d) => (
              <li key={d.key}>
                {d.label}: {d.count.toLocaleString('en-US')}
              </li>
            ))}
          </ul>
          <CountBars rows={rows} selected={selected} byCategory={byCategory ?? false} onPick={onPick} />
        </>
      )}
    </figure>
  );
}

function CountBars({ rows, selected, byCategory, onPick }: { rows: readonly Row[]; selected: string; byCategory: boolean; onPick: (key: string) => void }) {
  const theme = useChartTheme();
  const [hover, setHover] = useState<number | null>(null);
  const ticks = countTicks(Math.max(0, ...rows.map((d) => d.count)));
  const top = ticks.at(-1) ?? 1;
  const axisY = TOP + rows.length * ROW;
  const height = axisY + AXIS_ROOM;
  const rowY = (i: number): number => TOP + i * ROW;
  // The same hit area in the label column and the plot: hovering or clicking a label is the bar's.
  const hitRows = rows.map((d, i) => (
    <rect
      key={d.key}
      className="chart-hit"
      x={0}
      y={rowY(i)}
      width="100%"
      height={ROW}
      fill={hover === i ? theme.cursor : 'transparent'}
      onMouseEnter={() => setHover(i)}
      onClick={() => onPick(d.key)}
    />
  ));
  const hovered = hover === null ? undefined : rows[hover];
  return (
    <div className="bar-chart" onMouseLeave={() => setHover(null)}>
      <svg className="svg-chart bar-chart-labels" aria-hidden="true" width={AXIS_WIDTH} height={height}>
        {hitRows}
        {rows.map((d, i) => (
          <text key={d.key} className="chart-category" x={AXIS_WIDTH - 8} y={rowY(i) + ROW / 2} textAnchor="end" dominantBaseline="central" fill={theme.text}>
            {shorten(d.label, AXIS_CHARS)}
          </text>
        ))}
      </svg>
      <div className="chart-plot">
        <svg className="svg-chart" aria-hidden="true" width="100%" height={height}>
          {ticks.map((t) => (
            <line key={t} x1={pct(t / top)} x2={pct(t / top)} y1={TOP} y2={axisY} stroke={theme.grid} />
          ))}
          <line x1={0} x2="100%" y1={axisY} y2={axisY} stroke={theme.grid} />
          {hitRows}
          {rows.map((d, i) => (
            <rect
              key={d.key}
              className="chart-bar"
              data-key={d.key}
              x={0}
              y={rowY(i) + (ROW - BAR) / 2}
              width={pct(d.count / top)}
              height={BAR}
              fill={byCategory ? colorFor(d.key, i) : theme.accent}
              fillOpacity={selected && selected !== d.key ? 0.35 : 1}
              pointerEvents="none"
            />
          ))}
          {ticks.map((t, i) => (
            <text key={t} className="chart-tick" x={pct(t / top)} y={axisY + 15} textAnchor={tickAnchor(i, ticks.length)} fill={theme.muted}>
              {axisCount(t, ticks.at(-1))}
            </text>
          ))}
        </svg>
        {hovered && hover !== null && <ChartTooltip x={hovered.count / top} top={rowY(hover) + ROW} title={hovered.label} rows={[{ label: 'errors', count: hovered.count }]} />}
      </div>
    </div>
  );
}
