import type { ReactNode } from 'react';
import type { ChartsState } from './load-charts.js';

/**
 * Where a chart draws: recharts' drawing once its chunk is in, and until then an empty box of
 * the drawing's height (the numbers beside it are already there). A chunk that would not load
 * says so, with Try again; the card's text alternative and controls work without it.
 */
export function ChartSlot({
  charts,
  height,
  children,
}: {
  charts: ChartsState;
  height: number;
  children: (ready: Extract<ChartsState, { state: 'ready' }>['charts']) => ReactNode;
}) {
  if (charts.state === 'ready') return <>{children(charts.charts)}</>;
  return (
    <div className="chart-pending" style={{ height }} data-state={charts.state}>
      {charts.state === 'failed' && (
        <p className="muted">
          The chart could not be loaded.{' '}
          <button type="button" className="link" onClick={charts.retry}>
            Try again
          </button>
        </p>
      )}
    </div>
  );
}
