import type { ErrorCount } from '../../core/service/api.js';
import { ChartSlot } from './charts/ChartSlot.js';
import { countChartHeight } from './charts/chart-sizes.js';
import { useCharts } from './charts/load-charts.js';
import { formatCount } from '../lib/format.js';

/**
 * A card of error counts by one dimension: the counts as a list for screen readers, and
 * recharts' horizontal bars (charts/CountBars.tsx, loaded apart) for the eye; a click on a bar
 * filters by its key, "clear" (or a second click) clears it.
 */
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
  const charts = useCharts();
  const rows = counts.map((c) => ({ key: c.key, label: c.label ?? c.key, count: c.count }));
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
                {d.label}: {formatCount(d.count)}
              </li>
            ))}
          </ul>
          <ChartSlot charts={charts} height={countChartHeight(rows.length)}>
            {({ CountBars }) => <CountBars rows={rows} selected={selected} byCategory={byCategory ?? false} onPick={onPick} />}
          </ChartSlot>
        </>
      )}
    </figure>
  );
}
