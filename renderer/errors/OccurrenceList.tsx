import { useState } from 'react';
import type { ErrorOccurrence } from '../../core/service/api.js';
import { formatHash } from '../app/router.js';
import { RelativeTime } from '../components/Time.js';
import { ErrorEnvelopeView } from '../run-detail/ErrorEnvelopeView.js';

/** Individual occurrences, newest first; each opens into its envelope and links to its run. */
export function OccurrenceList({
  items,
  hasMore,
  loadingMore,
  onMore,
}: {
  items: readonly ErrorOccurrence[];
  hasMore: boolean;
  loadingMore: boolean;
  onMore: () => void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="occurrences">
      <ul className="occurrence-list">
        {items.map((o) => {
          const key = `${o.runId}#${o.seq}`;
          const c = o.correlation;
          const run = c.run ?? o.runId;
          const href = formatHash(['runs', run], { task: c.task ?? undefined, attempt: c.attempt !== null ? String(c.attempt) : undefined });
          const isOpen = open === key;
          return (
            <li key={key} className={`occurrence${isOpen ? ' open' : ''}`} data-occurrence={key}>
              <button type="button" className="occurrence-line" aria-expanded={isOpen} onClick={() => setOpen(isOpen ? null : key)}>
                <span className="occ-time">
                  <RelativeTime ts={o.ts} />
                </span>
                <code className="occ-code">{o.code}</code>
                <span className="occ-where mono">
                  {c.task ? `task ${c.task}` : 'run'}
                  {c.attempt !== null ? ` · attempt ${c.attempt}` : ''}
                </span>
                <span className="occ-flags">
                  {o.retrying && <span className="badge flag-retrying">retried</span>}
                  {o.caught && <span className="badge flag-caught">caught</span>}
                  {!o.caught && !o.retrying && (
                    <span className="badge flag-unhandled" title="it failed its task and the run">
                      unhandled
                    </span>
                  )}
                </span>
                <span className="occ-message">{o.message}</span>
              </button>
              {isOpen && (
                <div className="occurrence-detail">
                  <a className="button-link" href={href} data-testid="open-run">
                    Open run {run} →
                  </a>
                  <ErrorEnvelopeView error={o.error} linkRun />
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {hasMore && (
        <button type="button" onClick={onMore} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}
