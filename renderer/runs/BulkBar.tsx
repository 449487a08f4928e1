import type { BulkAction, RunSummary } from '../../core/service/api.js';
import { hrefToCompare } from '../app/router.js';
import { plural } from '../lib/format.js';
import { BULK_LABEL } from './bulk-words.js';
import { canBulkRetry, canCancel, canResume, isOperable } from './run-actions.js';

/** How many ticked runs each action fits (the server decides; this only labels and disables the buttons). */
function fitting(selected: readonly RunSummary[]): Record<BulkAction, number> {
  const operable = selected.filter(isOperable);
  return {
    cancel: operable.filter((r) => canCancel(r.status)).length,
    retry: operable.filter((r) => canBulkRetry(r.status)).length,
    resume: operable.filter((r) => canResume(r.status)).length,
    // A usage-limit wait is not cut short: an attempt before the reset meets the limit again.
    retryNow: operable.filter((r) => r.status === 'running' && r.retrying !== null && r.waitingUntil == null).length,
  };
}

const TITLES: Record<BulkAction, string> = {
  cancel: 'queued and running ones',
  retry: 'failed, cancelled and interrupted ones: each starts a new run (completed runs are not retried in bulk)',
  resume: 'failed, cancelled and interrupted ones: each continues from its last checkpoint as a new run',
  retryNow: 'running ones waiting in a retry backoff (not for a usage limit to reset): the next attempt starts now',
};
const ACTIONS: readonly BulkAction[] = ['cancel', 'retry', 'resume', 'retryNow'];

export interface BulkBarProps {
  selected: readonly RunSummary[];
  /** Every shown run is ticked: offer the whole filter. */
  allShownTicked: boolean;
  /** Runs matching the filter (the server's count); null until known. */
  matchingTotal: number | null;
  /** The selection is "every run matching this filter", not the ticked rows. */
  allMatching: boolean;
  /** What "every run matching this filter" is when the filter names nothing but statuses ("every failed run"), else null. */
  every: string | null;
  onSelectAllMatching: () => void;
  onAction: (action: BulkAction) => void;
  onClear: () => void;
  /** A bulk action is under way: no second one meanwhile. */
  busy: boolean;
}

/** Shown while runs are ticked: what the bulk actions will touch, and the actions. */
/** The selection's line: the ticked runs, the filter's runs, or (a filter of statuses alone) every run of them, said as such. */
function selectionText(selected: number, matchingTotal: number | null, allMatching: boolean, every: string | null): string {
  if (!allMatching || matchingTotal === null) return `${plural(selected, 'run')} selected`;
  return every === null
    ? `All ${plural(matchingTotal, 'run')} matching this filter selected`
    : `${capitalised(every)} selected: all ${plural(matchingTotal, 'run')}`;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export function BulkBar({ selected, allShownTicked, matchingTotal, allMatching, every, onSelectAllMatching, onAction, onClear, busy }: BulkBarProps) {
  if (selected.length === 0) return null;
  const counts = fitting(selected);
  // Two ticked runs can be compared, the older on the left.
  const pair = !allMatching && selected.length === 2 ? [...selected].sort((a, b) => a.startedWall - b.startedWall || a.id.localeCompare(b.id)) : null;
  const more = !allMatching && allShownTicked && matchingTotal !== null && matchingTotal > selected.length;
  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions" data-testid="bulk-bar">
      <strong data-testid="bulk-selection">{selectionText(selected.length, matchingTotal, allMatching, every)}</strong>
      {more && (
        <button type="button" className="link" onClick={onSelectAllMatching} data-testid="select-all-matching">
          {every === null
            ? `Select all ${plural(matchingTotal, 'run')} matching this filter`
            : `Select ${every}: all ${plural(matchingTotal, 'run')} (the filter names no flow, text, error or time)`}
        </button>
      )}
      {ACTIONS.map((action) => (
        <button
          key={action}
          type="button"
          className={action === 'cancel' ? 'danger-outline' : undefined}
          disabled={busy || (!allMatching && counts[action] === 0)}
          onClick={() => onAction(action)}
          title={TITLES[action]}
        >
          {BULK_LABEL[action]} {!allMatching && counts[action] > 0 ? plural(counts[action], 'run') : ''}
        </button>
      ))}
      {pair && (
        <a
          className="button-link"
          href={hrefToCompare(pair[0]?.id ?? '', pair[1]?.id ?? '')}
          data-testid="compare-selected"
          title="the two runs side by side: attempts, durations, errors, outputs"
        >
          Compare the two
        </a>
      )}
      <button type="button" className="link" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
