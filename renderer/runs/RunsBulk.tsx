import { useState } from 'react';
import type { BulkAction, RunSummary } from '../../core/service/api.js';
import { BulkBar } from './BulkBar.js';
import { BulkStatus } from './BulkStatus.js';
import { everyRunOfFilter } from './bulk-words.js';
import { serializeRunsQuery, serverFilter, type RunsQuery } from './runs-query.js';
import { useBulkAction } from './use-bulk-action.js';

/**
 * The Runs screen's bulk actions: the bar over the ticked runs (or every run matching the
 * filter, once the operator asks for them all) and the status line of the action under way.
 */
export function RunsBulk({
  query,
  checkedRows,
  shownCount,
  matchingTotal,
  clearTicks,
}: {
  query: RunsQuery;
  checkedRows: readonly RunSummary[];
  shownCount: number;
  matchingTotal: number | null;
  clearTicks: () => void;
}) {
  const bulk = useBulkAction();
  // "Every run matching this filter" holds until the filter changes or the ticks are cleared.
  const queryKey = serializeRunsQuery(query).toString();
  const [allMatchingOf, setAllMatchingOf] = useState<string | null>(null);
  const allMatching = allMatchingOf === queryKey && checkedRows.length > 0;

  // A filter of statuses alone takes every run of them: the bar and the dialog say so.
  const every = everyRunOfFilter(serverFilter(query, 0));

  const onAction = (action: BulkAction): void => {
    const filter = serverFilter(query, Date.now());
    const target = allMatching ? { kind: 'filter' as const, filter, every: everyRunOfFilter(filter) } : { kind: 'runs' as const, runs: checkedRows };
    void bulk.run(action, target).then((acted) => {
      if (!acted) return;
      clearTicks();
      setAllMatchingOf(null);
    });
  };

  return (
    <>
      <BulkBar
        selected={checkedRows}
        allShownTicked={checkedRows.length === shownCount}
        matchingTotal={matchingTotal}
        allMatching={allMatching}
        every={every}
        onSelectAllMatching={() => setAllMatchingOf(queryKey)}
        onAction={onAction}
        onClear={() => {
          clearTicks();
          setAllMatchingOf(null);
        }}
        busy={bulk.state.phase === 'running'}
      />
      <BulkStatus state={bulk.state} onDismiss={bulk.dismiss} />
    </>
  );
}
