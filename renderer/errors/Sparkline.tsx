import { sparklinePoints } from './bins.js';

/** A tiny trend line (plain SVG): occurrences of a group across the window. */
export function Sparkline({ values, label }: { values: readonly number[] | null; label: string }) {
  const width = 96;
  const height = 22;
  if (!values) return <span className="sparkline-placeholder" aria-hidden="true" />;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <polyline points={sparklinePoints(values, width, height)} fill="none" strokeWidth="1.5" />
    </svg>
  );
}
