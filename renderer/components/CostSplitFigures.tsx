import type { CostSplitAnswerView, CostSplitView } from '../../core/service/api.js';
import { formatUsd, reportedNothing } from '../../core/common/usage-format.js';
import { amountText, splitTotal } from '../lib/cost-format.js';
import { formatAbsolute } from '../lib/format.js';

/**
 * What failure costs, as the Errors header and the Flows screen show it (docs/triage.md "What
 * failure costs"): spent by runs that ended failed, on failed attempts of runs that did not
 * (retried), and by successful work, and a small trend of the three over the period.
 */

const HELP = {
  failed: 'everything spent by runs that ended failed',
  retried: 'failed attempts of runs that did not end failed: they recovered, were caught, are still running, or were cancelled',
  succeeded: 'successful attempts of runs that did not end failed',
};

/**
 * "$14.08 failed runs · $4.01 retried · $30.00 successful". `withSuccess` false: an error filter
 * is on, and successful work has no error, so it is not part of the answer.
 */
export function CostSplitFigures({ split, withSuccess = true }: { split: CostSplitView; withSuccess?: boolean }) {
  return (
    <span className="cost-split" data-testid="cost-split">
      <span className="cost-part cost-part-failed" title={HELP.failed} data-testid="cost-failed">
        <strong>{amountText(split.failed)}</strong> failed runs
      </span>
      {' · '}
      <span className="cost-part" title={HELP.retried} data-testid="cost-retried">
        <strong>{amountText(split.retried)}</strong> retried
      </span>
      {withSuccess && (
        <>
          {' · '}
          <span className="cost-part" title={HELP.succeeded} data-testid="cost-succeeded">
            <strong>{amountText(split.succeeded)}</strong> successful
          </span>
        </>
      )}
    </span>
  );
}

/** Whether a split has anything to show (some attempt reported tokens or a cost). */
export function hasSpend(split: CostSplitView): boolean {
  return !reportedNothing(splitTotal(split));
}

/**
 * The three per bucket, stacked (failed runs, retried, successful from the bottom), the newest
 * at the right; without successful work under an error filter. Its summary is its label; each
 * bar's figures are its tooltip.
 */
export function CostTrend({ trend, withSuccess = true }: { trend: CostSplitAnswerView['trend']; withSuccess?: boolean }) {
  const points = withSuccess ? trend.points : trend.points.map((p) => ({ ...p, succeeded: 0 }));
  if (points.length < 2) return null;
  const width = 120;
  const height = 22;
  const max = Math.max(...points.map((p) => p.failed + p.retried + p.succeeded));
  if (max === 0) return null;
  const step = width / points.length;
  const scale = (v: number): number => (v / max) * (height - 1);
  const label = (at: number): string => formatAbsolute(at).slice(0, trend.grain === 'day' ? 10 : 16);
  const peak = points.reduce((best, p) => (p.failed + p.retried + p.succeeded > best.failed + best.retried + best.succeeded ? p : best));
  const summary = `cost per ${trend.grain} over the period, highest ${formatUsd(peak.failed + peak.retried + peak.succeeded)} (${label(peak.at)})`;
  return (
    <svg className="cost-trend" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} data-testid="cost-trend">
      <line className="base" x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} />
      {points.map((p, i) => {
        const x = i * step;
        const w = Math.max(1, step - 1);
        const failed = scale(p.failed);
        const retried = scale(p.retried);
        const succeeded = scale(p.succeeded);
        return (
          <g key={p.at}>
            <title>{`${label(p.at)}: ${formatUsd(p.failed)} failed runs, ${formatUsd(p.retried)} retried${withSuccess ? `, ${formatUsd(p.succeeded)} successful` : ''}`}</title>
            <rect className="succeeded" x={x} width={w} y={height - failed - retried - succeeded} height={succeeded} />
            <rect className="retried" x={x} width={w} y={height - failed - retried} height={retried} />
            <rect className="failed" x={x} width={w} y={height - failed} height={failed} />
          </g>
        );
      })}
    </svg>
  );
}
