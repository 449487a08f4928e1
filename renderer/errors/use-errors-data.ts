import { useEffect, useRef, useState } from 'react';
import type { ErrorFilter, ErrorOccurrence, ErrorSeries } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { useAsync, type AsyncState } from '../lib/use-async.js';
import { loadOccurrenceSample, loadOverview, takePrefetchedOverview, takePrefetchedSample, type Overview } from './errors-loads.js';
import { buildPivot, type PivotNode } from './pivot.js';

/** Everything the Errors screen reads, keyed on the filter; `refresh` re-reads it all. */

export type { Overview } from './errors-loads.js';

/** Occurrences shown per page of the list. */
const PAGE = 50;

/**
 * The overview for the filter. `asked` is what the screen asked for (its query): the answer
 * carries it back as `answers`, so the screen knows which query the figures it shows are of,
 * also while a later read is loading or has failed.
 */
export function useOverview<Q>(
  filter: ErrorFilter,
  bucket: ErrorSeries['bucket'],
  refresh: number,
  asked: Q,
): AsyncState<Overview> & { reload: () => void; answers: Q | undefined } {
  const api = useApi();
  const key = JSON.stringify(filter);
  const { state, reload } = useAsync(
    async () => ({ overview: await (takePrefetchedOverview(filter, bucket) ?? loadOverview(api, filter, bucket)), asked }),
    [api, key, bucket, refresh],
  );
  return { ...state, data: state.data?.overview, answers: state.data?.asked, reload } as AsyncState<Overview> & { reload: () => void; answers: Q | undefined };
}

export interface Occurrences {
  state: 'loading' | 'ready' | 'error';
  error: string | null;
  items: ErrorOccurrence[];
  hasMore: boolean;
  loadingMore: boolean;
  more: () => void;
  pivot: PivotNode[];
  pivotTruncated: boolean;
}

/**
 * Occurrences for the filter (and group): one read of the newest 500 feeds both the pivot and
 * the list's first ten pages (shown 50 at a time); later pages are read after the sample.
 */
export function useOccurrences(filter: ErrorFilter, group: string, refresh: number): Occurrences {
  const api = useApi();
  const key = JSON.stringify(filter);
  const [shown, setShown] = useState(PAGE);
  const [extra, setExtra] = useState<ErrorOccurrence[]>([]);
  const [extraCursor, setExtraCursor] = useState<string | null | undefined>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const sample = useAsync(async () => {
    const page = await (takePrefetchedSample(filter, group) ?? loadOccurrenceSample(api, filter, group));
    return { page, nodes: buildPivot(page.items), truncated: page.nextCursor !== null };
  }, [api, key, group, refresh]);

  useEffect(() => {
    generation.current++;
    if (sample.state.status !== 'ready') return;
    // Unchanged state stays the same object: a fresh [] here re-rendered the whole screen (every
    // chart) once more after the sample arrived.
    setShown(PAGE);
    setExtra((prev) => (prev.length === 0 ? prev : []));
    setExtraCursor(undefined);
  }, [sample.state]);

  const page = sample.state.data?.page;
  const sampled = page?.items ?? [];
  const items = shown < sampled.length ? sampled.slice(0, shown) : [...sampled, ...extra];
  const hasMore = shown < sampled.length || (extraCursor === undefined ? (page?.nextCursor ?? null) : extraCursor) !== null;

  const more = (): void => {
    if (!page || loadingMore) return;
    if (shown < sampled.length) {
      setShown((n) => n + PAGE);
      return;
    }
    const cursor = extraCursor === undefined ? page.nextCursor : extraCursor;
    if (!cursor) return;
    const mine = generation.current;
    setLoadingMore(true);
    api
      .listErrors({ ...filter, ...(group ? { fingerprint: group } : {}), limit: PAGE, cursor })
      .then((next) => {
        if (generation.current !== mine) return;
        setExtra((prev) => [...prev, ...next.items]);
        setExtraCursor(next.nextCursor);
      })
      .catch(() => undefined)
      .finally(() => setLoadingMore(false));
  };

  return {
    state: sample.state.status,
    error: sample.state.error,
    items,
    hasMore,
    loadingMore,
    more,
    pivot: sample.state.data?.nodes ?? [],
    pivotTruncated: sample.state.data?.truncated ?? false,
  };
}
