import { useEffect, useRef } from 'react';

/**
 * Single-key shortcuts (`/`, `j`, `k`, `Enter`, `c`, `r`, `?`), active unless the operator is
 * typing in a field, holds a modifier, or a dialog is open (the dialog owns the keyboard then).
 */

let openDialogs = 0;

export function dialogOpened(): void {
  openDialogs++;
}

export function dialogClosed(): void {
  openDialogs = Math.max(0, openDialogs - 1);
}

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(type);
}

export type Bindings = Partial<Record<string, (event: KeyboardEvent) => void>>;

/** The key name a binding uses: the character, or `Enter` / `Escape`. */
function keyOf(event: KeyboardEvent): string | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  return event.key;
}

export function useShortcuts(bindings: Bindings, active = true): void {
  const ref = useRef(bindings);
  ref.current = bindings;
  useEffect(() => {
    if (!active) return;
    const onKey = (event: KeyboardEvent): void => {
      // The innermost target: a field inside a shadow root (the flow editor) reaches the window
      // with its host as event.target.
      if (event.defaultPrevented || openDialogs > 0 || isTypingTarget(event.composedPath()[0] ?? event.target)) return;
      const key = keyOf(event);
      if (key === null) return;
      // Enter on a focused button or link is that control's own action.
      if (key === 'Enter' && event.target instanceof HTMLElement && event.target.closest('button, a, summary')) return;
      const handler = ref.current[key];
      if (!handler) return;
      event.preventDefault();
      handler(event);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);
}

/** The shortcut sheet's content: one source for the sheet and the docs. */
export const SHORTCUTS: readonly { keys: string[]; what: string; where: string }[] = [
  { keys: ['/'], what: 'Search runs (or focus the page’s filter)', where: 'everywhere' },
  { keys: ['j', 'k'], what: 'Move the selection down / up (on Runs, the focus goes with it into the table)', where: 'Runs, event log' },
  { keys: ['←', '→', '↑', '↓'], what: 'Move between a run’s controls and between runs (the table is one Tab stop)', where: 'Runs' },
  { keys: ['Enter'], what: 'Open the selected run', where: 'Runs' },
  { keys: ['x'], what: 'Tick the selected run for a bulk action', where: 'Runs' },
  { keys: ['c'], what: 'Cancel the selected or open run (asks first)', where: 'Runs, run detail' },
  { keys: ['r'], what: 'Retry the selected or open run (asks first)', where: 'Runs, run detail' },
  { keys: ['+', '−'], what: 'Zoom the retry timeline in / out (also Ctrl/⌘ + wheel over it)', where: 'run detail' },
  { keys: ['←', '→', '↑', '↓'], what: 'Move between attempts in the retry timeline (one Tab stop per task)', where: 'run detail' },
  { keys: ['g', 'r'], what: 'Go to Runs (g e: Errors, g f: Flows)', where: 'everywhere' },
  { keys: ['Esc'], what: 'Close a dialog, clear the selection', where: 'everywhere' },
  { keys: ['?'], what: 'Show or hide this sheet', where: 'everywhere' },
];

/** The page's search field, focused by `/` (the Runs search when the page has none). */
let searchField: HTMLInputElement | null = null;
let focusSearchOnMount = false;

export function registerSearchField(el: HTMLInputElement | null): void {
  searchField = el;
  if (el && focusSearchOnMount) {
    focusSearchOnMount = false;
    el.focus();
  }
}

/** Focuses the current page's search; returns false when it has none. */
export function focusSearchField(): boolean {
  if (!searchField || !searchField.isConnected) return false;
  searchField.focus();
  searchField.select();
  return true;
}

/** Asks the next search field that mounts to take the focus (after navigating to Runs). */
export function focusSearchOnNextMount(): void {
  focusSearchOnMount = true;
}
