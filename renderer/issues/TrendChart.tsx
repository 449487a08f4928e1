import { bucketLabel, bucketText, type TrendView } from './trend-words.js';

const WIDTH = 640;
const HEIGHT = 120;
const TOP = 14;
const AXIS = 16;

/**
 * An issue's events per bucket over the period (plain SVG; it switches to the screen's chart
 * library with the other charts). The drawing is hidden from screen readers: the table below it,
 * behind "Values", says the same. Each bar shows its time and count on hover; the busiest one is
 * labelled; the current bucket, still filling, is drawn hatched and labelled "so far".
 */
export function TrendChart({ trend }: { trend: TrendView }) {
  const n = trend.counts.length;
  const max = Math.max(1, ...trend.counts);
  const slot = WIDTH / Math.max(1, n);
  const bar = Math.max(1, slot - Math.min(4, slot * 0.25));
  const plot = HEIGHT - TOP - AXIS;
  const peak = trend.counts.indexOf(Math.max(...trend.counts));
  const labelEvery = Math.max(1, Math.ceil(n / 6));
  return (
    <figure className="issue-trend" data-testid="issue-trend">
      <svg className="svg-chart issue-trend-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden="true">
        <defs>
          <pattern id="issue-trend-partial" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="2" height="4" className="issue-trend-hatch" />
          </pattern>
        </defs>
        <line x1={0} x2={WIDTH} y1={TOP + plot} y2={TOP + plot} className="issue-trend-axis" />
        {trend.counts.map((count, i) => {
          const h = (count / max) * plot;
          const partial = trend.partial && i === n - 1;
          const x = i * slot + (slot - bar) / 2;
          return (
            <g key={i} data-partial={partial || undefined}>
              <rect x={x} y={TOP + plot - h} width={bar} height={Math.max(h, count > 0 ? 1 : 0)} className={partial ? 'issue-trend-bar partial' : 'issue-trend-bar'} fill={partial ? 'url(#issue-trend-partial)' : undefined}>
                <title>{bucketText(trend, i)}</title>
              </rect>
              {(i === peak && count > 0) || partial ? (
                <text x={x + bar / 2} y={TOP + plot - h - 3} textAnchor="middle" className="issue-trend-value">
                  {partial ? `${count} so far` : count}
                </text>
              ) : null}
              {i % labelEvery === 0 && (
                <text x={x} y={HEIGHT - 3} className="issue-trend-tick">
                  {bucketLabel(trend.start + i * trend.bucketMs, trend.bucketMs).slice(0, trend.bucketMs >= 86_400_000 ? 10 : 5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <details className="issue-trend-values">
        <summary>Values</summary>
        <table className="compact-table">
          <caption className="visually-hidden">Events per {trend.bucketMs >= 86_400_000 ? 'day' : 'hour'}</caption>
          <thead>
            <tr>
              <th scope="col">{trend.bucketMs >= 86_400_000 ? 'Day' : 'Hour'}</th>
              <th scope="col" className="num">
                Events
              </th>
            </tr>
          </thead>
          <tbody>
            {trend.counts.map((count, i) => (
              <tr key={i}>
                <td>
                  {bucketLabel(trend.start + i * trend.bucketMs, trend.bucketMs)}
                  {trend.partial && i === n - 1 ? ' (so far)' : ''}
                </td>
                <td className="num">{count.toLocaleString('en-US')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
