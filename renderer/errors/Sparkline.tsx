import { useState } from 'react';
import { bucketText, trendSummary, type TrendView } from '../issues/trend-words.js';

const WIDTH = 96;
const HEIGHT = 22;

/**
 * A tiny trend line (plain SVG) that carries its values: each bucket has its own hover target with
 * its time and count, and the whole line reads as one sentence to a screen reader (total, busiest
 * bucket, the current one so far). The current bucket, still filling, is a dashed segment to a
 * hollow point: never a finished bucket that seems to fall to zero. The hover targets are drawn
 * when the pointer first reaches the line: the Errors screen shows a hundred sparklines, and their
 * 2,400 titled targets were a good part of its first paint although only a pointer ever reads them.
 */
export function Sparkline({ trend, label }: { trend: TrendView | null; label: string }) {
  const [pointed, setPointed] = useState(false);
  if (!trend || trend.counts.length === 0) return <span className="sparkline-placeholder" aria-hidden="true" />;
  const n = trend.counts.length;
  const max = Math.max(1, ...trend.counts);
  const step = n === 1 ? 0 : WIDTH / (n - 1);
  const x = (i: number): number => i * step;
  const y = (v: number): number => HEIGHT - 2 - (v / max) * (HEIGHT - 4);
  const point = (i: number): string => `${x(i).toFixed(1)},${y(trend.counts[i] ?? 0).toFixed(1)}`;
  const finished = trend.partial ? n - 1 : n;
  const solid = Array.from({ length: finished }, (_, i) => point(i)).join(' ');
  const last = n - 1;
  const slot = n === 1 ? WIDTH : step;
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={trendSummary(trend, label)}
      data-testid="sparkline"
      onPointerEnter={pointed ? undefined : () => setPointed(true)}
    >
      {finished > 1 && <polyline points={solid} fill="none" strokeWidth="1.5" />}
      {trend.partial && n > 1 && (
        <polyline className="sparkline-partial" points={`${point(last - 1)} ${point(last)}`} fill="none" strokeWidth="1.5" strokeDasharray="2 2" />
      )}
      {trend.partial && <circle className="sparkline-now" cx={x(last)} cy={y(trend.counts[last] ?? 0)} r="2.2" />}
      {pointed &&
        trend.counts.map((_, i) => (
          <rect key={i} className="sparkline-hit" x={Math.max(0, x(i) - slot / 2)} y={0} width={slot} height={HEIGHT}>
            <title>{bucketText(trend, i)}</title>
          </rect>
        ))}
    </svg>
  );
}
