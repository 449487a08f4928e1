import { ZOOM_LEVELS, zoomFactor } from './timeline-view.js';

export interface TimelineControlsProps {
  zoom: number;
  onZoom: (level: number) => void;
  failedOnly: boolean;
  onFailedOnly: (on: boolean) => void;
  failedCount: number;
  taskCount: number;
}

/** Zoom out / in / fit and "Failed tasks only" above the retry timeline (also: Ctrl/⌘-wheel, + and −). */
export function TimelineControls({ zoom, onZoom, failedOnly, onFailedOnly, failedCount, taskCount }: TimelineControlsProps) {
  const factor = zoomFactor(zoom);
  return (
    <div className="timeline-controls" role="group" aria-label="Timeline view">
      <div className="zoom-buttons">
        <button
          type="button"
          className="small"
          onClick={() => onZoom(zoom - 1)}
          disabled={zoom <= 0}
          aria-label="Zoom out"
          title="Zoom out (−, or Ctrl/⌘ + wheel)"
        >
          −
        </button>
        <output className="zoom-level" aria-live="polite" aria-label="Zoom" data-testid="timeline-zoom">
          {Math.round(factor * 100)}%
        </output>
        <button
          type="button"
          className="small"
          onClick={() => onZoom(zoom + 1)}
          disabled={zoom >= ZOOM_LEVELS.length - 1}
          aria-label="Zoom in"
          title="Zoom in (+, or Ctrl/⌘ + wheel)"
        >
          +
        </button>
        <button type="button" className="small" onClick={() => onZoom(ZOOM_LEVELS.indexOf(1))} disabled={factor === 1}>
          Fit
        </button>
      </div>
      <label className="failed-only">
        <input type="checkbox" checked={failedOnly} onChange={(e) => onFailedOnly(e.currentTarget.checked)} disabled={failedCount === 0 && !failedOnly} />
        Failed tasks only{' '}
        <span className="muted">
          ({failedCount} of {taskCount})
        </span>
      </label>
    </div>
  );
}
