import type { HivewatchApi, ListRunsInput, Page, RunSummary } from '../../core/service/api.js';
import { keepRead, takeKept } from '../lib/kept-reads.js';
import { formatSort, parseRunsQuery, serverFilter } from './runs-query.js';

/**
 * The Runs table's first page, asked for as the window starts (main.tsx), before React renders:
 * the screen's own read starts only after its first render has been committed, about a frame
 * or two of a cold start later, so the request and that render overlap instead of adding up
 * ("first rows < 300 ms"). The view takes it once when its own first read would
 * ask the same (runs-view.ts); anything else, a time range (its `since` is the moment the query
 * is made) or a failed answer, reads afresh (lib/kept-reads.ts).
 */

/** The page size of the Runs table (runs-view.ts). */
export const RUNS_PAGE_SIZE = 100;

const keyOf = (input: ListRunsInput): string => `runs ${JSON.stringify(input)}`;

/** The first page's input for the Runs list at `params`, or null when it depends on the moment (a time range). */
function firstPageInput(params: URLSearchParams): ListRunsInput | null {
  const query = parseRunsQuery(params);
  if (query.range !== '') return null;
  return { ...serverFilter(query, 0), sort: formatSort(query.sort), limit: RUNS_PAGE_SIZE };
}

/** Starts reading the first page when `path` is the Runs list (`#/runs` or the empty hash). */
export function prefetchFirstRuns(api: HivewatchApi, path: readonly string[], params: URLSearchParams, now = Date.now()): void {
  if (!(path.length === 0 || (path.length === 1 && path[0] === 'runs'))) return;
  const input = firstPageInput(params);
  if (input === null) return;
  keepRead(keyOf(input), api.listRuns(input), now);
}

/** The prefetched first page when it answers exactly `input`; each is taken once. */
export function takeFirstRuns(input: ListRunsInput, now = Date.now()): Promise<Page<RunSummary>> | null {
  return takeKept<Page<RunSummary>>(keyOf(input), now);
}
