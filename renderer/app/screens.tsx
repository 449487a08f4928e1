import type { ReactElement } from 'react';
import type { Route } from './router.js';
import { lazyScreen } from './lazy-screen.js';
import { preloadCharts } from '../errors/charts/load-charts.js';

/**
 * The screens other than Runs (the window's first screen), each a chunk of its own: a window
 * opened on one screen parses and runs that screen's code only, and the others come when first
 * opened (lazy-screen.tsx).
 */

/** The error explorer; the charts' chunk (recharts) is asked for beside its own, not after it. */
export const ErrorsScreen = lazyScreen(
  'the error explorer',
  () => {
    preloadCharts();
    return import('../errors/ErrorsPage.js');
  },
  (m) => m.ErrorsPage,
);
export const RunDetailScreen = lazyScreen(
  'the run',
  () => import('../run-detail/RunDetailPage.js'),
  (m) => m.RunDetailPage,
);
export const IssueScreen = lazyScreen(
  'the issue',
  () => import('../issues/IssuePage.js'),
  (m) => m.IssuePage,
);
export const CompareScreen = lazyScreen(
  'the comparison',
  () => import('../compare/ComparePage.js'),
  (m) => m.ComparePage,
);
export const AlertsScreen = lazyScreen(
  'the alert rules',
  () => import('../settings/AlertsPage.js'),
  (m) => m.AlertsPage,
);
export const FlowsScreen = lazyScreen(
  'the flows',
  () => import('../flows/FlowsPage.js'),
  (m) => m.FlowsPage,
);

/** A route's screen of its own chunk: the chunk to ask for, and the screen drawn with the route's props. */
export interface RoutedScreen {
  chunk: { preload(): void; loaded(): boolean };
  element(): ReactElement;
}

/**
 * Which screen of its own chunk a route shows, the one place that says so: the window draws it
 * (App.tsx) and asks for its chunk as it starts (preloadScreenOf). Null for Runs (in the window's
 * first chunk) and for a route no screen has, which shows Runs.
 */
export function routedScreen(route: Route): RoutedScreen | null {
  const [section, id] = route.path;
  if (section === 'runs' && id) return { chunk: RunDetailScreen, element: () => <RunDetailScreen.Screen key={id} runId={id} /> };
  if (section === 'errors') return { chunk: ErrorsScreen, element: () => <ErrorsScreen.Screen /> };
  if (section === 'issues' && id) return { chunk: IssueScreen, element: () => <IssueScreen.Screen key={id} id={id} /> };
  if (section === 'compare' && route.path.length === 3) {
    const [, left = '', right = ''] = route.path;
    return { chunk: CompareScreen, element: () => <CompareScreen.Screen left={left} right={right} /> };
  }
  if (section === 'settings' && id === 'alerts') return { chunk: AlertsScreen, element: () => <AlertsScreen.Screen /> };
  if (section === 'flows') {
    const flowId = route.path.length > 1 ? route.path.slice(1).join('/') : null;
    return { chunk: FlowsScreen, element: () => <FlowsScreen.Screen flowId={flowId} /> };
  }
  return null;
}

/**
 * The chunk of the screen a window opens on, asked for before anything else takes one of the
 * browser's six connections to the server (the live stream holds one, the first reads follow).
 */
export function preloadScreenOf(route: Route): void {
  routedScreen(route)?.chunk.preload();
}
