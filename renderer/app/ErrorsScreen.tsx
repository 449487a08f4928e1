import { preloadCharts } from '../errors/charts/load-charts.js';
import { lazyScreen } from './lazy-screen.js';

/**
 * The error explorer, a chunk of its own (lazy-screen.ts), so the Runs table paints without it.
 * The charts' chunk (recharts) is asked for beside the page's, not after it.
 */
const errors = lazyScreen('the error explorer', () => {
  preloadCharts();
  return import('../errors/ErrorsPage.js').then((m) => m.ErrorsPage);
});

export const ErrorsScreen = errors.Screen;
export const preloadErrorsScreen = errors.preload;
export const errorsChunkLoaded = errors.loaded;
