import { useEffect, useState, type ComponentType } from 'react';
import { Loading } from '../components/states.js';
import { preloadCharts } from '../errors/charts/load-charts.js';
import { retryImport } from './retry-import.js';

/**
 * The error explorer is a chunk of its own, loaded when first opened, so the Runs table paints
 * without it. A failed chunk load (the server restarting under the window) is tried again before
 * the screen's boundary shows it; "Try again" there mounts this afresh and loads it anew.
 *
 * Loaded by hand, not with React.lazy inside <Suspense>: React holds back a boundary's content
 * until 300 ms after its fallback appeared (its fallback throttle), so a window opened on
 * #/errors, whose chunk and every answer were in by ~290 ms, sat idle until ~400 ms before
 * drawing the page (docs/benches.md). A plain "Loading" swapped for the page has no such wait.
 */

let loaded: ComponentType | null = null;
let loading: Promise<ComponentType> | null = null;

/** Whether the chunk is here: once it is, the screen mounts at once and reads for itself. */
export function errorsChunkLoaded(): boolean {
  return loaded !== null;
}

function loadErrorsPage(): Promise<ComponentType> {
  // The charts' chunk (recharts) is asked for beside the page's, not after it.
  preloadCharts();
  loading ??= retryImport(() => import('../errors/ErrorsPage.js')).then(
    (m) => (loaded = m.ErrorsPage),
    (error: unknown) => {
      // Forgotten, so that "Try again" asks for the chunk afresh.
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** Starts loading the chunk now (a window opened on #/errors); a failure is shown when the screen mounts. */
export function preloadErrorsScreen(): void {
  loadErrorsPage().catch(() => undefined);
}

export function ErrorsScreen() {
  const [Page, setPage] = useState<ComponentType | null>(() => loaded);
  const [failure, setFailure] = useState<Error | null>(null);
  useEffect(() => {
    if (Page) return;
    let mounted = true;
    loadErrorsPage().then(
      (page) => mounted && setPage(() => page),
      (error: unknown) => mounted && setFailure(error instanceof Error ? error : new Error(String(error))),
    );
    return () => {
      mounted = false;
    };
  }, [Page]);
  // The screen's boundary shows the failure, with Try again.
  if (failure) throw failure;
  return Page ? <Page /> : <Loading what="the error explorer" />;
}
