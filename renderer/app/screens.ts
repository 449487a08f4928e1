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

/**
 * The chunk of the screen a window opens on, asked for before anything else takes one of the
 * browser's six connections to the server (the live stream holds one, the first reads follow).
 */
export function preloadScreenOf(route: Route): void {
  const [section, id] = route.path;
  const screen: { preload(): void } | null =
    section === 'errors'
      ? ErrorsScreen
      : section === 'runs' && id !== undefined
        ? RunDetailScreen
        : section === 'issues' && id !== undefined
          ? IssueScreen
          : section === 'compare'
            ? CompareScreen
            : section === 'settings'
              ? AlertsScreen
              : section === 'flows'
                ? FlowsScreen
                : null;
  screen?.preload();
}
