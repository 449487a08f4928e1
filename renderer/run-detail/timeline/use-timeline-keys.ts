import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type RefObject } from 'react';
import { useShortcuts } from '../../app/keyboard.js';
import { FITTED_ZOOM, isTimelineKey, moveFocus, zoomStep, ZOOM_LEVELS } from './timeline-view.js';

/**
 * Arrow keys inside the retry timeline (one Tab stop per row, the row's current attempt):
 * left / right / Home / End along a row, up / down to the nearest attempt of the row above or
 * below. Read from the DOM as drawn, so it follows the zoom and the "failed only" filter.
 */
export function onTimelineKeyDown(event: ReactKeyboardEvent<HTMLElement>): void {
  if (event.ctrlKey || event.metaKey || event.altKey || !isTimelineKey(event.key)) return;
  const target = event.target as HTMLElement;
  if (!target.classList.contains('seg-attempt')) return;
  const rows = [...event.currentTarget.querySelectorAll<HTMLElement>('.tl-row[data-task-id]')];
  const bars = rows.map((r) => [...r.querySelectorAll<HTMLElement>('.seg-attempt')]);
  const row = rows.findIndex((r) => r.contains(target));
  const index = bars[row]?.indexOf(target) ?? -1;
  if (row < 0 || index < 0) return;
  event.preventDefault();
  const next = moveFocus(
    bars.map((list) => list.map((b) => b.offsetLeft)),
    { row, index },
    event.key,
  );
  const bar = next ? bars[next.row]?.[next.index] : undefined;
  bar?.focus({ preventScroll: true });
  bar?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

/**
 * Ctrl/⌘ + wheel over the timeline zooms it (instead of the page), one level per wheel step.
 * A native listener: React's wheel listeners are passive, so they cannot stop the page zoom.
 */
function useWheelZoom(scroller: RefObject<HTMLElement | null>, ready: boolean, onZoom: (direction: 1 | -1) => void): void {
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onWheel = (event: WheelEvent): void => {
      if (!(event.ctrlKey || event.metaKey) || event.deltaY === 0) return;
      event.preventDefault();
      zoom.current(event.deltaY < 0 ? 1 : -1);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [scroller, ready]);
}

/**
 * The timeline's view state: zoom level (buttons, + / − keys, Ctrl/⌘-wheel; the point at the
 * centre stays at the centre) and "failed tasks only". `scroller` is the horizontal scroller.
 */
export function useTimelineView(root: RefObject<HTMLElement | null>, ready: boolean) {
  const [zoom, setZoomLevel] = useState(FITTED_ZOOM);
  const [failedOnly, setFailedOnly] = useState(false);
  const scroller = useRef<HTMLDivElement | null>(null);
  const centre = useRef<number | null>(null);
  const setZoom = useCallback((level: number) => {
    setZoomLevel((current) => {
      const next = Math.max(0, Math.min(ZOOM_LEVELS.length - 1, level));
      const el = scroller.current;
      if (next !== current && el && el.scrollWidth > 0) centre.current = (el.scrollLeft + el.clientWidth / 2) / el.scrollWidth;
      return next;
    });
  }, []);
  const step = useCallback(
    (direction: 1 | -1) =>
      setZoomLevel((current) => {
        const next = zoomStep(current, direction);
        const el = scroller.current;
        if (next !== current && el && el.scrollWidth > 0) centre.current = (el.scrollLeft + el.clientWidth / 2) / el.scrollWidth;
        return next;
      }),
    [],
  );
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || centre.current === null) return;
    el.scrollLeft = Math.max(0, centre.current * el.scrollWidth - el.clientWidth / 2);
    centre.current = null;
  }, [zoom]);
  useWheelZoom(root, ready, step);
  useShortcuts({ '+': () => step(1), '=': () => step(1), '-': () => step(-1) }, ready);
  return { zoom, setZoom, failedOnly, setFailedOnly, scroller };
}
