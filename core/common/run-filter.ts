import type { RunStatus } from '../base/events.js';
import type { RunListStatus } from '../base/run-list-status.js';
import type { RunEnding } from './ending-chain.js';

/**
 * The runs filter and order, the rules the store's run queries apply in SQL
 * (core/store/queries/runs.ts) said once over a run's summary, so the window places a live change
 * inside the rows it already holds exactly where the store would (renderer/runs/runs-view.ts).
 * What a summary cannot tell (a task prompt the text matched, an error occurrence other than the
 * newest, which flow files exist) is answered null, "cannot be told here", never a false the store
 * would contradict: a run the store lists must not drop out of the window on its next event.
 */

/** What a run list filters by (the API's `RunFilterInput`, the store's `RunFilters`). */
export interface RunFilter {
  /** Run statuses, and the derived `waiting-limit` / `waiting-approval` (core/base/run-list-status.ts). */
  status?: RunListStatus | readonly RunListStatus[];
  /** The flow file, or when no run has that file, the flow's name. */
  flow?: string;
  /** Substring (ASCII letters folded) of the run id, flow, flow name or last error message, or of a task prompt. */
  text?: string;
  /** The ending error's code or its root cause's, and its category. */
  code?: string;
  category?: string;
  /** Any error occurrence of the run has this code / category, whatever became of it. */
  anyCode?: string;
  anyCategory?: string;
  /** Any error occurrence of the run is in this error group (its fingerprint). */
  issue?: string;
  /** Window on the start time: since ≤ startedAt < until. */
  since?: number;
  until?: number;
}

/** What of a run the filter and the order read (the API's `RunSummary` has it all). */
export interface FilterableRun {
  id: string;
  flow: string;
  flowName: string;
  status: RunStatus;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  step: number;
  attempts: number;
  errorCount: number;
  waitingUntil?: number | null;
  /** Set while the run waits on a person's answer to a permission prompt. */
  approval?: { since: number } | null;
  lastError: { code: string; message: string } | null;
  endingError: Pick<RunEnding, 'code' | 'category' | 'rootCode'> | null;
}

/**
 * The run list's order by status (the store's STATUS_RANK_SQL is the same ranks as SQL text,
 * frozen in an index's expression): live runs first, then the ones that ended, worst first.
 */
export const STATUS_RANK: Readonly<Record<RunStatus, number>> = { running: 0, cancelling: 1, queued: 2, failed: 3, interrupted: 4, cancelled: 5, completed: 6 };

export const RUN_SORT_KEYS = ['started', 'ended', 'duration', 'errors', 'attempts', 'step', 'status', 'flow'] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];

/**
 * How ties of a sort are broken after its value: along the sort's direction by start time, or
 * (status and flow, whose natural direction is ascending) newest first when ascending; `started`
 * goes straight to the id. Every order ends with the id, so a page boundary is exact.
 */
export const RUN_SORT_TIES: Readonly<Record<RunSortKey, 'along' | 'newest' | 'id'>> = {
  started: 'id',
  ended: 'along',
  duration: 'along',
  errors: 'along',
  attempts: 'along',
  step: 'along',
  status: 'newest',
  flow: 'newest',
};

/** A sort's value of a run: never null (a live run's end and duration sort as the store's COALESCE does). */
function sortValue(run: FilterableRun, key: RunSortKey): number | string {
  switch (key) {
    case 'started':
      return run.startedAt;
    case 'ended':
      return run.endedAt ?? Number.MAX_SAFE_INTEGER;
    case 'duration':
      return run.durationMs ?? -1;
    case 'errors':
      return run.errorCount;
    case 'attempts':
      return run.attempts;
    case 'step':
      return run.step;
    case 'status':
      return STATUS_RANK[run.status];
    case 'flow':
      return run.flowName;
  }
}

