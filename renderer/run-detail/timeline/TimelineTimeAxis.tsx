import type { TimeTick } from './timeline-view.js';

/**
 * The time axis under the step bands: when each labelled attempt started, in wall time (time of
 * day) or, on a virtual clock, the run's own elapsed time — the row's name says which.
 */
export function TimelineTimeAxis({
  ticks,
  virtual,
  px,
  trackWidth,
}: {
  ticks: readonly TimeTick[];
  virtual: boolean;
  px: (x: number) => number;
  trackWidth: number;
}) {
  return (
    <div className="tl-row tl-axis tl-time-axis" role="row">
      <div className="tl-label" role="columnheader" title={virtual ? 'time on the run’s virtual clock, from its start' : 'time of day (wall clock)'}>
        {virtual ? 'Virtual time' : 'Wall time'}
      </div>
      <div className="tl-track" role="columnheader" style={{ width: trackWidth }} data-testid="timeline-time-axis">
        {ticks.map((tick) => (
          <span key={tick.x} className="tl-tick" style={{ left: px(tick.x) }} title={tick.title}>
            {tick.label}
          </span>
        ))}
      </div>
    </div>
  );
}
