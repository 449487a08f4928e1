import type { RunStatus, RunSummary } from '../../core/service/api.js';

/**
 * The Runs table's filters and sort, as they live in the URL (`#/runs?status=failed,running&
 * flow=…&q=…&sort=-started`), and the pure filter + sort the table applies to the live rows.
 */

/** Duplicated from core/service/api.ts (the renderer imports types only). */
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'interrupted'];

export const SORT_KEYS = ['started', 'duration', 'status', 'flow', 'step', 'attempts', 'errors'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface RunsSort {
  key: SortKey;
  desc: boolean;
}

export interface RunsQuery {
  status: RunStatus[];
  flow: string;
  text: string;
  sort: RunsSort;
}

export const DEFAULT_SORT: RunsSort = { key: 'started', desc: true };

export function parseSort(text: string | null): RunsSort {
  if (!text) return DEFAULT_SORT;
  const desc = text.startsWith('-');
  const key = (desc ? text.slice(1) : text) as SortKey;
  return SORT_KEYS.includes(key) ? { key, desc } : DEFAULT_SORT;
}

export function formatSort(sort: RunsSort): string {
  return `${sort.desc ? '-' : ''}${sort.key}`;
}

export function parseRunsQuery(params: URLSearchParams): RunsQuery {
  const status = (params.get('status') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is RunStatus => (RUN_STATUSES as readonly string[]).includes(s));
  return {
    status: RUN_STATUSES.filter((s) => status.includes(s)),
    flow: params.get('flow') ?? '',
    text: params.get('q') ?? '',
    sort: parseSort(params.get('sort')),
  };
}

/** Only what differs from the defaults, in a stable order: a clean, shareable URL. */
export function serializeRunsQuery(query: RunsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.status.length > 0) params.set('status', RUN_STATUSES.filter((s) => query.status.includes(s)).join(','));
  if (query.flow) params.set('flow', query.flow);
  if (query.text) params.set('q', query.text);
  if (query.sort.key !== DEFAULT_SORT.key || query.sort.desc !== DEFAULT_SORT.desc) params.set('sort', formatSort(query.sort));
  return params;
}

/** Clicking a column: the same key flips direction; a new key starts descending for numbers/time. */
export function nextSort(current: RunsSort, key: SortKey): RunsSort {
  if (current.key === key) return { key, desc: !current.desc };
  return { key, desc: key !== 'flow' && key !== 'status' };
}

const STATUS_ORDER = new Map(RUN_STATUSES.map((s, i) => [s, i]));

function durationOf(run: RunSummary, now: number): number {
  return run.durationMs ?? now - run.startedAt;
}

function compareBy(key: SortKey, now: number): (a: RunSummary, b: RunSummary) => number {
  switch (key) {
    case 'started':
      return (a, b) => a.startedAt - b.startedAt;
    case 'duration':
      return (a, b) => durationOf(a, now) - durationOf(b, now);
    case 'status':
      return (a, b) => (STATUS_ORDER.get(a.status) ?? 0) - (STATUS_ORDER.get(b.status) ?? 0);
    case 'flow':
      return (a, b) => a.flowName.localeCompare(b.flowName);
    case 'step':
      return (a, b) => a.step - b.step;
    case 'attempts':
      return (a, b) => a.attempts - b.attempts;
    case 'errors':
      return (a, b) => a.errorCount - b.errorCount;
  }
}

export function matchesText(run: RunSummary, needle: string): boolean {
  if (!needle) return true;
  const n = needle.toLowerCase();
  return (
    run.id.toLowerCase().includes(n) ||
    run.flowName.toLowerCase().includes(n) ||
    run.flow.toLowerCase().includes(n) ||
    (run.lastError !== null && (run.lastError.code.toLowerCase().includes(n) || run.lastError.message.toLowerCase().includes(n)))
  );
}

/** The rows the table shows, in order. Ties break on start time, then id, so the order is stable. */
export function filterAndSortRuns(runs: Iterable<RunSummary>, query: RunsQuery, now: number): RunSummary[] {
  const statuses = query.status.length > 0 ? new Set(query.status) : null;
  const text = query.text.trim();
  const out: RunSummary[] = [];
  for (const run of runs) {
    if (statuses && !statuses.has(run.status)) continue;
    if (query.flow && run.flow !== query.flow && run.flowName !== query.flow) continue;
    if (!matchesText(run, text)) continue;
    out.push(run);
  }
  const primary = compareBy(query.sort.key, now);
  const dir = query.sort.desc ? -1 : 1;
  out.sort((a, b) => dir * (primary(a, b) || a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  return out;
}

/** Flows present in the loaded runs, for the flow filter: [flow, flowName, count], by name. */
export function flowsOf(runs: Iterable<RunSummary>): { flow: string; name: string; count: number }[] {
  const byFlow = new Map<string, { flow: string; name: string; count: number }>();
  for (const run of runs) {
    const entry = byFlow.get(run.flow);
    if (entry) entry.count++;
    else byFlow.set(run.flow, { flow: run.flow, name: run.flowName || run.flow, count: 1 });
  }
  return [...byFlow.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Counts per status over the loaded runs (the status filter chips show them). */
export function statusCounts(runs: Iterable<RunSummary>): Map<RunStatus, number> {
  const counts = new Map<RunStatus, number>();
  for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  return counts;
}
