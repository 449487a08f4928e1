import { useEffect, useRef, useState } from 'react';
import type { ErrorCount, ErrorFilter, ErrorGroup, ErrorOccurrence, ErrorSeries, HivewatchApi } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { useAsync, type AsyncState } from '../lib/use-async.js';
import { densify } from './bins.js';
import { bucketFor } from './errors-query.js';
import { buildPivot, type PivotNode } from './pivot.js';

/** Everything the Errors screen reads, keyed on the filter; `refresh` re-reads it all. */

export interface Overview {
  byCategory: ErrorCount[];
  byOrigin: ErrorCount[];
  byCode: ErrorCount[];
  byFlow: ErrorCount[];
  /** Keys HANDLED_KEYS.handled / .unhandled (retried or caught vs failed its run). */
  byHandled: ErrorCount[];
  series: ErrorSeries;
  groups: ErrorGroup[];
}

const SPARK_BINS = 24;

/**
 * One round of queries: the counts, the groups with every sparkline (from the rollups), and, for
 * a bounded window, the series, all at once. Only "all time" reads its series after the groups,
 * whose first and last seen give the bars their span.
 */
async function loadOverview(api: HivewatchApi, filter: ErrorFilter, windowBucket: ErrorSeries['bucket']): Promise<Overview> {
  const open = filter.since === undefined;
  const [byCategory, byOrigin, byCode, byFlow, byHandled, groups, windowed] = await Promise.all([
    api.errorCounts({ ...filter, by: 'category' }),
    api.errorCounts({ ...filter, by: 'origin', limit: 12 }),
    api.errorCounts({ ...filter, by: 'code', limit: 12 }),
    api.errorCounts({ ...filter, by: 'flow', limit: 50 }),
    api.errorCounts({ ...filter, by: 'handled' }),
    api.errorGroups({ ...filter, limit: 100, trendBins: SPARK_BINS }),
    open ? Promise.resolve(null) : api.errorSeries({ ...filter, bucket: windowBucket, stackBy: 'category' }),
  ]);
  if (windowed) {
    const points = densify(windowed.points, windowBucket, filter.since ?? null, filter.until ?? null);
    return { byCategory, byOrigin, byCode, byFlow, byHandled, series: { ...windowed, bucket: windowBucket, points }, groups };
  }
  // Without a start ("all time") the bars follow the data's own span, from first to last error.
  const first = Math.min(...groups.map((g) => g.firstSeen));
  const last = Math.max(...groups.map((g) => g.lastSeen));
  const bucket = groups.length > 0 ? bucketFor(last - first) : windowBucket;
  // An open window is bounded by the data (errors of virtual-clock runs can lie ahead of now).
  const span = groups.length > 0 ? { since: first, until: filter.until ?? last + 1 } : {};
  const series = await api.errorSeries({ ...filter, ...span, bucket, stackBy: 'category' });
  const points = densify(trimEmpty(series.points), bucket, null, null);
  return { byCategory, byOrigin, byCode, byFlow, byHandled, series: { ...series, bucket, points }, groups };
}

function trimEmpty<P extends { counts: Record<string, number> }>(points: readonly P[]): P[] {
  const nonEmpty = (p: P): boolean => Object.values(p.counts).some((n) => n > 0);
  const from = points.findIndex(nonEmpty);
  if (from < 0) return [];
  let to = points.length - 1;
  while (to > from && !nonEmpty(points[to] as P)) to--;
  return points.slice(from, to + 1);
}

export function useOverview(filter: ErrorFilter, bucket: ErrorSeries['bucket'], refresh: number): AsyncState<Overview> & { reload: () => void } {
  const api = useApi();
  const key = JSON.stringify(filter);
  const { state, reload } = useAsync(() => loadOverview(api, filter, bucket), [api, key, bucket, refresh]);
  return { ...state, reload } as AsyncState<Overview> & { reload: () => void };
}

/** Each group's sparkline, as the groups query returned it (null when it has none). */
export function sparklinesOf(groups: readonly ErrorGroup[] | undefined): ReadonlyMap<string, number[]> {
  const lines = new Map<string, number[]>();
  for (const g of groups ?? []) if (g.trend) lines.set(g.fingerprint, g.trend);
  return lines;
}

export interface Occurrences {
  state: 'loading' | 'ready' | 'error';
  error: string | null;
  items: ErrorOccurrence[];
  nextCursor: string | null;
  loadingMore: boolean;
  more: () => void;
  pivot: PivotNode[];
  pivotTruncated: boolean;
}

/** Occurrences for the filter (and group), page by page, and the pivot of the newest 500. */
export function useOccurrences(filter: ErrorFilter, group: string, refresh: number): Occurrences {
  const api = useApi();
  const key = JSON.stringify(filter);
  const [items, setItems] = useState<ErrorOccurrence[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const pivot = useAsync(async () => {
    const page = await api.listErrors({ ...filter, ...(group ? { fingerprint: group } : {}), limit: 500 });
    return { nodes: buildPivot(page.items), truncated: page.nextCursor !== null };
  }, [api, key, group, refresh]);
  const first = useAsync(async () => api.listErrors({ ...filter, ...(group ? { fingerprint: group } : {}), limit: 50 }), [api, key, group, refresh]);

  useEffect(() => {
    generation.current++;
    if (first.state.status === 'ready') {
      setItems(first.state.data.items);
      setNextCursor(first.state.data.nextCursor);
    }
  }, [first.state]);

  const more = (): void => {
    if (!nextCursor || loadingMore) return;
    const mine = generation.current;
    setLoadingMore(true);
    api
      .listErrors({ ...filter, ...(group ? { fingerprint: group } : {}), limit: 50, cursor: nextCursor })
      .then((page) => {
        if (generation.current !== mine) return;
        setItems((prev) => [...prev, ...page.items]);
        setNextCursor(page.nextCursor);
      })
      .catch(() => undefined)
      .finally(() => setLoadingMore(false));
  };

  return {
    state: first.state.status,
    error: first.state.error,
    items,
    nextCursor,
    loadingMore,
    more,
    pivot: pivot.state.data?.nodes ?? [],
    pivotTruncated: pivot.state.data?.truncated ?? false,
  };
}
