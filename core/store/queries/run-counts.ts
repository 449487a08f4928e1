import type { RunStatus } from '../../base/events.js';
import type { RunListStatus } from '../../base/run-list-status.js';
import { HOUR_MS } from '../migrations/v10-v19/v19-runs-at-scale.js';
import { Conditions, optionalText, optionalTime } from './sql.js';
import { all, Dialect, get, type Query } from './plan.js';
import { TEXT_INDEX_MIN_CHARS } from '../schema-constants.js';
import { flowFiles, runFilters, statusList, TEXT_COUNT_CAP, type RunCounts, type RunFilters } from './runs.js';
import { countDerived, DERIVED_STATES, derivedOutside, splitDerived } from './waiting-limit.js';

/**
 * The counts beside the run list (the "N runs match" line, the status chips, the flow picker),
 * each answer bounded work at any history size:
 *  - no filter but status and flow: `run_counts` (one row per flow and status, migration 7);
 *  - a start-time window besides: the whole hours inside it from `run_counts_hourly`
 *    (migration 19) and the runs of its partial edge hours through `runs_started_counts`;
 *  - any other filter (text, error code or category, issue): the matching runs themselves,
 *    counted up to a cap (RUN_COUNT_CAP, TEXT_COUNT_CAP). Past it the answer says `atLeast` and its numbers are lower
 *    bounds (the window writes "at least"): counting 100,000 matches would hold the server
 *    (SQLite answers on its one thread) for the next question the operator asks.
 */

/** Above this many matching runs a count that reads runs stops (and is a lower bound): the most a bulk action may take. */
const RUN_COUNT_CAP = 10_000;

interface Cell {
  flow: string;
  status: RunStatus;
  n: number;
}

/** Whether the filters other than status and flow are at most a start-time window (the hourly counts answer them). */
function onlyTimeWindow(query: RunFilters): boolean {
  const unset = (value: string | undefined): boolean => value === undefined || value.trim() === '';
  return unset(query.text) && unset(query.code) && unset(query.category) && unset(query.anyCode) && unset(query.anyCategory) && unset(query.issue);
}

function* cellsBetween(from: number, to: number): Query<Cell[]> {
  if (from >= to) return [];
  return yield* all<Cell>('SELECT flow, status, COUNT(*) AS n FROM runs WHERE started_at >= ? AND started_at < ? GROUP BY flow, status', [from, to]);
}

/**
 * Per (flow, status), the runs started in [since, until): whole hours from `run_counts_hourly`,
 * the partial hours at either edge from the runs. Null when the window is not one the hourly
 * buckets answer exactly (negative times, whose integer division rounds toward zero).
 */
function* windowCells(since: number | undefined, until: number | undefined): Query<Cell[] | null> {
  if ((since !== undefined && since < 0) || (until !== undefined && until < HOUR_MS)) return null;
  const first = since === undefined ? null : Math.ceil(since / HOUR_MS);
  const end = until === undefined ? null : Math.floor(until / HOUR_MS);
  if (first !== null && end !== null && first >= end) return yield* cellsBetween(since as number, until as number);
  const c = new Conditions();
  if (first !== null) c.add('hour >= ?', first);
  if (end !== null) c.add('hour < ?', end);
  const cells = yield* all<Cell>(
    `SELECT flow, status, SUM(count) AS n FROM run_counts_hourly${c.where()} GROUP BY flow, status HAVING SUM(count) > 0`,
    c.params,
  );
  if (since !== undefined && first !== null) cells.push(...(yield* cellsBetween(since, first * HOUR_MS)));
  if (until !== undefined && end !== null) cells.push(...(yield* cellsBetween(end * HOUR_MS, until)));
  return cells;
}

/**
 * Whether a text count read only the first TEXT_COUNT_CAP + 1 hits of either trigram index
 * (runs.ts cuts them there): other filters (a time window) or several matching prompts of one
 * run may then leave fewer runs than the cap counted while more match. SQLite only: PostgreSQL's
 * ILIKE is not cut.
 */
function* textHitsCut(dialect: Dialect, query: RunFilters): Query<boolean> {
  const text = query.text?.trim() ?? '';
  if (dialect !== Dialect.sqlite || [...text].length < TEXT_INDEX_MIN_CHARS) return false;
  const phrase = `"${text.replace(/"/g, '""')}"`;
  const row = yield* get<{ runs: number; prompts: number }>(
    'SELECT (SELECT COUNT(*) FROM (SELECT rowid FROM run_text WHERE run_text MATCH ? LIMIT ?)) AS runs,' +
      ' (SELECT COUNT(*) FROM (SELECT rowid FROM task_text WHERE task_text MATCH ? LIMIT ?)) AS prompts',
    [phrase, TEXT_COUNT_CAP + 1, phrase, TEXT_COUNT_CAP + 1],
  );
  return (row?.runs ?? 0) > TEXT_COUNT_CAP || (row?.prompts ?? 0) > TEXT_COUNT_CAP;
}

