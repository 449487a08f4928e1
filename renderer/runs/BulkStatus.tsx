import type { BulkAction, BulkRunResult } from '../../core/service/api.js';
import { hrefToRun } from '../app/router.js';
import { copyFullId, idTail } from '../lib/run-ids.js';
import { doneWord, progressText, summaryText } from './bulk-words.js';
import type { BulkState } from './use-bulk-action.js';
import { formatCount } from '../lib/format.js';

/** Refused runs first (they are what the operator reads), each with its reason. */
function PerRunList({ action, results }: { action: BulkAction; results: readonly BulkRunResult[] }) {
  const ordered = [...results.filter((r) => r.outcome === 'refused'), ...results.filter((r) => r.outcome === 'done')];
  return (
    <ul className="bulk-per-run" data-testid="bulk-per-run">
      {ordered.map((r) => (
        <li key={r.runId} data-outcome={r.outcome}>
          <a href={hrefToRun(r.runId)} title={r.runId} onCopy={(e) => copyFullId(e, r.runId)}>
            {idTail(r.runId)}
          </a>{' '}
          <span className={r.outcome === 'refused' ? 'bulk-refused' : 'muted'}>{r.outcome === 'refused' ? 'refused' : doneWord(action)}</span>
          {r.newRunId && (
            <>
              {' → '}
              <a href={hrefToRun(r.newRunId)} title={r.newRunId} onCopy={(e) => copyFullId(e, r.newRunId as string)}>
                {idTail(r.newRunId)}
              </a>
            </>
          )}
          {r.message && <span className="muted">: {r.message}</span>}
        </li>
      ))}
    </ul>
  );
}

/**
 * The bulk action's progress, then its summary ("198 cancelled, 2 refused") with every run's
 * result behind a disclosure. The one line is a polite live region, always mounted, so a screen
 * reader hears each change without the per-run list being read out.
 */
export function BulkStatus({ state, onDismiss }: { state: BulkState; onDismiss: () => void }) {
  const line = state.phase === 'running' ? progressText(state.action, state.done, state.total) : state.phase === 'finished' ? summaryText(state.result) : '';
  return (
    <div className={`bulk-status${state.phase === 'idle' ? ' is-idle' : ''}`} data-phase={state.phase}>
      <p role="status" aria-live="polite" className="bulk-line" data-testid="bulk-status">
        {line}
      </p>
      {state.phase === 'running' && <progress max={state.total} value={state.done} aria-label="Bulk action progress" />}
      {state.phase === 'finished' && (
        <>
          <details className="bulk-details">
            <summary>Per-run results ({formatCount(state.result.results.length)})</summary>
            <PerRunList action={state.result.action} results={state.result.results} />
          </details>
          <button type="button" className="link" onClick={onDismiss}>
            Dismiss
          </button>
        </>
      )}
    </div>
  );
}
