import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { HivewatchApi } from '../../core/service/api.js';
import type { RunsSnapshot, RunsStore } from '../live/runs-store.js';

/** The API client and the live runs store, provided once at the root. */

interface Services {
  api: HivewatchApi;
  runs: RunsStore;
}

const ServicesContext = createContext<Services | null>(null);

export function ServicesProvider({ api, runs, children }: Services & { children: ReactNode }) {
  return <ServicesContext.Provider value={{ api, runs }}>{children}</ServicesContext.Provider>;
}

function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('ServicesProvider is missing');
  return services;
}

export function useApi(): HivewatchApi {
  return useServices().api;
}

export function useRunsStore(): RunsStore {
  return useServices().runs;
}

const noSubscription = (): (() => void) => () => undefined;

/**
 * Bumped each time the window's data must be re-read (the server came back after an outage, or
 * the stream lost events): every screen's reads depend on it, so none stays on an error or a
 * stale answer. 0 outside the provider (component tests).
 */
export function useRecoveries(): number {
  const runs = useContext(ServicesContext)?.runs;
  const resets = () => runs?.getSnapshot().resets ?? 0;
  // The third getter serves a page rendered to a string (the charts' tests), where nothing has recovered.
  return useSyncExternalStore(runs?.subscribe ?? noSubscription, resets, resets);
}

/** The server refused this window's token (another database's): the window shows how to get in instead. */
export function useTokenRefused(): boolean {
  const runs = useContext(ServicesContext)?.runs;
  return useSyncExternalStore(runs?.subscribe ?? noSubscription, () => {
    const snapshot = runs?.getSnapshot();
    return snapshot?.phase === 'error' && (snapshot.error ?? '').startsWith('wrong token');
  });
}

/** The live runs snapshot; re-renders at most once per animation frame while events stream. */
export function useRunsSnapshot(): RunsSnapshot {
  const store = useRunsStore();
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
