import type {
  ErrorOccurrence as StoreErrorOccurrence,
  ErrorSeries as StoreErrorSeries,
  ErrorSeriesQuery,
  HivewatchStore,
  ListErrorsQuery,
} from '../../store/index.js';
import type { Bucket, ErrorCount, ErrorDimension, ErrorGroup } from '../api.js';
import { HANDLED_KEYS } from '../api.js';
import { ApiError } from '../../common/api-errors.js';

/**
 * The error aggregations of one run (`runId` in errorCounts / errorSeries / errorGroups). The
 * rollups are kept per flow, origin, code… but not per run, so these read the run's errors and
 * aggregate them here, with the same keys, order and limits as the rollup answers.
 */

const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** The window of an error series when the caller gives none: the last hour, day or month. */
const DEFAULT_SERIES_BUCKETS: Record<Bucket, number> = { minute: 60, hour: 24, day: 30 };
const MAX_SERIES_BUCKETS = 10_000;
/** Errors read at most to aggregate one run's errors. */
const MAX_RUN_ERRORS = 100_000;

export type RunErrorFilter = Omit<ListErrorsQuery, 'limit' | 'cursor'> & { runId: string };

/** The window of a series: the caller's, or the last DEFAULT_SERIES_BUCKETS buckets up to now. */
export function seriesWindow(bucket: Bucket, since: number | undefined, until: number | undefined): { since: number; until: number } {
  const size = BUCKET_MS[bucket];
  const end = until ?? (Math.floor(Date.now() / size) + 1) * size;
  return { since: since ?? end - DEFAULT_SERIES_BUCKETS[bucket] * size, until: end };
}

/** One run's errors (newest first). */
async function errorsOfRun(store: HivewatchStore, filter: RunErrorFilter): Promise<StoreErrorOccurrence[]> {
  const out: StoreErrorOccurrence[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listErrors({ ...filter, limit: 1_000, cursor });
    out.push(...page.errors);
    cursor = page.nextCursor;
  } while (cursor !== null && out.length < MAX_RUN_ERRORS);
  return out;
}

function keyOf(dimension: ErrorDimension, e: StoreErrorOccurrence): string | null {
  switch (dimension) {
    case 'run':
      return e.runId;
    case 'task':
      return e.taskId === null ? null : `${e.runId}/${e.taskId}`;
    case 'handled':
      return HANDLED_KEYS[e.disposition];
    default:
      return e[dimension];
  }
}

export async function runErrorCounts(store: HivewatchStore, filter: RunErrorFilter, by: ErrorDimension, limit: number): Promise<ErrorCount[]> {
  const counts = new Map<string, ErrorCount>();
  for (const e of await errorsOfRun(store, filter)) {
    const key = keyOf(by, e);
    if (key === null) continue;
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { key, count: 1, label: by === 'flow' || by === 'run' || by === 'task' ? e.flowName : null });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, limit);
}

export async function runErrorSeries(
  store: HivewatchStore,
  filter: RunErrorFilter,
  window: { since: number; until: number },
  bucket: Bucket,
  stackBy: ErrorSeriesQuery['stackBy'],
): Promise<StoreErrorSeries> {
  const size = BUCKET_MS[bucket];
  const first = Math.floor(window.since / size) * size;
  const count = window.until > first ? Math.ceil((window.until - first) / size) : 0;
  if (count > MAX_SERIES_BUCKETS) {
    throw new ApiError('invalid_input', `${count} ${bucket} buckets requested; at most ${MAX_SERIES_BUCKETS} (use a coarser bucket)`);
  }
  const byKey = new Map<string, { key: string; total: number; counts: number[] }>();
  for (const e of await errorsOfRun(store, { ...filter, since: window.since, until: window.until })) {
    const index = Math.floor((e.ts - first) / size);
    if (index < 0 || index >= count) continue;
    const key = e[stackBy];
    let s = byKey.get(key);
    if (!s) byKey.set(key, (s = { key, total: 0, counts: new Array<number>(count).fill(0) }));
    s.counts[index] = (s.counts[index] ?? 0) + 1;
    s.total++;
  }
  return {
    bucket,
    bucketMs: size,
    buckets: Array.from({ length: count }, (_, i) => first + i * size),
    series: [...byKey.values()].sort((a, b) => b.total - a.total || (a.key < b.key ? -1 : 1)),
  };
}

export async function runErrorGroups(store: HivewatchStore, filter: RunErrorFilter, limit: number): Promise<ErrorGroup[]> {
  const groups = new Map<string, ErrorGroup>();
  for (const e of await errorsOfRun(store, filter)) {
    const group = groups.get(e.fingerprint);
    const unhandled = e.disposition === 'unhandled' ? 1 : 0;
    if (group) {
      group.count++;
      group.unhandled += unhandled;
      group.firstSeen = Math.min(group.firstSeen, e.ts);
      group.lastSeen = Math.max(group.lastSeen, e.ts);
    } else {
      // Newest first: the first member seen carries the group's latest message.
      groups.set(e.fingerprint, {
        fingerprint: e.fingerprint,
        category: e.category,
        code: e.code,
        origin: e.origin,
        message: e.message,
        count: 1,
        unhandled,
        firstSeen: e.ts,
        lastSeen: e.ts,
      });
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen || (a.fingerprint < b.fingerprint ? -1 : 1)).slice(0, limit);
}