/** Text in code-unit order (the store's collation for these columns is binary). */
function byCode(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The store's order over runs: the sort value, then the tie rule, then the id, all along `desc`. */
export function runComparator(key: RunSortKey, desc: boolean): (a: FilterableRun, b: FilterableRun) => number {
  const dir = desc ? -1 : 1;
  const ties = RUN_SORT_TIES[key];
  return (a, b) => {
    const va = sortValue(a, key);
    const vb = sortValue(b, key);
    const primary = typeof va === 'number' && typeof vb === 'number' ? va - vb : byCode(String(va), String(vb));
    if (primary !== 0) return dir * primary;
    if (ties !== 'id') {
      const time = ties === 'newest' ? b.startedAt - a.startedAt : a.startedAt - b.startedAt;
      if (time !== 0) return dir * time;
    }
    return dir * byCode(a.id, b.id);
  };
}

/** Lower case for ASCII letters only: SQLite's LIKE folds nothing else. */
const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/**
 * Whether the store's text search surely finds the run by its own fields: the text (trimmed, as
 * the store trims it) is in its id, flow file, flow name or last error message with ASCII letters
 * folded. Every path of the store (SQLite's LIKE and trigram index, PostgreSQL's ILIKE) finds such
 * a run; when the fields do not contain it, the store may still find it through a task prompt or
 * a case folding wider than ASCII (the trigram index, ILIKE).
 */
function containsText(run: FilterableRun, text: string): boolean {
  const needle = asciiLower(text);
  return [run.id, run.flowName, run.flow, run.lastError?.message ?? ''].some((field) => asciiLower(field).includes(needle));
}

/**
 * The status filter: a run status, `waiting-limit` for a run waiting out a usage limit, or
 * `waiting-approval` for one waiting on a person; an empty list matches nothing.
 */
function matchesStatus(run: FilterableRun, status: RunFilter['status']): boolean {
  if (status === undefined) return true;
  const statuses: readonly RunListStatus[] = typeof status === 'string' ? [status] : status;
  return (
    statuses.includes(run.status) ||
    (statuses.includes('waiting-limit') && run.waitingUntil != null) ||
    (statuses.includes('waiting-approval') && run.approval != null)
  );
}

/**
 * The flow filter: the run's file is the value (some run has that file, so the store matches
 * files); else a run named so matches only if no run has that file, which the summary cannot tell.
 */
function matchesFlow(run: FilterableRun, flow: string): boolean | null {
  if (run.flow === flow) return true;
  return run.flowName === flow ? null : false;
}

/** The occurrence filters: false without errors, true when the newest one has the code, else null. */
function matchesAnyError(run: FilterableRun, filter: RunFilter): boolean | null {
  // An issue is a fingerprint the summary does not carry: a run with errors cannot be told here.
  if (filter.issue) return run.errorCount === 0 ? false : null;
  if (!filter.anyCode && !filter.anyCategory) return true;
  if (run.errorCount === 0) return false;
  if (filter.anyCode && !filter.anyCategory && run.lastError?.code === filter.anyCode) return true;
  return null;
}

/**
 * Whether the store lists the run under `filter`: true / false, or null when a summary cannot
 * tell. `code` / `category` mean the ending error (its code or its root cause's), which the
 * summary carries; `anyCode` / `anyCategory` / `issue` any occurrence; `text` the run's own fields
 * and its task prompts, of which the summary has only the former.
 */
export function matchesRunFilter(run: FilterableRun, filter: RunFilter): boolean | null {
  if (!matchesStatus(run, filter.status)) return false;
  const ending = run.endingError;
  if (filter.code && ending?.code !== filter.code && ending?.rootCode !== filter.code) return false;
  if (filter.category && ending?.category !== filter.category) return false;
  if (filter.since !== undefined && run.startedAt < filter.since) return false;
  if (filter.until !== undefined && run.startedAt >= filter.until) return false;
  const flow = filter.flow ? matchesFlow(run, filter.flow) : true;
  if (flow === false) return false;
  const errors = matchesAnyError(run, filter);
  if (errors === false) return false;
  const text = filter.text?.trim() ?? '';
  if (flow === null || errors === null || (text !== '' && !containsText(run, text))) return null;
  return true;
}
