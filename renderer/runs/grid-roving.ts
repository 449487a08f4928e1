import { useCallback, useLayoutEffect, useRef, useState, type FocusEvent, type KeyboardEvent, type RefObject } from 'react';

/**
 * The runs grid as one Tab stop (WAI-ARIA's grid pattern, "roving tabindex"): of the grid's
 * controls — the header's tick box and sort buttons, each row's tick box, run link and actions —
 * exactly one takes Tab (tabindex 0, the others -1). The arrow keys move it: ←/→ along the row,
 * ↑/↓ to the row above or below (the same control, or the row's last when it has fewer; ↑ from
 * the first row reaches the header), Home/End to the row's first or last control, Ctrl+Home/End
 * to the first or last row, PageUp/PageDown by ten rows. The row it is in is the keyboard cursor
 * (the selected row), so j/k and the arrows move one thing. Focus that arrives by Tab or a click
 * moves the stop there.
 */

export interface GridFocus {
  /** In the header row, not a run's. */
  header: boolean;
  /** Which control of the row (its `data-item`); rows clamp it to their last. */
  item: number;
}

const PAGE = 10;

interface Roving {
  focus: GridFocus;
  gridRef: RefObject<HTMLDivElement | null>;
  onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => void;
  onFocus: (event: FocusEvent<HTMLDivElement>) => void;
}

/**
 * What a key does to the stop: the next focus and row, or null for a key the grid leaves alone.
 * `shown`: the controls of the focused row on screen, ascending (a narrow window hides some
 * columns, and ←/→ pass over their controls); `item` the focused one.
 */
export function moveStop(
  key: string,
  ctrl: boolean,
  at: { focus: GridFocus; row: number; item: number; shown: readonly number[]; rows: number },
): { focus: GridFocus; row: number } | null {
  const { focus, row, item, shown, rows } = at;
  const within = (r: number): number => Math.max(0, Math.min(rows - 1, r));
  const first = shown[0] ?? item;
  const last = shown.at(-1) ?? item;
  switch (key) {
    case 'ArrowRight':
      return { focus: { ...focus, item: shown.find((i) => i > item) ?? last }, row };
    case 'ArrowLeft':
      return { focus: { ...focus, item: [...shown].reverse().find((i) => i < item) ?? first }, row };
    case 'ArrowDown':
      if (focus.header) return rows > 0 ? { focus: { header: false, item }, row } : null;
      return { focus: { header: false, item }, row: within(row + 1) };
    case 'ArrowUp':
      if (focus.header) return null;
      return row === 0 ? { focus: { header: true, item }, row } : { focus: { header: false, item }, row: within(row - 1) };
    case 'PageDown':
      return focus.header ? null : { focus: { header: false, item }, row: within(row + PAGE) };
    case 'PageUp':
      return focus.header ? null : { focus: { header: false, item }, row: within(row - PAGE) };
    case 'Home':
      return ctrl ? { focus: { header: false, item }, row: 0 } : { focus: { ...focus, item: first }, row };
    case 'End':
      return ctrl ? { focus: { header: false, item }, row: within(rows - 1) } : { focus: { ...focus, item: last }, row };
    default:
      return null;
  }
}

/**
 * `focusRequest`: bumped when the keyboard cursor moved from outside the grid (j / k anywhere on
 * the screen): the focus follows it into the grid, so one key press reaches the table.
 */
export function useGridRoving(options: { rowIds: readonly string[]; cursor: number; onSelect: (index: number) => void; focusRequest: number }): Roving {
  const { rowIds, cursor, onSelect, focusRequest } = options;
  const [focus, setFocus] = useState<GridFocus>({ header: false, item: 1 });
  const gridRef = useRef<HTMLDivElement>(null);
  const pending = useRef(false);
  const row = cursor >= 0 ? cursor : 0;

  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLDivElement>) => {
      const target = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>('[data-item]') : null;
      if (!target || event.altKey || event.metaKey || event.shiftKey) return;
      const controls = [...(target.closest('[role="row"]')?.querySelectorAll<HTMLElement>('[data-item]') ?? [])];
      const shown = controls.filter((el) => el.getClientRects().length > 0).map((el) => Number(el.dataset.item));
      const moved = moveStop(event.key, event.ctrlKey, { focus, row, item: Number(target.dataset.item ?? 0), shown, rows: rowIds.length });
      if (moved === null) return;
      event.preventDefault();
      pending.current = true;
      setFocus(moved.focus);
      if (moved.row !== row || cursor < 0) onSelect(moved.row);
    },
    [focus, row, cursor, rowIds.length, onSelect],
  );

  const onFocus = useCallback(
    (event: FocusEvent<HTMLDivElement>) => {
      const target = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>('[data-item]') : null;
      if (!target) return;
      const item = Number(target.dataset.item ?? 0);
      const runId = target.closest<HTMLElement>('[role="row"][data-run-id]')?.dataset.runId;
      if (runId === undefined) {
        setFocus((f) => (f.header && f.item === item ? f : { header: true, item }));
        return;
      }
      setFocus((f) => (!f.header && f.item === item ? f : { header: false, item }));
      const index = rowIds.indexOf(runId);
      if (index >= 0 && index !== cursor) onSelect(index);
    },
    [rowIds, cursor, onSelect],
  );

  const requested = useRef(focusRequest);
  // After a key moved the stop: focus it once its row is mounted (the list scrolls it into view first).
  useLayoutEffect(() => {
    if (requested.current !== focusRequest) {
      requested.current = focusRequest;
      pending.current = true;
    }
    if (!pending.current) return;
    let frames = 0;
    let handle = 0;
    const place = (): void => {
      const grid = gridRef.current;
      const scope = focus.header ? grid?.querySelector('.grid-header') : grid?.querySelector(`[role="row"][data-run-id="${CSS.escape(rowIds[row] ?? '')}"]`);
      const stop = scope?.querySelector<HTMLElement>('[tabindex="0"]');
      if (stop) {
        pending.current = false;
        stop.focus();
      } else if (frames++ < 10) handle = requestAnimationFrame(place);
    };
    place();
    return () => cancelAnimationFrame(handle);
  }, [focus, row, rowIds, focusRequest]);

  return { focus, gridRef, onKeyDown, onFocus };
}
