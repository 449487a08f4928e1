import type { RunSummary } from '../../core/service/api.js';
import { hrefToCompare } from '../app/router.js';
import { plural } from '../lib/format.js';
import { canBulkRetry, canCancel, isOperable } from './run-actions.js';

/** Shown while runs are ticked: what the bulk actions will touch, and the actions. */
export function BulkBar({
  selected,
  onCancel,
  onRetry,
  onClear,
}: {
  selected: readonly RunSummary[];
  onCancel: () => void;
  onRetry: () => void;
  onClear: () => void;
}) {
  if (selected.length === 0) return null;
  const cancellable = selected.filter((r) => isOperable(r) && canCancel(r.status)).length;
  const retryable = selected.filter((r) => isOperable(r) && canBulkRetry(r.status)).length;
  // Two ticked runs can be compared, the older on the left.
  const pair = selected.length === 2 ? [...selected].sort((a, b) => a.startedWall - b.startedWall || a.id.localeCompare(b.id)) : null;
  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions">
      <strong>{plural(selected.length, 'run')} selected</strong>
      <button type="button" className="danger-outline" disabled={cancellable === 0} onClick={onCancel} title="queued and running ones">
        Cancel {cancellable > 0 ? plural(cancellable, 'run') : ''}
      </button>
      <button type="button" disabled={retryable === 0} onClick={onRetry} title="failed, cancelled and interrupted ones: each starts a new run (completed runs are not retried in bulk)">
        Retry {retryable > 0 ? plural(retryable, 'run') : ''}
      </button>
      {pair && (
        <a className="button-link" href={hrefToCompare(pair[0]?.id ?? '', pair[1]?.id ?? '')} data-testid="compare-selected" title="the two runs side by side: attempts, durations, errors, outputs">
          Compare the two
        </a>
      )}
      <button type="button" className="link" onClick={onClear}>
        Clear selection
      </button>
    </div>
  );
}
