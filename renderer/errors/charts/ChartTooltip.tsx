import { pct } from './geometry.js';

export interface TooltipRow {
  label: string;
  count: number;
  color?: string;
}

/**
 * The hover tooltip of a chart: plain HTML over the drawing (themed by CSS custom properties, so it
 * reads on both themes), placed by percentages of the chart's box. Past the middle it opens to the
 * left of its point so it stays inside the card.
 */
export function ChartTooltip({ x, top, title, rows }: { x: number; top: number; title: string; rows: readonly TooltipRow[] }) {
  const toLeft = x > 0.5;
  return (
    <div className="chart-tooltip" role="tooltip" style={{ left: pct(x), top, transform: toLeft ? 'translateX(-100%)' : undefined }}>
      <div className="chart-tooltip-title">{title}</div>
      {rows.map((row) => (
        <div key={row.label} className="chart-tooltip-row">
          {row.color && <span className="chart-swatch" style={{ background: row.color }} />}
          <span>{row.label}</span>
          <span className="chart-tooltip-count">{row.count.toLocaleString('en-US')}</span>
        </div>
      ))}
    </div>
  );
}
