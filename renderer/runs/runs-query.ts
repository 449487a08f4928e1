import type { RunFilterInput, RunListStatus, RunSort } from '../../core/service/api.js';
import { runComparator, type FilterableRun } from '../../core/common/run-filter.js';

/**
 * The Runs table's filters and sort, as they live in the URL (`#/runs?status=failed,running&
 * flow=…&q=…&code=…&category=…&range=24h&sort=-started`), and what they mean as a server query.
 * Live changes are placed inside the rows already loaded by the store's own filter and order
 * (core/common/run-filter.ts); the server decides everything else.
 */

/**
 * Duplicated from core/service/api.ts (the renderer imports types only): the run statuses and the
 * derived `waiting-limit` (a running run waiting for a usage limit's reset), each a status chip.
 */
export const RUN_STATUSES: readonly RunListStatus[] = [
  'queued',
  'running',
  'waiting-limit',
  'waiting-approval',
  'cancelling',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
];

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

export const EMPTY_FILTERS = {
  status: [] as RunListStatus[],
  flow: '',
  text: '',
  code: '',
  category: '',
  match: 'ending' as ErrorMatch,
  range: '' as RangeKey,
  issue: '',
};

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
  return (
    query.status.length > 0 ||
    query.flow !== '' ||
    query.text.trim() !== '' ||
    query.code !== '' ||
    query.category !== '' ||
    query.range !== '' ||
    query.issue !== ''
  );
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

/** The store's order of runs under the table's sort. */
export function compareRuns(sort: RunsSort): (a: FilterableRun, b: FilterableRun) => number {
  return runComparator(sort.key, sort.desc);
}
