import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../../core/service/api.js';
import type { TimelineRow, TimelineSegment } from './timeline-layout.js';
import { FITTED_ZOOM, isTimelineKey, moveFocus, shownRows, timeTicks, zoomFactor, zoomStep, ZOOM_LEVELS } from './timeline-view.js';

const T0 = Date.UTC(2026, 10, 26, 6, 0, 0);

function attempt(x: number, start: number, n: number): TimelineSegment {
  return {
    kind: 'attempt',
    x,
    width: 30,
    start,
    end: start,
    attempt: n,
    status: 'failed',
    label: `#${n}`,
    error: null,
    delayMs: null,
    strategy: null,
    why: null,
  };
}

function row(taskId: string, status: TaskView['status'], segments: TimelineSegment[]): TimelineRow {
  return { task: { taskId, status } as TaskView, segments, waiting: null };
}

describe('zoom', () => {
  it('starts fitted, steps one level at a time and holds at both ends', () => {
    expect(zoomFactor(FITTED_ZOOM)).toBe(1);
    expect(zoomFactor(zoomStep(FITTED_ZOOM, 1))).toBe(2);
    expect(zoomFactor(zoomStep(FITTED_ZOOM, -1))).toBe(0.5);
    expect(zoomStep(ZOOM_LEVELS.length - 1, 1)).toBe(ZOOM_LEVELS.length - 1);
    expect(zoomStep(0, -1)).toBe(0);
  });
});

describe('shownRows', () => {
  it('keeps only tasks that failed when asked, in their order', () => {
    const rows = [row('1:0', 'succeeded', []), row('2:0', 'failed', []), row('2:1', 'waiting', []), row('2:2', 'failed', [])];
    expect(shownRows(rows, false)).toBe(rows);
    expect(shownRows(rows, true).map((r) => r.task.taskId)).toEqual(['2:0', '2:2']);
  });
});

describe('timeTicks', () => {
  const rows = [
    row('1:0', 'succeeded', [attempt(0, T0, 1), attempt(100, T0 + 30_000, 2)]),
    row('2:0', 'failed', [attempt(40, T0 + 1_000, 1), attempt(100, T0 + 30_000, 1), attempt(300, T0 + 95_000, 2)]),
  ];

  it('labels attempt starts with the time of day on a real clock', () => {
    const ticks = timeTicks(rows, { t0: T0, virtual: false, scale: 1, minGapPx: 50 });
    expect(ticks.map((t) => t.x)).toEqual([0, 100, 300]);
    const local = (ms: number): string => new Date(ms).toTimeString().slice(0, 8);
    expect(ticks.map((t) => t.label)).toEqual([local(T0), local(T0 + 30_000), local(T0 + 95_000)]);
  });

  it('labels elapsed virtual time on a virtual clock, and drops crowded ticks only at a small scale', () => {
    expect(timeTicks(rows, { t0: T0, virtual: true, scale: 1, minGapPx: 30 }).map((t) => t.label)).toEqual(['+0 ms', '+1.0s', '+30s', '+1m 35s']);
    expect(timeTicks(rows, { t0: T0, virtual: true, scale: 0.25, minGapPx: 30 }).map((t) => t.label)).toEqual(['+0 ms', '+1m 35s']);
  });

  it('never runs backwards in time', () => {
    const odd = [row('1:0', 'failed', [attempt(0, T0 + 5_000, 1), attempt(100, T0, 2), attempt(200, T0 + 9_000, 3)])];
    const ticks = timeTicks(odd, { t0: T0, virtual: true, scale: 1, minGapPx: 10 });
    expect(ticks.map((t) => t.label)).toEqual(['+5.0s', '+9.0s']);
  });
});

describe('moveFocus', () => {
  const xs = [[0, 100, 200], [], [90, 400]];

  it('moves inside a row with left, right, Home and End, and stays at its ends', () => {
    expect(moveFocus(xs, { row: 0, index: 1 }, 'ArrowLeft')).toEqual({ row: 0, index: 0 });
    expect(moveFocus(xs, { row: 0, index: 1 }, 'ArrowRight')).toEqual({ row: 0, index: 2 });
    expect(moveFocus(xs, { row: 0, index: 2 }, 'ArrowRight')).toBeNull();
    expect(moveFocus(xs, { row: 0, index: 2 }, 'Home')).toEqual({ row: 0, index: 0 });
    expect(moveFocus(xs, { row: 0, index: 0 }, 'End')).toEqual({ row: 0, index: 2 });
  });

  it('moves up and down onto the nearest attempt in x, over rows without attempts', () => {
    expect(moveFocus(xs, { row: 0, index: 1 }, 'ArrowDown')).toEqual({ row: 2, index: 0 });
    expect(moveFocus(xs, { row: 2, index: 1 }, 'ArrowUp')).toEqual({ row: 0, index: 2 });
    expect(moveFocus(xs, { row: 2, index: 0 }, 'ArrowDown')).toBeNull();
    expect(moveFocus(xs, { row: 0, index: 0 }, 'ArrowUp')).toBeNull();
  });

  it('knows its keys', () => {
    expect(['ArrowLeft', 'End', 'Tab', 'Enter'].map(isTimelineKey)).toEqual([true, true, false, false]);
  });
});
