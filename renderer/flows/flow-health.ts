import type { CostSplitView, FlowHealthView, FlowInfo } from '../../core/service/api.js';
import { failureShare, splitTotal } from '../lib/cost-format.js';
import { waitedWords } from '../lib/waited-words.js';

/**
 * The Flows list's rows (docs/triage.md "Flow health"): each flow of the catalog with its
 * health in the period, and each flow that has runs but no file here (an agent's sessions, a
 * file run from elsewhere). Pure, for tests.
 */

export type FlowSection = 'examples' | 'yours' | 'others';

export interface FlowRow {
  id: string;
  name: string;
  section: FlowSection;
  /** The catalog's entry (null: runs only). */
  info: FlowInfo | null;
  health: FlowHealthView | null;
}

export type SortKey = 'name' | 'check' | 'last' | 'success' | 'failures' | 'p50' | 'waited' | 'cost';
export interface Sort {
  key: SortKey;
  /** Ascending in the key's own order (each key's first order puts what needs a look first, see `compare`). */
  descending: boolean;
}

/** Failing first: the order in which a newest run's status asks for a look. */
const LAST_RANK: Record<string, number> = { failed: 0, interrupted: 1, cancelled: 2, cancelling: 3, running: 4, queued: 5, completed: 6 };

export function flowRows(flows: readonly FlowInfo[], health: readonly FlowHealthView[]): FlowRow[] {
  const byFlow = new Map(health.map((h) => [h.flow, h]));
  const rows: FlowRow[] = flows.map((info) => ({
    id: info.id,
    name: info.name,
    section: info.bundled ? 'examples' : 'yours',
    info,
    health: byFlow.get(info.id) ?? null,
  }));
  const known = new Set(flows.map((f) => f.id));
  for (const h of health) if (!known.has(h.flow)) rows.push({ id: h.flow, name: h.flowName, section: 'others', info: null, health: h });
  return rows;
}

const cost = (s: CostSplitView | undefined): number => (s ? splitTotal(s).costUsd : 0);
const checkRank = (row: FlowRow): number => (row.info === null ? 2 : row.info.ok ? 1 : 0);
const waitingNow = (row: FlowRow): number => row.health?.approval?.waitingNow ?? 0;
const waitedMs = (row: FlowRow): number => row.health?.approval?.waitedMs ?? 0;
const lastRank = (row: FlowRow): number => (row.health?.lastRun ? (LAST_RANK[row.health.lastRun.status] ?? 7) : 8);

/** Each key's natural order: what needs a look first (failing, broken, costly, slow), names A→Z. */
function compare(key: SortKey, a: FlowRow, b: FlowRow): number {
  switch (key) {
    case 'name':
      return a.name.localeCompare(b.name);
    case 'check':
      return checkRank(a) - checkRank(b);
    case 'last':
      return lastRank(a) - lastRank(b) || (b.health?.ended.failed ?? 0) - (a.health?.ended.failed ?? 0);
    case 'success':
      return (a.health?.successRate ?? 2) - (b.health?.successRate ?? 2);
    case 'failures':
      return (b.health?.ended.failed ?? 0) - (a.health?.ended.failed ?? 0);
    case 'p50':
      return (b.health?.p50DurationMs ?? -1) - (a.health?.p50DurationMs ?? -1);
    case 'waited':
      return waitingNow(b) - waitingNow(a) || waitedMs(b) - waitedMs(a);
    default:
      return cost(b.health?.cost) - cost(a.health?.cost);
  }
}

export function sortRows(rows: readonly FlowRow[], sort: Sort): FlowRow[] {
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => sign * compare(sort.key, a, b) || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
}

/** "67% (4 of 6)"; "—" when no run completed or failed in the period. */
export function successText(h: FlowHealthView | null): string {
  if (!h || h.successRate === null) return '—';
  const verdicts = h.ended.completed + h.ended.failed;
  return `${Math.round(h.successRate * 100)}% (${h.ended.completed} of ${verdicts})`;
}

/**
 * The Waited cell: what the flow's runs that ended in the period waited on a person's approval
 * ("42 min", "in 3 runs") and how many wait now ("1 waiting now"); null parts are not shown, a
 * flow with neither shows "—".
 */
export function waitedParts(h: FlowHealthView | null): { waited: string | null; runs: string | null; now: string | null } {
  const a = h?.approval;
  if (!a) return { waited: null, runs: null, now: null };
  return {
    waited: a.runs > 0 ? waitedWords(a.waitedMs) : null,
    runs: a.runs > 0 ? `in ${a.runs} run${a.runs === 1 ? '' : 's'}` : null,
    now: a.waitingNow > 0 ? `${a.waitingNow} waiting now` : null,
  };
}

/** "100% on failure", for the cost cell; null when nothing had a price. */
export function shareText(s: CostSplitView): string | null {
  const share = failureShare(s);
  return share === null ? null : `${Math.round(share * 100)}% on failure`;
}

/** The order a header click gives: a new column starts in its natural order, the same one flips. */
export function nextSort(current: Sort, key: SortKey): Sort {
  return current.key === key ? { key, descending: !current.descending } : { key, descending: false };
}

/** `aria-sort` of a column: its natural order reads as the screen reader expects of its values. */
export function ariaSort(current: Sort, key: SortKey): 'ascending' | 'descending' | 'none' {
  if (current.key !== key) return 'none';
  // Names run A→Z; every other key's natural order puts the largest (worst) first.
  const natural = key === 'name' || key === 'check' || key === 'last' || key === 'success' ? 'ascending' : 'descending';
  return current.descending ? (natural === 'ascending' ? 'descending' : 'ascending') : natural;
}
