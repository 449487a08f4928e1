import { ChartSlot } from '../errors/charts/ChartSlot.js';
import { TREND_HEIGHT } from '../errors/charts/chart-sizes.js';
import { useCharts } from '../errors/charts/load-charts.js';
import { bucketLabel, type TrendView } from './trend-words.js';
import { formatCount } from '../lib/format.js';

/**
 * An issue's events per bucket over the period: recharts' bars (errors/charts/TrendBars.tsx, in
 * the charts' chunk, drawn once it is in) for the eye, and the same values as a table behind
 * "Values" for screen readers and for reading exactly; the current bucket is "so far" in both.
 */
export function TrendChart({ trend }: { trend: TrendView }) {
  const charts = useCharts();
  const n = trend.counts.length;
  const day = trend.bucketMs >= 86_400_000;
  return (
    <figure className="issue-trend" data-testid="issue-trend">
      <ChartSlot charts={charts} height={TREND_HEIGHT}>
        {({ TrendBars }) => <TrendBars trend={trend} />}
      </ChartSlot>
      <details className="issue-trend-values">
        <summary>Values</summary>
        <table className="compact-table">
          <caption className="visually-hidden">Events per {day ? 'day' : 'hour'}</caption>
          <thead>
            <tr>
              <th scope="col">{day ? 'Day' : 'Hour'}</th>
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
                <td className="num">{formatCount(count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
