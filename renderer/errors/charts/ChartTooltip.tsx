import { formatCount } from '../../lib/format.js';

export interface TooltipRow {
  label: string;
  count: number;
  color?: string;
}

/**
 * What a chart's hover shows: the whole label (or the bucket's time) and its counts, in plain
 * HTML themed by CSS custom properties, so it reads on both themes. recharts' Tooltip places it
 * beside the pointer (inside the chart's box) and renders it as its `content`.
 */
export function ChartTooltip({ title, rows }: { title: string; rows: readonly TooltipRow[] }) {
  return (
    <div className="chart-tooltip" role="tooltip">
      <div className="chart-tooltip-title">{title}</div>
      {rows.map((row) => (
        <div key={row.label} className="chart-tooltip-row">
          {row.color && <span className="chart-swatch" style={{ background: row.color }} />}
          <span>{row.label}</span>
          <span className="chart-tooltip-count">{formatCount(row.count)}</span>
        </div>
      ))}
    </div>
  );
}
