import type { ZoomSelection } from './geometry.js';

/**
 * The keyboard's way to zoom the series chart (the drawing takes a drag too): two named sliders
 * over the chart's buckets, each reading out the time it stands on. "From" never passes "to".
 */
export function ZoomControl({
  buckets,
  selection,
  timeOf,
  onSelect,
}: {
  buckets: number;
  selection: ZoomSelection;
  /** The start time of a bucket, as the slider reads it out. */
  timeOf: (index: number) => string;
  onSelect: (selection: ZoomSelection) => void;
}) {
  const last = Math.max(0, buckets - 1);
  return (
    <div className="zoom-control">
      <label>
        Zoom from
        <input
          type="range"
          min={0}
          max={last}
          step={1}
          value={selection.from}
          aria-valuetext={timeOf(selection.from)}
          onChange={(e) => {
            const from = Number(e.currentTarget.value);
            onSelect({ from: Math.min(from, selection.to), to: selection.to });
          }}
        />
      </label>
      <span className="zoom-time">{timeOf(selection.from)}</span>
      <label>
        Zoom to
        <input
          type="range"
          min={0}
          max={last}
          step={1}
          value={selection.to}
          aria-valuetext={timeOf(selection.to)}
          onChange={(e) => {
            const to = Number(e.currentTarget.value);
            onSelect({ from: selection.from, to: Math.max(to, selection.from) });
          }}
        />
      </label>
      <span className="zoom-time">{timeOf(selection.to)}</span>
    </div>
  );
}
