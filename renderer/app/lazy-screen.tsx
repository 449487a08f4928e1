import { useEffect, useState, type ComponentType } from 'react';
import { Loading } from '../components/states.js';
import { retryImport } from './retry-import.js';

/**
 * A screen in a chunk of its own, loaded when first opened, so that the screen a window opens on
 * does not first parse and run every other screen's code. A failed chunk load (the server
 * restarting under the window) is tried again before the screen's boundary shows it; "Try again"
 * there mounts the screen afresh and loads it anew.
 *
 * Loaded by hand, not with React.lazy inside <Suspense>: React holds back a boundary's content
 * until 300 ms after its fallback appeared (its fallback throttle), so a window opened on
 * #/errors, whose chunk and every answer were in by ~290 ms, sat idle until ~400 ms before
 * drawing the page (docs/benches.md). A plain "Loading" swapped for the page has no such wait.
 */
export interface LazyScreen<P extends object> {
  /** Renders the screen, loading its chunk first if it is not here yet. */
  Screen: ComponentType<P>;
  /** Starts loading the chunk now (a window opened on this screen); a failure is shown when the screen mounts. */
  preload(): void;
  /** Whether the chunk is here: once it is, the screen mounts at once. */
  loaded(): boolean;
}

/**
 * `load` imports the chunk and gives its module as it is, as a retried import does (app/retry-import.ts);
 * `pick` takes the screen out of either.
 */
export function lazyScreen<P extends object, M>(what: string, load: () => Promise<M>, pick: (module: M) => ComponentType<P>): LazyScreen<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;

  const loadChunk = (): Promise<ComponentType<P>> => {
    loading ??= retryImport(load).then(
      (module) => (loaded = pick(module)),
      (error: unknown) => {
        // Forgotten, so that "Try again" asks for the chunk afresh.
        loading = null;
        throw error;
      },
    );
    return loading;
  };

  function Screen(props: P) {
    const [Page, setPage] = useState<ComponentType<P> | null>(() => loaded);
    const [failure, setFailure] = useState<Error | null>(null);
    useEffect(() => {
      if (Page) return;
      let mounted = true;
      loadChunk().then(
        (page) => mounted && setPage(() => page),
        (error: unknown) => mounted && setFailure(error instanceof Error ? error : new Error(String(error))),
      );
      return () => {
        mounted = false;
      };
    }, [Page]);
    // The screen's boundary shows the failure, with Try again.
    if (failure) throw failure;
    return Page ? <Page {...props} /> : <Loading what={what} />;
  }

  return {
    Screen,
    preload: () => void loadChunk().catch(() => undefined),
    loaded: () => loaded !== null,
  };
}
