import { useState } from 'react';
import type { ErrorOccurrence } from '../../core/service/api.js';
import { formatHash } from '../app/router.js';
import { RelativeTime } from '../components/Time.js';
import { ErrorEnvelopeView } from '../run-detail/attempt/ErrorEnvelopeView.js';
import { useRowsInStages } from '../lib/use-rows-in-stages.js';

const DISPOSITION_HINT: Record<ErrorOccurrence['disposition'], string> = {
  handled: 'handled: retried, caught, or its run did not fail because of it',
  unhandled: 'unhandled: a link of its run’s ending-error chain (the run failed because of it)',
  pending: 'pending: its run is still live; it is settled when the run ends',
};

/**
 * What became of an occurrence (rule 17): its disposition as the store settled it, and
 * "ending" on the one that is its run's failure (the head of the ending error's chain).
 */
function DispositionBadge({ occurrence }: { occurrence: Pick<ErrorOccurrence, 'disposition' | 'ending'> }) {
  return (
    <>
      <span
        className={`badge disposition disposition-${occurrence.disposition}`}
        title={DISPOSITION_HINT[occurrence.disposition]}
        data-disposition={occurrence.disposition}
      >
        {occurrence.disposition}
      </span>
      {occurrence.ending && (
        <span className="badge disposition disposition-ending" title="ending: this error ended its run; it is the run’s one failure" data-ending="true">
          ending
        </span>
      )}
    </>
  );
}

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
  const rows = useRowsInStages(items);
  return (
    <div className="occurrences">
      <ul className="occurrence-list">
        {rows.map((o) => {
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
                  <DispositionBadge occurrence={o} />
                  {o.retrying && <span className="badge flag-retrying">retried</span>}
                  {o.caught && <span className="badge flag-caught">caught</span>}
                </span>
                <span className="occ-message">{o.message}</span>
              </button>
              {isOpen && (
                <div className="occurrence-detail">
                  <a className="button-link" href={href} data-testid="open-run">
                    Open run {run} →
                  </a>
                  <ErrorEnvelopeView error={o.error} when={o.ts} linkRun role={o.ending ? 'ended' : o.disposition === 'unhandled' ? 'cause' : null} />
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
