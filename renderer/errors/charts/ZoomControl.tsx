import type { ZoomSelection } from './geometry.js';

/** One named slider over the chart's buckets, reading out the time it stands on. */
function ZoomSlider({
  label,
  last,
  value,
  timeOf,
  onChange,
}: {
  label: string;
  last: number;
  value: number;
  timeOf: (index: number) => string;
  onChange: (index: number) => void;
}) {
  return (
    <>
      <label>
        {label}
        <input
          type="range"
          min={0}
          max={last}
          step={1}
          value={value}
          aria-valuetext={timeOf(value)}
          onChange={(e) => onChange(Number(e.currentTarget.value))}
        />
      </label>
      <span className="zoom-time">{timeOf(value)}</span>
    </>
  );
}

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
      <ZoomSlider
        label="Zoom from"
        last={last}
        value={selection.from}
        timeOf={timeOf}
        onChange={(from) => onSelect({ from: Math.min(from, selection.to), to: selection.to })}
      />
      <ZoomSlider
        label="Zoom to"
        last={last}
        value={selection.to}
        timeOf={timeOf}
        onChange={(to) => onSelect({ from: selection.from, to: Math.max(to, selection.from) })}
      />
    </div>
  );
}
