import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useApi, useRunsSnapshot, useRunsStore } from '../app/api-context.js';
import { serializeRunsQuery, type RunsQuery } from './runs-query.js';
import { RunsView } from './runs-view.js';

/** The server-side view of the runs for a query; a new query (or a stream reset) reads afresh. */
export function useRunsView(query: RunsQuery): RunsView {
  const api = useApi();
  const store = useRunsStore();
  const { resets } = useRunsSnapshot();
  const key = serializeRunsQuery(query).toString();
  const view = useMemo(() => new RunsView(api, store, query), [api, store, key, resets]);
  useEffect(() => {
    view.start();
    return () => view.stop();
  }, [view]);
  useSyncExternalStore(view.subscribe, view.getState);
  return view;
}
