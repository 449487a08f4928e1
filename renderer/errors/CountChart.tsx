import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ErrorCount } from '../../core/service/api.js';
import { countTicks } from '../lib/axis-ticks.js';
import { colorFor, useChartTheme } from '../lib/theme.js';

/**
 * The category axis: 22 characters of an 11 px label (an upper-case code runs ~6.6 px a
 * character) fit its 170 px with the tick's offset; a longer one is shortened, the tooltip has it whole.
 */
const AXIS_WIDTH = 170;
const AXIS_CHARS = 22;

/** Horizontal bars of error counts by one dimension; a click filters by that bar's key. */
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
  const theme = useChartTheme();
  const data = counts.map((c) => ({ key: c.key, label: c.label ?? c.key, count: c.count }));
  const height = Math.max(120, data.length * 28 + 36);
  const valueTicks = countTicks(Math.max(0, ...data.map((d) => d.count)));
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
      {data.length === 0 ? (
        <p className="muted chart-empty">No errors.</p>
      ) : (
        <>
          {/* The text alternative: the same counts as a list a screen reader reads; the drawing is hidden from it. */}
          <ul className="visually-hidden" aria-label={`Errors by ${title}`}>
            {data.map((d) => (
              <li key={d.key}>
                {d.label}: {d.count.toLocaleString('en-US')}
              </li>
            ))}
          </ul>
          <div aria-hidden="true">
          <ResponsiveContainer width="100%" height={height}>
            <BarChart data={data} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 4 }} accessibilityLayer={false}>
              <CartesianGrid horizontal={false} stroke={theme.grid} />
              <XAxis type="number" allowDecimals={false} domain={[0, valueTicks.at(-1) ?? 1]} ticks={valueTicks} interval={0} tick={{ fill: theme.muted, fontSize: 11 }} stroke={theme.grid} />
              <YAxis
                type="category"
                dataKey="label"
                width={AXIS_WIDTH}
                tick={{ fill: theme.text, fontSize: 11 }}
                stroke={theme.grid}
                interval={0}
                tickFormatter={(v: string) => (v.length > AXIS_CHARS ? `${v.slice(0, AXIS_CHARS - 1)}…` : v)}
              />
              <Tooltip
                cursor={{ fill: theme.cursor }}
                contentStyle={{ background: theme.tooltipBg, border: `1px solid ${theme.tooltipBorder}`, color: theme.text }}
                labelStyle={{ color: theme.text }}
            // Recharts paints an item in its series' colour, black where the bar has none (Cells): unreadable on the dark theme.
            itemStyle={{ color: theme.text }}
                formatter={(value) => [String(value), 'errors']}
              />
              <Bar
                dataKey="count"
                isAnimationActive={false}
                cursor="pointer"
                onClick={(entry: unknown) => {
                  const key = (entry as { key?: string; payload?: { key?: string } }).payload?.key ?? (entry as { key?: string }).key;
                  if (key) onPick(key);
                }}
              >
                {data.map((d, i) => (
                  <Cell
                    key={d.key}
                    fill={byCategory ? colorFor(d.key, i) : theme.accent}
                    fillOpacity={selected && selected !== d.key ? 0.35 : 1}
                  />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
          </div>
        </>
      )}
    </figure>
  );
}
