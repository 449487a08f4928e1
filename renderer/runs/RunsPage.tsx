import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RunSummary } from '../../core/service/api.js';
import { focusSearchField, useShortcuts } from '../app/keyboard.js';
import { formatHash, hrefToRun, navigate, useRoute } from '../app/router.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { StaleNote } from '../components/StaleNote.js';
import { exactTotal, matchingLine } from './count-words.js';
import { useRunActions, type RunActions } from './run-actions.js';
import { IssueFilterChip } from './IssueFilterChip.js';
import { EMPTY_FILTERS, isFiltered, nextSort, parseRunsQuery, serializeRunsQuery, type RunsQuery, type SortKey } from './runs-query.js';
import { RunsBulk } from './RunsBulk.js';
import { RunsTable } from './RunsTable.js';
import { useSubagentFolding } from './subagent-folding.js';
import { RunsToolbar } from './RunsToolbar.js';
import { useRunsView } from './use-runs-view.js';
import type { RunsViewState } from './runs-view.js';

const NO_ROWS: readonly RunSummary[] = [];

/**
 * The table's selection: the keyboard cursor (it follows its run when rows move under it: live
 * updates, re-sorts) and the ticked runs (shift-click ticks a range from the last one ticked).
 */
function useRowSelection(rows: readonly RunSummary[]) {
  const [cursorId, setCursorId] = useState<string | null>(null);
  const cursor = useMemo(() => (cursorId === null ? -1 : rows.findIndex((r) => r.id === cursorId)), [rows, cursorId]);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);

  // Row callbacks are stable (memoized rows re-render only when their run changes); they read
  // the current rows through a ref.
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const onSelect = useCallback((index: number) => setCursorId(rowsRef.current[index]?.id ?? null), []);

  const onCheck = useCallback((runId: string, on: boolean, range: boolean) => {
    setChecked((prev) => {
      const next = new Set(prev);
      const list = rowsRef.current;
      const from = anchor.current ? list.findIndex((r) => r.id === anchor.current) : -1;
      const to = list.findIndex((r) => r.id === runId);
      if (range && from >= 0 && to >= 0) {
        for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
          const id = (list[i] as RunSummary).id;
          if (on) next.add(id);
          else next.delete(id);
        }
      } else if (on) next.add(runId);
      else next.delete(runId);
      anchor.current = runId;
      return next;
    });
  }, []);

  const onCheckAll = (on: boolean): void => setChecked(on ? new Set(rows.map((r) => r.id)) : new Set());

  // Ticked runs that are no longer shown (filtered out) are not acted upon.
  const checkedRows = useMemo(() => rows.filter((r) => checked.has(r.id)), [rows, checked]);

  // From the previous selection, not this render's: key presses faster than renders must all count.
  const move = (delta: number): void =>
    setCursorId((previous) => {
      const list = rowsRef.current;
      if (list.length === 0) return previous;
      const at = previous === null ? -1 : list.findIndex((r) => r.id === previous);
      const next = at < 0 ? 0 : Math.max(0, Math.min(list.length - 1, at + delta));
      return (list[next] as RunSummary).id;
    });

  // Ticks on runs no longer shown (another query, filtered out live) are dropped.
  useEffect(() => {
    const shown = new Set(rows.map((r) => r.id));
    if ([...checked].some((id) => !shown.has(id))) setChecked((prev) => new Set([...prev].filter((id) => shown.has(id))));
  }, [rows, checked]);

  return { cursor, setCursorId, checked, setChecked, rowsRef, onSelect, onCheck, onCheckAll, checkedRows, move };
}

type RowSelection = ReturnType<typeof useRowSelection>;

/**
 * j / k move, Enter opens, x ticks, c cancels, r retries, Escape clears the ticks (then the cursor).
 * j / k also take the focus into the table with the cursor (one key press from anywhere on the
 * screen): returns the count of such requests, for the table to follow.
 */
function useRunsShortcuts(rows: readonly RunSummary[], selection: RowSelection, actions: RunActions): number {
  const { cursor, checked, checkedRows, move, onCheck, setChecked, setCursorId } = selection;
  const [focusRequest, setFocusRequest] = useState(0);
  const moveAndFocus = (delta: number): void => {
    move(delta);
    setFocusRequest((n) => n + 1);
  };
  // The ticked runs, else the one under the cursor.
  const targets = (): RunSummary[] => {
    if (checkedRows.length > 0) return checkedRows;
    const current = rows[cursor];
    return current ? [current] : [];
  };
  useShortcuts({
    '/': () => focusSearchField(),
    j: () => moveAndFocus(1),
    k: () => moveAndFocus(-1),
    Enter: () => {
      const run = rows[cursor];
      if (run) navigate(hrefToRun(run.id));
    },
    x: () => {
      const run = rows[cursor];
      if (run) onCheck(run.id, !checked.has(run.id), false);
    },
    c: () => void actions.cancel(targets()),
    r: () => void actions.retry(targets(), { bulk: checked.size > 0 }),
    Escape: () => {
      if (checked.size > 0) setChecked(new Set());
      else setCursorId(null);
    },
  });
  return focusRequest;
}

