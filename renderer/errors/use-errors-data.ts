import { useEffect, useMemo, useRef, useState } from 'react';
import type { ErrorCount, ErrorFilter, ErrorGroup, ErrorOccurrence, ErrorSeries, HivewatchApi } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { useAsync, type AsyncState } from '../lib/use-async.js';
import { binTimestamps, densify } from './bins.js';
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

async function loadOverview(api: HivewatchApi, filter: ErrorFilter, windowBucket: ErrorSeries['bucket']): Promise<Overview> {
  const [byCategory, byOrigin, byCode, byFlow, byHandled, groups] = await Promise.all([
    api.errorCounts({ ...filter, by: 'category' }),
    api.errorCounts({ ...filter, by: 'origin', limit: 12 }),
    api.errorCounts({ ...filter, by: 'code', limit: 12 }),
    api.errorCounts({ ...filter, by: 'flow', limit: 50 }),
    api.errorCounts({ ...filter, by: 'handled' }),
    api.errorGroups({ ...filter, limit: 100 }),
  ]);
  // Without a start ("all time") the bars follow the data's own span, from first to last error.
  const open = filter.since === undefined;
  const first = Math.min(...groups.map((g) => g.firstSeen));
  const last = Math.max(...groups.map((g) => g.lastSeen));
  const bucket = open && groups.length > 0 ? bucketFor(last - first) : windowBucket;
  // An open window is bounded by the data (errors of virtual-clock runs can lie ahead of now).
  const span = open && groups.length > 0 ? { since: first, until: filter.until ?? last + 1 } : {};
  const series = await api.errorSeries({ ...filter, ...span, bucket, stackBy: 'category' });
  const points = open
    ? densify(trimEmpty(series.points), bucket, null, null)
    : densify(series.points, bucket, filter.since ?? null, filter.until ?? null);
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

const SPARK_BINS = 24;
const SPARK_GROUPS = 30;

/** Per-group trend: the group's occurrences (up to 500) binned over the window. */
export function useSparklines(groups: readonly ErrorGroup[] | undefined, filter: ErrorFilter, now: number): ReadonlyMap<string, number[]> {
  const api = useApi();
  const [lines, setLines] = useState<ReadonlyMap<string, number[]>>(new Map());
  const key = JSON.stringify(filter);
  const fingerprints = useMemo(() => (groups ?? []).slice(0, SPARK_GROUPS).map((g) => g.fingerprint), [groups]);
  const earliest = useMemo(() => Math.min(now, ...(groups ?? []).map((g) => g.firstSeen)), [groups, now]);
  const latest = useMemo(() => Math.max(now, ...(groups ?? []).map((g) => g.lastSeen)), [groups, now]);

  useEffect(() => {
    let alive = true;
    const start = filter.since ?? earliest;
    const end = filter.until ?? latest + 1;
    const queue = [...fingerprints];
    const result = new Map<string, number[]>();
    const worker = async (): Promise<void> => {
      for (let fp = queue.shift(); fp !== undefined && alive; fp = queue.shift()) {
        try {
          const page = await api.listErrors({ ...filter, fingerprint: fp, limit: 500 });
          result.set(fp, binTimestamps(page.items.map((o) => o.ts), start, end, SPARK_BINS));
        } catch {
          // A missing sparkline is not worth an error state.
        }
      }
    };
    void Promise.all([worker(), worker(), worker()]).then(() => {
      if (alive) setLines(result);
    });
    return () => {
      alive = false;
    };
  }, [api, key, fingerprints, earliest, latest]);
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
