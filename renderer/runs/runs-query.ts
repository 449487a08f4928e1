import type { RunFilterInput, RunListStatus, RunSort, RunStatus, RunSummary } from '../../core/service/api.js';

/**
 * The Runs table's filters and sort, as they live in the URL (`#/runs?status=failed,running&
 * flow=…&q=…&code=…&category=…&range=24h&sort=-started`), what they mean as a server query, and
 * the client-side twin of the server's filter and order, used only to place live changes inside
 * the rows already loaded (the server decides everything else).
 */

/**
 * Duplicated from core/service/api.ts (the renderer imports types only): the run statuses and the
 * derived `waiting-limit` (a running run waiting for a usage limit's reset), each a status chip.
 */
export const RUN_STATUSES: readonly RunListStatus[] = ['queued', 'running', 'waiting-limit', 'waiting-approval', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted'];

/** Duplicated from core/base/errors/taxonomy.ts. */
export const ERROR_CATEGORIES = ['system', 'runtime', 'agent', 'scope', 'verification', 'git', 'user', 'policy'] as const;

const SORT_KEYS = ['started', 'duration', 'status', 'flow', 'step', 'attempts', 'errors'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Start-time windows the toolbar offers, relative to now. */
export const RANGES = { '': null, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangeKey = keyof typeof RANGES;

export interface RunsSort {
  key: SortKey;
  desc: boolean;
}

/**
 * Which errors the code and category filters look at (docs/semantics.md F1): `ending`, the error
 * that ended the run (its code or its root cause's); `any`, any error occurrence of the run,
 * whatever became of it (retried, caught).
 */
export type ErrorMatch = 'ending' | 'any';

export interface RunsQuery {
  status: RunListStatus[];
  flow: string;
  text: string;
  /** An error code: of the ending error (or its root cause), or of any error with `match: any`. */
  code: string;
  category: string;
  match: ErrorMatch;
  range: RangeKey;
  /** An error issue (its fingerprint): runs with any occurrence of it (`issue=`, from the Errors screen). */
  issue: string;
  sort: RunsSort;
}

export const DEFAULT_SORT: RunsSort = { key: 'started', desc: true };

export const EMPTY_FILTERS = { status: [] as RunListStatus[], flow: '', text: '', code: '', category: '', match: 'ending' as ErrorMatch, range: '' as RangeKey, issue: '' };

export function parseSort(text: string | null): RunsSort {
  if (!text) return DEFAULT_SORT;
  const desc = text.startsWith('-');
  const key = (desc ? text.slice(1) : text) as SortKey;
  return SORT_KEYS.includes(key) ? { key, desc } : DEFAULT_SORT;
}

export function formatSort(sort: RunsSort): RunSort {
  return `${sort.desc ? '-' : ''}${sort.key}`;
}

export function parseRunsQuery(params: URLSearchParams): RunsQuery {
  const status = (params.get('status') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is RunListStatus => (RUN_STATUSES as readonly string[]).includes(s));
  const range = params.get('range') ?? '';
  const category = params.get('category') ?? '';
  return {
    status: RUN_STATUSES.filter((s) => status.includes(s)),
    flow: params.get('flow') ?? '',
    text: params.get('q') ?? '',
    code: params.get('code') ?? '',
    category: (ERROR_CATEGORIES as readonly string[]).includes(category) ? category : '',
    match: params.get('match') === 'any' ? 'any' : 'ending',
    range: Object.prototype.hasOwnProperty.call(RANGES, range) ? (range as RangeKey) : '',
    issue: /^[0-9a-f]{1,64}$/.test(params.get('issue') ?? '') ? (params.get('issue') as string) : '',
    sort: parseSort(params.get('sort')),
  };
}

/** Only what differs from the defaults, in a stable order: a clean, shareable URL. */
export function serializeRunsQuery(query: RunsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.status.length > 0) params.set('status', RUN_STATUSES.filter((s) => query.status.includes(s)).join(','));
  if (query.flow) params.set('flow', query.flow);
  if (query.text) params.set('q', query.text);
  if (query.code) params.set('code', query.code);
  if (query.category) params.set('category', query.category);
  if (query.match === 'any' && (query.code || query.category)) params.set('match', 'any');
  if (query.range) params.set('range', query.range);
  if (query.issue) params.set('issue', query.issue);
  if (query.sort.key !== DEFAULT_SORT.key || query.sort.desc !== DEFAULT_SORT.desc) params.set('sort', formatSort(query.sort));
  return params;
}

export function isFiltered(query: RunsQuery): boolean {
  return query.status.length > 0 || query.flow !== '' || query.text.trim() !== '' || query.code !== '' || query.category !== '' || query.range !== '' || query.issue !== '';
}

/** Clicking a column: the same key flips direction; a new key starts descending for numbers/time. */
export function nextSort(current: RunsSort, key: SortKey): RunsSort {
  if (current.key === key) return { key, desc: !current.desc };
  return { key, desc: key !== 'flow' && key !== 'status' };
}

/** The server filter of a query; a time range is resolved against `now` (the moment the query was made). */
export function serverFilter(query: RunsQuery, now: number): RunFilterInput {
  const filter: RunFilterInput = {};
  if (query.status.length > 0) filter.status = [...query.status];
  if (query.flow) filter.flow = query.flow;
  const text = query.text.trim();
  if (text) filter.text = text;
  if (query.code) filter[query.match === 'any' ? 'anyCode' : 'code'] = query.code;
  if (query.category) filter[query.match === 'any' ? 'anyCategory' : 'category'] = query.category;
  const span = RANGES[query.range];
  if (span !== null) filter.since = now - span;
  if (query.issue) filter.issue = query.issue;
  return filter;
}

/**
 * Whether a run has an error occurrence matching `anyCode` / `anyCategory`: false when it has no
 * error, true when its newest one has the code, else null (its other occurrences are not in the
 * summary).
 */
function matchesAnyError(run: RunSummary, filter: RunFilterInput): boolean | null {
  // An issue is a fingerprint the summary does not carry: a run with errors cannot be told here.
  if (filter.issue) return run.errorCount === 0 ? false : null;
  if (!filter.anyCode && !filter.anyCategory) return true;
  if (run.errorCount === 0) return false;
  if (filter.anyCode && !filter.anyCategory && run.lastError?.code === filter.anyCode) return true;
  return null;
}

/**
 * Whether a live run matches the server filter: true / false, or null when it cannot be told on
 * the client. `code` / `category` mean the run's ending error (its code or its root cause's, as
 * the store's query does), which the summary carries; `anyCode` / `anyCategory` any occurrence;
 * `text` the run's own fields and its task prompts, of which the summary has only the former.
 */
export function matchesFilter(run: RunSummary, filter: RunFilterInput): boolean | null {
  const derived = (filter.status?.includes('waiting-limit') && run.waitingUntil != null) || (filter.status?.includes('waiting-approval') && run.approval != null);
  if (filter.status && !filter.status.includes(run.status) && !derived) return false;
  if (filter.flow && run.flow !== filter.flow && run.flowName !== filter.flow) return false;
  const ending = run.endingError;
  if (filter.code && ending?.code !== filter.code && ending?.rootCode !== filter.code) return false;
  if (filter.category && ending?.category !== filter.category) return false;
  if (filter.since !== undefined && run.startedAt < filter.since) return false;
  if (filter.until !== undefined && run.startedAt >= filter.until) return false;
  const text = filter.text?.trim() ?? '';
  if (text !== '' && !containsText(run, text)) return null;
  return matchesAnyError(run, filter);
}

/** Lower case for ASCII letters only: SQLite's LIKE folds nothing else. */
const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/**
 * Whether the store's text search surely finds the run by its own fields: the text (trimmed, as
 * the store trims it) is in its id, flow file, flow name or last error message with ASCII letters
 * folded. Every path of the store (SQLite's LIKE and trigram index, PostgreSQL's ILIKE) finds such
 * a run. When the fields do not contain it, the store may still find the run through one of its
 * task prompts, which a summary does not carry, or through a case folding wider than ASCII (the
 * trigram index, ILIKE): the caller gets null, "cannot be told here", never a false the store
 * would contradict (a run found by its prompt must not drop out of the list on its next event).
 */
function containsText(run: RunSummary, text: string): boolean {
  const needle = asciiLower(text);
  return [run.id, run.flowName, run.flow, run.lastError?.message ?? ''].some((field) => asciiLower(field).includes(needle));
}

/** Matches the store's STATUS_RANK_SQL (core/store/migrations.ts). */
const STATUS_RANK: Record<RunStatus, number> = { running: 0, cancelling: 1, queued: 2, failed: 3, interrupted: 4, cancelled: 5, completed: 6 };

function byCode(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The server's order (core/store/queries/runs.ts: SORTS) over summaries: the sort value, then
 * start time along the sort (newest first for status and flow), then id.
 */
export function compareRuns(sort: RunsSort): (a: RunSummary, b: RunSummary) => number {
  const dir = sort.desc ? -1 : 1;
  const value = (run: RunSummary): number | string => {
    switch (sort.key) {
      case 'started':
        return run.startedAt;
      case 'duration':
        return run.durationMs ?? -1;
      case 'status':
        return STATUS_RANK[run.status];
      case 'flow':
        return run.flowName;
      case 'step':
        return run.step;
      case 'attempts':
        return run.attempts;
      case 'errors':
        return run.errorCount;
    }
  };
  const newestTies = sort.key === 'status' || sort.key === 'flow';
  return (a, b) => {
    const va = value(a);
    const vb = value(b);
    const primary = typeof va === 'number' && typeof vb === 'number' ? va - vb : byCode(String(va), String(vb));
    if (primary !== 0) return dir * primary;
    if (sort.key !== 'started') {
      const time = newestTies ? b.startedAt - a.startedAt : a.startedAt - b.startedAt;
      if (time !== 0) return dir * time;
    }
    return dir * byCode(a.id, b.id);
  };
}
