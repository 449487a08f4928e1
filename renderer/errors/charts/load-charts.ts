import { useEffect, useState } from 'react';
import { retryImport } from '../../app/retry-import.js';
import type { CountBars, SeriesBars, TrendBars } from './recharts-charts.js';

/**
 * recharts draws the Errors charts and an issue's trend from a chunk of its own, asked for with
 * the Errors screen's chunk and first data (app/ErrorsScreen.tsx) or by the issue page's trend
 * when it mounts, so it never holds back the numbers: the counts, issues and occurrences paint
 * as their answers come, and each chart draws once this chunk is in and the page has painted once
 * (useDrawAfterPaint). docs/decisions/0016-errors-screen.md, "The Errors charts".
 */

interface ChartsModule {
  CountBars: typeof CountBars;
  SeriesBars: typeof SeriesBars;
  TrendBars: typeof TrendBars;
}

let loading: Promise<ChartsModule> | null = null;

function loadCharts(): Promise<ChartsModule> {
  loading ??= retryImport(() => import('./recharts-charts.js')).catch((error: unknown) => {
    // Forgotten, so that "Try again" asks for the chunk afresh.
    loading = null;
    throw error;
  });
  return loading;
}

/** Starts loading the charts' chunk now; a failure shows in the charts when they mount. */
export function preloadCharts(): void {
  loadCharts().catch(() => undefined);
}

export type ChartsState = { state: 'ready'; charts: ChartsModule } | { state: 'waiting' } | { state: 'failed'; retry: () => void };

/**
 * The charts' module once it is loaded and this chart's box has been painted without it: a
 * chart mounted with the first data waits one frame past its first paint, so the numbers beside
 * it are on screen before recharts lays anything out.
 */
export function useCharts(): ChartsState {
  const [charts, setCharts] = useState<ChartsModule | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    loadCharts().then(
      (module) => {
        // A frame callback runs before that frame's paint; the task after it runs once it is painted.
        frame = requestAnimationFrame(() => {
          timer = setTimeout(() => live && setCharts(module));
        });
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [attempt]);
  if (charts) return { state: 'ready', charts };
  if (failed)
    return {
      state: 'failed',
      retry: () => {
        setFailed(false);
        setAttempt((n) => n + 1);
      },
    };
  return { state: 'waiting' };
}
