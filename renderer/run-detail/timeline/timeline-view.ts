import type { TaskView } from '../../../core/service/api.js';
import { formatAbsolute, formatDuration } from '../../lib/format.js';
import type { TimelineRow } from './timeline-layout.js';

/**
 * What the operator changes about the retry timeline of a large run: the zoom, which
 * tasks it shows, the time axis's labels, and where the arrow keys move inside it.
 */

/** Zoom factors over the fitted scale; 1 is the fitted timeline. */
export const ZOOM_LEVELS = [0.25, 0.5, 1, 2, 4, 8] as const;
export const FITTED_ZOOM = ZOOM_LEVELS.indexOf(1);

/** One step in or out, held at the ends. */
export function zoomStep(level: number, direction: 1 | -1): number {
  return Math.max(0, Math.min(ZOOM_LEVELS.length - 1, level + direction));
}

export function zoomFactor(level: number): number {
  return ZOOM_LEVELS[Math.max(0, Math.min(ZOOM_LEVELS.length - 1, level))] as number;
}

/** "Failed tasks only": tasks whose outcome is failed (retried-then-succeeded ones are not). */
export function isFailedTask(task: TaskView): boolean {
  return task.status === 'failed';
}

export function shownRows(rows: readonly TimelineRow[], failedOnly: boolean): readonly TimelineRow[] {
  return failedOnly ? rows.filter((r) => isFailedTask(r.task)) : rows;
}

export interface TimeTick {
  /** Layout units (px at scale 1), as the segments' `x`. */
  x: number;
  label: string;
  /** The full time, for the tooltip. */
  title: string;
}

/**
 * Labels for the time axis. The axis is compressed (timeline-layout.ts), so ticks sit on the
 * instants it places — attempt starts — not at even times: each says when it is. Wall time
 * (time of day) on a real clock; on a virtual clock the run's own elapsed time ("+1m 30s").
 * Ticks closer than `minGapPx` (at the drawn scale) to the one before are left out.
 */
export function timeTicks(rows: readonly TimelineRow[], options: { t0: number; virtual: boolean; scale: number; minGapPx: number }): TimeTick[] {
  const instants = new Map<number, number>();
  for (const row of rows) {
    for (const s of row.segments) {
      if (s.kind !== 'attempt') continue;
      const seen = instants.get(s.x);
      if (seen === undefined || s.start < seen) instants.set(s.x, s.start);
    }
  }
  const ticks: TimeTick[] = [];
  let lastPx = Number.NEGATIVE_INFINITY;
  let lastT = Number.NEGATIVE_INFINITY;
  for (const [x, t] of [...instants].sort((a, b) => a[0] - b[0])) {
    // Never backwards in time, never crowded.
    if (x * options.scale - lastPx < options.minGapPx || t < lastT) continue;
    ticks.push({
      x,
      label: options.virtual ? `+${formatDuration(t - options.t0)}` : formatAbsolute(t).slice(11, 19),
      title: options.virtual ? `${formatDuration(t - options.t0)} into the run, on its virtual clock` : formatAbsolute(t),
    });
    lastPx = x * options.scale;
    lastT = t;
  }
  return ticks;
}

export type TimelineKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End';

export function isTimelineKey(key: string): key is TimelineKey {
  return key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown' || key === 'Home' || key === 'End';
}

/**
 * Where an arrow key moves from the attempt at `at` (index in its row): left / right / Home /
 * End inside the row, up / down to the row above or below, onto its attempt nearest in x.
 * `xs[row]` are the attempts' x positions per shown row. Null: nowhere to go (stay).
 */
export function moveFocus(xs: readonly (readonly number[])[], at: { row: number; index: number }, key: TimelineKey): { row: number; index: number } | null {
  const here = xs[at.row];
  if (!here || here.length === 0) return null;
  const inRow = (index: number): { row: number; index: number } | null =>
    index >= 0 && index < here.length && index !== at.index ? { row: at.row, index } : null;
  if (key === 'ArrowLeft') return inRow(at.index - 1);
  if (key === 'ArrowRight') return inRow(at.index + 1);
  if (key === 'Home') return inRow(0);
  if (key === 'End') return inRow(here.length - 1);
  const x = here[at.index] ?? 0;
  const step = key === 'ArrowUp' ? -1 : 1;
  for (let row = at.row + step; row >= 0 && row < xs.length; row += step) {
    const there = xs[row] as readonly number[];
    if (there.length === 0) continue;
    let best = 0;
    there.forEach((candidate, i) => {
      if (Math.abs(candidate - x) < Math.abs((there[best] as number) - x)) best = i;
    });
    return { row, index: best };
  }
  return null;
}