/**
 * The rows on screen: the view's answer with sub-agent runs folded under their parents. While a
 * new query is read, the last answer stays on screen (no spinner flash per key typed): `stale`.
 */
function useShownRuns(query: RunsQuery) {
  const view = useRunsView(query);
  const state = view.getState();
  const lastAnswer = useRef<{ rows: readonly RunSummary[]; counts: typeof state.counts }>({ rows: NO_ROWS, counts: null });
  if (state.phase === 'ready') lastAnswer.current = { rows: state.rows, counts: state.counts ?? lastAnswer.current.counts };
  const stale = state.phase === 'loading' && lastAnswer.current.rows.length > 0;
  const loaded = stale ? lastAnswer.current.rows : state.rows.length > 0 ? state.rows : NO_ROWS;
  const folding = useSubagentFolding(loaded);
  return { view, state, stale, folding, rows: folding.rows, counts: state.counts ?? lastAnswer.current.counts };
}

/** What shows instead of the table, if anything: the first load, its error, no runs at all, or none matching the filters. */
function stateInsteadOfTable({
  state,
  stale,
  empty,
  filtered,
  onReload,
  onClearFilters,
}: {
  state: RunsViewState;
  stale: boolean;
  empty: boolean;
  filtered: boolean;
  onReload: () => void;
  onClearFilters: () => void;
}) {
  if (state.phase === 'loading' && !stale) return <Loading what="runs" />;
  if (state.phase === 'error') return <ErrorState title="Could not load the runs" error={state.error ?? ''} onRetry={onReload} />;
  if (empty && !filtered) {
    return (
      <EmptyState title="No runs yet">
        Start one from <a href="#/flows">Flows</a>: the bundled examples run offline in a second, and their retries and errors show up here live.
      </EmptyState>
    );
  }
  if (empty) {
    return (
      <EmptyState title="No runs match these filters">
        <button type="button" onClick={onClearFilters}>
          Clear filters
        </button>
      </EmptyState>
    );
  }
  return null;
}

/**
 * The runs table over the whole history: the server filters, sorts and pages (the next page loads
 * as the table scrolls near its end), the live stream patches the loaded rows. Filters and sort
 * live in the URL; keyboard first; bulk actions.
 */
export function RunsPage() {
  const route = useRoute();
  const actions = useRunActions();
  const query = useMemo(() => parseRunsQuery(route.params), [route.params]);
  const { view, state, stale, folding, rows, counts } = useShownRuns(query);
  const selection = useRowSelection(rows);
  const { cursor, checked, setChecked, rowsRef, onSelect, onCheck, onCheckAll, checkedRows } = selection;

  const setQuery = useCallback((next: RunsQuery, options: { replace?: boolean } = {}) => {
    navigate(formatHash(['runs'], serializeRunsQuery(next)), options);
  }, []);

  const onCancel = useCallback((run: RunSummary) => void actions.cancel([run]), [actions]);
  const onRetry = useCallback((run: RunSummary) => void actions.retry([run]), [actions]);
  const onResume = useCallback((run: RunSummary) => void actions.resume(run), [actions]);
  const focusRequest = useRunsShortcuts(rows, selection, actions);

  const filtered = isFiltered(query);
  const nearEnd = useCallback(
    (index: number) => {
      if (index >= rowsRef.current.length - 20) void view.more();
    },
    [view],
  );

  const body = stateInsteadOfTable({
    state,
    stale,
    empty: rows.length === 0,
    filtered,
    onReload: () => void view.reload(),
    onClearFilters: () => setQuery({ ...query, ...EMPTY_FILTERS }),
  }) ?? (
    <RunsTable
      rows={rows}
      sort={query.sort}
      onSort={(key: SortKey) => setQuery({ ...query, sort: nextSort(query.sort, key) }, { replace: true })}
      cursor={cursor}
      checked={checked}
      onCheckAll={onCheckAll}
      onSelect={onSelect}
      onCheck={onCheck}
      onCancel={onCancel}
      onRetry={onRetry}
      onResume={onResume}
      onRowsShown={nearEnd}
      loadingMore={state.loadingMore}
      focusRequest={focusRequest}
      unfolded={folding.unfolded}
      onToggleSubagents={folding.toggle}
    />
  );

  return (
    <section className="page runs-page" aria-labelledby="runs-title" aria-busy={stale || state.counts === null}>
      <header className="page-header">
        <h1 id="runs-title">Runs</h1>
        <span className="page-meta" data-testid="runs-count">
          {counts !== null && matchingLine(counts, filtered)}
        </span>
      </header>
      <StaleNote />
      <RunsToolbar query={query} counts={counts} onChange={setQuery} />
      <IssueFilterChip query={query} onChange={setQuery} />
      <RunsBulk query={query} checkedRows={checkedRows} shownCount={rows.length} matchingTotal={exactTotal(counts)} clearTicks={() => setChecked(new Set())} />
      {body}
    </section>
  );
}
