import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type RefObject, type UIEvent } from 'react';
import { anchorScroll } from './scroll-anchor.js';
import { fixedWindow, scrollIntoView, variableWindow } from './window-math.js';

/**
 * A windowed list: only the rows in view (plus an overscan) are mounted, so 10,000 rows cost
 * what 40 do. Rows are absolutely positioned inside a spacer of the full height. Heights are
 * fixed (`rowHeight`) or given as prefix offsets (`offsets`, see window-math.ts).
 */
export interface VirtualListProps {
  count: number;
  rowHeight?: number;
  offsets?: readonly number[];
  renderRow: (index: number, top: number, height: number) => ReactNode;
  /** Keep this row in view (keyboard selection). */
  ensureVisible?: number | null;
  overscan?: number;
  className?: string;
  /**
   * The scroll container's role: `rowgroup` inside a grid (the grid carries `aria-rowcount`, the
   * rows `aria-rowindex`), `list` for listitems (which carry `aria-setsize`/`aria-posinset`).
   * ARIA allows neither count on the container itself, so it sets none.
   */
  role?: string;
  ariaLabel?: string;
  /** Test hook and perf probe: the scroll container. */
  testId?: string;
  /** A fixed height in px (default: whatever the CSS gives the container). */
  height?: number;
  /** Told the index past the last mounted row whenever the window moves (load the next page near the end). */
  onWindowEnd?: (end: number) => void;
  /**
   * The rows' identities (fixed heights only). When given, rows that arrive above what the
   * operator looks at (scrolled, or the pointer over the list) do not move it: the first visible
   * row stays put and `onInsertedAbove` is told how many arrived (see scroll-anchor.ts).
   */
  anchorKeys?: readonly string[];
  onInsertedAbove?: (count: number) => void;
  /** Told when nothing that was on screen is listed any more (another query): the count starts over. */
  onAnchorLost?: () => void;
  /** Told when the list is scrolled back to its top (the new rows are in view). */
  onReachedTop?: () => void;
  /** The scroll container, for a caller that scrolls it (back to the top). */
  scrollRef?: RefObject<HTMLDivElement | null>;
}

export function VirtualList({
  count,
  rowHeight = 32,
  offsets,
  renderRow,
  ensureVisible = null,
  overscan = 8,
  className = '',
  role,
  ariaLabel,
  testId,
  height,
  onWindowEnd,
  anchorKeys,
  onInsertedAbove,
  onAnchorLost,
  onReachedTop,
  scrollRef,
}: VirtualListProps) {
  const ownRef = useRef<HTMLDivElement>(null);
  const ref = scrollRef ?? ownRef;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setViewport(el.clientHeight);
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const win = useMemo(
    () =>
      offsets
        ? variableWindow({ offsets, scrollTop, viewportHeight: viewport, overscan })
        : fixedWindow({ count, rowHeight, scrollTop, viewportHeight: viewport, overscan }),
    [offsets, count, rowHeight, scrollTop, viewport, overscan],
  );

  useEffect(() => {
    const el = ref.current;
    if (!el || ensureVisible === null || ensureVisible < 0 || ensureVisible >= count) return;
    const top = offsets ? (offsets[ensureVisible] ?? 0) : ensureVisible * rowHeight;
    const bottom = offsets ? (offsets[ensureVisible + 1] ?? top) : top + rowHeight;
    const next = scrollIntoView(top, bottom, el.scrollTop, el.clientHeight);
    if (next !== el.scrollTop) el.scrollTop = next;
  }, [ensureVisible, count, offsets, rowHeight]);

  useEffect(() => {
    onWindowEnd?.(win.end);
  }, [onWindowEnd, win.end]);

  const pointerInside = useAnchoring(ref, { anchorKeys, rowHeight, onInsertedAbove, onAnchorLost, setScrollTop });

  const onScroll = (event: UIEvent<HTMLDivElement>): void => {
    const top = event.currentTarget.scrollTop;
    setScrollTop(top);
    if (top <= 0) onReachedTop?.();
  };

  const rows: ReactNode[] = [];
  for (let i = win.start; i < win.end; i++) {
    const top = offsets ? (offsets[i] ?? 0) : i * rowHeight;
    const height = offsets ? (offsets[i + 1] ?? top) - top : rowHeight;
    rows.push(renderRow(i, top, height));
  }

  return (
    <div
      ref={ref}
      className={`virtual-list ${className}`}
      onScroll={onScroll}
      onPointerEnter={() => (pointerInside.current = true)}
      onPointerLeave={() => (pointerInside.current = false)}
      role={role}
      aria-label={ariaLabel}
      data-testid={testId}
      style={height !== undefined ? { height } : undefined}
    >
      <div className="virtual-spacer" role="presentation" style={{ height: win.totalHeight }}>
        {rows}
      </div>
    </div>
  );
}

/**
 * Before the browser paints a change of rows: if the operator is looking at them (scrolled away
 * from the top, or the pointer over the list), scroll by what arrived above so nothing moves
 * under their eyes or pointer. At the top with the pointer elsewhere, new rows simply show.
 */
function useAnchoring(
  ref: RefObject<HTMLDivElement | null>,
  options: {
    anchorKeys: readonly string[] | undefined;
    rowHeight: number;
    onInsertedAbove: ((count: number) => void) | undefined;
    onAnchorLost: (() => void) | undefined;
    setScrollTop: (top: number) => void;
  },
): RefObject<boolean> {
  const { anchorKeys, rowHeight, onInsertedAbove, onAnchorLost, setScrollTop } = options;
  const previousKeys = useRef(anchorKeys);
  const pointerInside = useRef(false);
  useLayoutEffect(() => {
    const el = ref.current;
    const before = previousKeys.current;
    previousKeys.current = anchorKeys;
    if (!el || !anchorKeys || !before || before === anchorKeys) return;
    if (el.scrollTop <= 0 && !pointerInside.current) return;
    const result = anchorScroll({ previousKeys: before, keys: anchorKeys, scrollTop: el.scrollTop, viewportHeight: el.clientHeight, rowHeight });
    if (!result.anchored) {
      onAnchorLost?.();
      return;
    }
    if (result.scrollTop !== el.scrollTop) {
      el.scrollTop = result.scrollTop;
      setScrollTop(el.scrollTop);
    }
    if (result.insertedAbove > 0) onInsertedAbove?.(result.insertedAbove);
  }, [ref, anchorKeys, rowHeight, onInsertedAbove, onAnchorLost, setScrollTop]);
  return pointerInside;
}
