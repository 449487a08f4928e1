import { useCallback, useMemo, useRef, useState } from 'react';
import type { RunSummary } from '../../core/service/api.js';
import { VirtualList } from '../components/VirtualList.js';
import { distinctTailLength } from '../lib/run-ids.js';
import { useGridRoving, type GridFocus } from './grid-roving.js';
import { NewRunsPill } from './NewRunsPill.js';
import { RunRow, type RunRowProps } from './RunRow.js';
import type { RunsSort, SortKey } from './runs-query.js';

/**
 * Two lines whatever a row holds: the flow's name (and retry / resumed / source markers), then
 * why it ended and its cost, each line cut with an ellipsis (the whole text on hover), so no
 * row ever needs a third line at any width (docs/decisions/0018-window-labels-and-layout.md "The Runs list's rows").
 */
const RUN_ROW_HEIGHT = 52;

const COLUMNS: { key: SortKey | null; label: string; className: string; title?: string }[] = [
  { key: 'status', label: 'Status', className: 'cell-status' },
  { key: 'flow', label: 'Flow', className: 'cell-flow' },
  { key: null, label: 'Run', className: 'cell-id col-secondary' },
  { key: 'started', label: 'Started', className: 'cell-time' },
  { key: 'duration', label: 'Duration', className: 'cell-num' },
  { key: 'step', label: 'Step', className: 'cell-num col-secondary', title: 'the step reached, of the steps its flow takes' },
  { key: 'attempts', label: 'Attempts', className: 'cell-num col-secondary', title: 'attempts of all tasks, retries included' },
  { key: 'errors', label: 'Errors', className: 'cell-num col-secondary', title: 'errors journaled, retried or caught ones included' },
];

/** The header's sort buttons (the tick box before them is item 0). */
const SORTABLE = COLUMNS.filter((c) => c.key !== null).length;

export interface RunsTableProps
  extends Omit<RunRowProps, 'run' | 'index' | 'top' | 'height' | 'selected' | 'checked' | 'idTailLength' | 'tabItem' | 'unfolded'> {
  /** The runs whose subagents are shown under them (subagent-folding.ts). */
  unfolded?: ReadonlySet<string>;
  rows: readonly RunSummary[];
  sort: RunsSort;
  onSort: (key: SortKey) => void;
  cursor: number;
  checked: ReadonlySet<string>;
  onCheckAll: (checked: boolean) => void;
  /** Told the index past the last mounted row (the page loads more near the end). */
  onRowsShown?: (end: number) => void;
  loadingMore?: boolean;
  /** Bumped when the cursor moved by j / k from outside the grid: the focus follows it in. */
  focusRequest?: number;
}