/** The (flow, status) counts under `base` (every filter but status and flow), and whether they stopped at the cap. */
function* cellsUnder(dialect: Dialect, query: RunFilters, base: Conditions): Query<{ cells: Cell[]; atLeast: boolean }> {
  if (base.where() === '') return { cells: yield* all<Cell>('SELECT flow, status, count AS n FROM run_counts WHERE count > 0'), atLeast: false };
  if (onlyTimeWindow(query)) {
    const cells = yield* windowCells(optionalTime('since', query.since), optionalTime('until', query.until));
    if (cells !== null) return { cells, atLeast: false };
  }
  const cap = (query.text ?? '').trim() === '' ? RUN_COUNT_CAP : TEXT_COUNT_CAP;
  const cells = yield* all<Cell>(
    `SELECT flow, status, COUNT(*) AS n FROM (SELECT flow, status FROM runs${base.where()} LIMIT ?) AS capped GROUP BY flow, status`,
    [...base.params, cap + 1],
  );
  const counted = cells.reduce((sum, cell) => sum + Number(cell.n), 0);
  return { cells, atLeast: counted > cap || (yield* textHitsCut(dialect, query)) };
}

/** How many runs match, per status and per flow (each under the other filters). */
export function* countRuns(dialect: Dialect, query: RunFilters = {}): Query<RunCounts> {
  const statuses = statusList(query.status);
  const flow = optionalText('flow', query.flow);
  const files = flow !== undefined && flow !== '' ? new Set(yield* flowFiles(dialect, flow)) : null;
  const byStatus: Partial<Record<RunListStatus, number>> = {};
  const flows = new Map<string, number>();
  let total = 0;
  // One pass over (flow, status) under the other filters gives both breakdowns.
  const base = (yield* runFilters(dialect, { ...query, status: undefined, flow: undefined }, undefined, 'count')) as Conditions;
  const { cells, atLeast } = yield* cellsUnder(dialect, query, base);
  for (const cell of cells) {
    const n = Number(cell.n);
    const flowMatches = files === null || files.has(cell.flow);
    const statusMatches = statuses === undefined || (statuses as readonly string[]).includes(cell.status);
    if (flowMatches) byStatus[cell.status] = (byStatus[cell.status] ?? 0) + n;
    if (statusMatches) flows.set(cell.flow, (flows.get(cell.flow) ?? 0) + n);
    if (flowMatches && statusMatches) total += n;
  }
  const withFlow = (yield* runFilters(dialect, { ...query, status: undefined }, undefined, 'count')) as Conditions;
  for (const state of DERIVED_STATES) {
    const waiting = yield* countDerived(withFlow, state, dialect);
    if (waiting > 0) byStatus[state.name] = waiting;
  }
  if (statuses !== undefined) {
    // The runs in a listed derived state whose status the filter does not list are in the list too (an OR).
    const split = splitDerived(statuses);
    for (const r of yield* derivedOutside(base, split.statuses, split.derived, dialect)) {
      flows.set(r.flow, (flows.get(r.flow) ?? 0) + r.n);
      if (files === null || files.has(r.flow)) total += r.n;
    }
  }
  const exact = atLeast && (statuses !== undefined || files !== null) ? yield* totalUnderEvery(dialect, query) : null;
  if (exact !== null) total = exact.total;
  const labelled: RunCounts['byFlow'] = [];
  for (const [file, count] of flows) {
    const label = yield* get<{ flow_name: string }>('SELECT flow_name FROM runs WHERE flow = ? ORDER BY started_at DESC LIMIT 1', [file]);
    labelled.push({ flow: file, flowName: label?.flow_name ?? file, count });
  }
  const byFlow = labelled.sort((a, b) => b.count - a.count || (a.flowName < b.flowName ? -1 : 1));
  if (!atLeast) return { total, byStatus, byFlow };
  return exact?.exact ? { total, byStatus, byFlow, atLeast: true, totalExact: true } : { total, byStatus, byFlow, atLeast: true };
}

/**
 * The runs matching every filter, status and flow included, counted to the cap: what a bulk action
 * on the filter takes. The breakdowns' scan reads the runs of every status and flow and stops at
 * the cap, so it may hold few of the asked ones (an issue's 2,382 failed runs among its first
 * 10,001 of any status counted 1,001); this count reads only the asked ones. Exact up to the cap.
 */
function* totalUnderEvery(dialect: Dialect, query: RunFilters): Query<{ total: number; exact: boolean }> {
  const every = yield* runFilters(dialect, query, undefined, 'count');
  if (every === null) return { total: 0, exact: true };
  const cap = (query.text ?? '').trim() === '' ? RUN_COUNT_CAP : TEXT_COUNT_CAP;
  const row = yield* get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM runs${every.where()} LIMIT ?) AS capped`, [
    ...every.params,
    cap + 1,
  ]);
  const n = Number(row?.n ?? 0);
  return { total: n, exact: n <= cap && !(yield* textHitsCut(dialect, query)) };
}
