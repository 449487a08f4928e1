import type { Route } from './router.js';
import { lazyScreen } from './lazy-screen.js';
import { preloadErrorsScreen } from './ErrorsScreen.js';

/**
 * The screens other than Runs (the window's first screen) and Errors (ErrorsScreen.tsx), each a
 * chunk of its own: a window opened on one screen parses and runs that screen's code only, and
 * the others come when first opened (lazy-screen.ts).
 */
export const RunDetailScreen = lazyScreen('the run', () => import('../run-detail/RunDetailPage.js').then((m) => m.RunDetailPage));
export const IssueScreen = lazyScreen('the issue', () => import('../issues/IssuePage.js').then((m) => m.IssuePage));
export const CompareScreen = lazyScreen('the comparison', () => import('../compare/ComparePage.js').then((m) => m.ComparePage));
export const AlertsScreen = lazyScreen('the alert rules', () => import('../settings/AlertsPage.js').then((m) => m.AlertsPage));
export const FlowsScreen = lazyScreen('the flows', () => import('../flows/FlowsPage.js').then((m) => m.FlowsPage));

/**
 * The chunk of the screen a window opens on, asked for before anything else takes one of the
 * browser's six connections to the server (the live stream holds one, the first reads follow).
 */
export function preloadScreenOf(route: Route): void {
  const [section, id] = route.path;
  const screen: { preload(): void } | null =
    section === 'runs' && id !== undefined
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
  if (section === 'errors') preloadErrorsScreen();
  else screen?.preload();
}
