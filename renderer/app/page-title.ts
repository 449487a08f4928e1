import { useEffect } from 'react';
import type { Route } from './router.js';
import { idTail } from '../lib/run-ids.js';

/**
 * The tab's title names the screen (and on a run's page the run and its status), so a row of
 * browser tabs or a screen reader's window list tells them apart: "run_18f2a9c0… failed ·
 * Hivewatch". The failure alerts' unseen count stays in front: "(2) Errors · Hivewatch".
 */

export const APP_NAME = 'Hivewatch';

export function composeTitle(screen: string | null, unseen: number): string {
  const base = screen ? `${screen} · ${APP_NAME}` : APP_NAME;
  return unseen > 0 ? `(${unseen}) ${base}` : base;
}

/** The screen's part of the title for a route; a run's page names its own (it knows the status). */
export function routeTitle(route: Route): string | null {
  const [section = 'runs', id] = route.path;
  if (section === 'runs') return id ? null : 'Runs';
  if (section === 'errors') return 'Errors';
  // An issue's page names its own (it knows the code).
  if (section === 'issues') return id ? null : 'Errors';
  if (section === 'compare') return 'Compare runs';
  if (section === 'settings' && id === 'alerts') return 'Alerts · Settings';
  if (section === 'flows') return route.path.length > 1 ? `${route.path.slice(1).join('/')} · Flows` : 'Flows';
  return 'Runs';
}

/** "Run …a9c0d1e2 failed" (an id's tail tells it apart, its front is the same for every run); only the id while the run loads. */
export function runTitle(runId: string, status: string | null): string {
  return status ? `Run ${idTail(runId)} ${status}` : `Run ${idTail(runId)}`;
}

let screen: string | null = null;
let unseen = 0;
let write: (title: string) => void = () => undefined;

/** Where the title goes (document.title in the window); called once at start-up. */
export function bindTitle(sink: (title: string) => void): void {
  write = sink;
  write(composeTitle(screen, unseen));
}

export function setUnseenCount(count: number): void {
  unseen = count;
  write(composeTitle(screen, unseen));
}

/** Sets the screen's part of the title while the component is shown; `null` leaves it to another. */
export function useScreenTitle(title: string | null): void {
  useEffect(() => {
    if (title === null) return;
    screen = title;
    write(composeTitle(screen, unseen));
  }, [title]);
}
