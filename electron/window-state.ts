import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The window's size and position between launches: a small JSON file in Electron's userData
 * folder. Anything unreadable or implausible falls back to the default size, centred; a saved
 * position that is on no display any more (a monitor was unplugged) is dropped.
 */

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 800 };
const MIN = { width: 720, height: 480 };
const MAX = 100_000;

const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

export function parseWindowState(text: string): WindowState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
  const v = value as Record<string, unknown> | null;
  if (v === null || typeof v !== 'object' || !isInt(v.width, MIN.width, MAX) || !isInt(v.height, MIN.height, MAX)) {
    return { ...DEFAULT_WINDOW_STATE };
  }
  const state: WindowState = { width: v.width, height: v.height };
  if (isInt(v.x, -MAX, MAX) && isInt(v.y, -MAX, MAX)) {
    state.x = v.x;
    state.y = v.y;
  }
  if (v.maximized === true) state.maximized = true;
  return state;
}

export function loadWindowState(file: string): WindowState {
  try {
    return parseWindowState(readFileSync(file, 'utf8'));
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves half a file. */
export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, file);
}

/** Drops the position when the window's title bar would be on no display's work area. */
export function fitToDisplays(state: WindowState, workAreas: readonly Rectangle[]): WindowState {
  if (state.x === undefined || state.y === undefined) return state;
  const { x, y } = state;
  const visible = workAreas.some((a) => x + 100 > a.x && x < a.x + a.width - 100 && y >= a.y && y < a.y + a.height - 50);
  if (visible) return state;
  const { x: _x, y: _y, ...rest } = state;
  return rest;
}