export function RunsTable({
  rows,
  sort,
  onSort,
  cursor,
  checked,
  onCheckAll,
  onRowsShown,
  loadingMore = false,
  focusRequest = 0,
  unfolded,
  ...handlers
}: RunsTableProps) {
  const allChecked = rows.length > 0 && rows.every((r) => checked.has(r.id));
  const someChecked = !allChecked && rows.some((r) => checked.has(r.id));
  const anchor = useNewRunsAnchor(rows);
  const idTailLength = useMemo(() => distinctTailLength(anchor.keys), [anchor.keys]);
  const roving = useGridRoving({ rowIds: anchor.keys, cursor, onSelect: handlers.onSelect, focusRequest });
  const tabRow = cursor >= 0 ? cursor : 0;
  return (
    <div className="runs-table-wrap">
      <NewRunsPill count={anchor.newAbove} onShow={anchor.showNew} />
      <div
        ref={roving.gridRef}
        className="table runs-table"
        role="grid"
        aria-label="Runs"
        aria-rowcount={rows.length + 1}
        tabIndex={-1}
        data-skip-target
        onKeyDown={roving.onKeyDown}
        onFocus={roving.onFocus}
      >
        <RunsGridHeader sort={sort} onSort={onSort} allChecked={allChecked} someChecked={someChecked} onCheckAll={onCheckAll} focus={roving.focus} />
        <VirtualList
          count={rows.length}
          rowHeight={RUN_ROW_HEIGHT}
          ensureVisible={cursor >= 0 ? cursor : null}
          className="grid-body"
          role="rowgroup"
          testId="runs-scroll"
          anchorKeys={anchor.keys}
          onInsertedAbove={anchor.onInsertedAbove}
          onAnchorLost={anchor.onReachedTop}
          onReachedTop={anchor.onReachedTop}
          scrollRef={anchor.scrollRef}
          {...(onRowsShown ? { onWindowEnd: onRowsShown } : {})}
          renderRow={(index, top, height) => {
            const run = rows[index] as RunSummary;
            return (
              <RunRow
                key={run.id}
                run={run}
                index={index}
                top={top}
                height={height}
                selected={index === cursor}
                checked={checked.has(run.id)}
                unfolded={unfolded?.has(run.id) ?? false}
                idTailLength={idTailLength}
                tabItem={index === tabRow && !roving.focus.header ? roving.focus.item : null}
                {...handlers}
              />
            );
          }}
        />
        {loadingMore && (
          <p className="muted small-print" role="status" data-testid="runs-loading-more">
            Loading more runs…
          </p>
        )}
      </div>
    </div>
  );
}

/** The header row: the tick box (grid item 0), then each sort button (1…), one of them the grid's Tab stop when the focus is on the header. */
function RunsGridHeader({
  sort,
  onSort,
  allChecked,
  someChecked,
  onCheckAll,
  focus,
}: Pick<RunsTableProps, 'sort' | 'onSort' | 'onCheckAll'> & { allChecked: boolean; someChecked: boolean; focus: GridFocus }) {
  const headerTab = (item: number): number => (focus.header && Math.min(focus.item, SORTABLE) === item ? 0 : -1);
  let sortItem = 0;
  return (
    <div className="grid-header runs-grid" role="row" aria-rowindex={1}>
      <div role="columnheader" className="cell-check">
        <input
          type="checkbox"
          aria-label="Select all shown runs"
          data-item={0}
          tabIndex={headerTab(0)}
          checked={allChecked}
          ref={(el) => {
            if (el) el.indeterminate = someChecked;
          }}
          onChange={(e) => onCheckAll(e.currentTarget.checked)}
        />
      </div>
      {COLUMNS.map((c) => (
        <div
          key={c.label}
          role="columnheader"
          className={c.className}
          aria-sort={c.key && sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : undefined}
          title={c.title}
        >
          {c.key ? (
            <button type="button" className="sort" onClick={() => onSort(c.key as SortKey)} data-item={++sortItem} tabIndex={headerTab(sortItem)}>
              {c.label}
              <span className="sort-arrow" aria-hidden="true">
                {sort.key === c.key ? (sort.desc ? '▾' : '▴') : ''}
              </span>
            </button>
          ) : (
            c.label
          )}
        </div>
      ))}
      <div role="columnheader" className="cell-actions">
        <span className="visually-hidden">Actions</span>
      </div>
    </div>
  );
}

/** Live runs arriving above a scrolled table: counted for the pill, which scrolls back up to them. */
function useNewRunsAnchor(rows: readonly RunSummary[]) {
  const keys = useMemo(() => rows.map((r) => r.id), [rows]);
  const [newAbove, setNewAbove] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const onInsertedAbove = useCallback((count: number) => setNewAbove((n) => n + count), []);
  const onReachedTop = useCallback(() => setNewAbove(0), []);
  const showNew = useCallback(() => {
    scrollRef.current?.scrollTo({ top: 0 });
    setNewAbove(0);
  }, []);
  return { keys, newAbove, scrollRef, onInsertedAbove, onReachedTop, showNew };
}
