import type { HivewatchApi, ListRunsInput, Page, RunSummary } from '../../core/service/api.js';
import { formatSort, parseRunsQuery, serverFilter } from './runs-query.js';

/**
 * The Runs table's first page, asked for as the window starts (main.tsx), before React renders:
 * the screen's own read starts only after its first render has been committed, about a frame
 * or two of a cold start later, so the request and that render overlap instead of adding up
 * ("first rows < 300 ms"). The view takes it once when its own first read would
 * ask the same (runs-view.ts); anything else, a time range (its `since` is the moment the query
 * is made) or a failed answer, reads afresh.
 */

/** The page size of the Runs table (runs-view.ts). */
export const RUNS_PAGE_SIZE = 100;

/** A prefetched page older than this is not taken: a view mounted later (another screen came first) reads afresh. */
const FRESH_MS = 5_000;

let prefetched: { key: string; at: number; page: Promise<Page<RunSummary>> } | null = null;

const keyOf = (input: ListRunsInput): string => JSON.stringify(input);

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
  const round = { key: keyOf(input), at: now, page: api.listRuns(input) };
  // Nobody may take it (the operator navigated on): never an unhandled rejection, and a failed
  // answer is never handed to a view that mounts later (it reads afresh).
  round.page.catch(() => {
    if (prefetched === round) prefetched = null;
  });
  prefetched = round;
}

/** The prefetched first page when it answers exactly `input`; each is taken once. */
export function takeFirstRuns(input: ListRunsInput, now = Date.now()): Promise<Page<RunSummary>> | null {
  if (prefetched === null || prefetched.key !== keyOf(input) || now - prefetched.at > FRESH_MS) return null;
  const { page } = prefetched;
  prefetched = null;
  return page;
}
