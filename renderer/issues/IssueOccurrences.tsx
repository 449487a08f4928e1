import { useState } from 'react';
import type { ErrorOccurrence, IssueScope } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { ErrorState, Loading } from '../components/states.js';
import { OccurrenceList } from '../errors/OccurrenceList.js';
import { errorText, useAsync } from '../lib/use-async.js';
import { OCCURRENCES_PAGE, occurrencesFilter, readOccurrences, sectionKeys } from './issue-reads.js';
import { takeRead } from '../lib/kept-reads.js';

/** The issue's occurrences in the period and filters, newest first, a page at a time; each opens into its envelope. */
export function IssueOccurrences({ issueId, scope, periodWords, refresh }: { issueId: string; scope: IssueScope; periodWords: string; refresh: number }) {
  const api = useApi();
  const [extra, setExtra] = useState<{ items: ErrorOccurrence[]; next: string | null } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const filter = occurrencesFilter(issueId, scope);
  const { state, reload } = useAsync(async () => {
    const page = await takeRead(sectionKeys.occurrences(issueId, scope), () => readOccurrences(api, issueId, scope));
    setExtra(null);
    return page;
  }, [api, JSON.stringify(filter), refresh]);
  const items = [...(state.data?.items ?? []), ...(extra?.items ?? [])];
  const next = extra ? extra.next : (state.data?.nextCursor ?? null);
  const more = (): void => {
    if (next === null || loadingMore) return;
    setLoadingMore(true);
    setFailure(null);
    api
      .listErrors({ ...filter, limit: OCCURRENCES_PAGE, cursor: next })
      .then(
        (page) => setExtra((e) => ({ items: [...(e?.items ?? []), ...page.items], next: page.nextCursor })),
        (error: unknown) => setFailure(errorText(error)),
      )
      .finally(() => setLoadingMore(false));
  };
  return (
    <section className="panel issue-occurrences" aria-labelledby="issue-occurrences-title">
      <h2 id="issue-occurrences-title">
        Occurrences <span className="muted">{periodWords}</span>
      </h2>
      {state.status === 'loading' && !state.data ? (
        <Loading what="the occurrences" />
      ) : state.status === 'error' && !state.data ? (
        <ErrorState title="Could not load the occurrences" error={state.error} onRetry={reload} />
      ) : items.length === 0 ? (
        <p className="muted">None {periodWords}.</p>
      ) : (
        <OccurrenceList items={items} hasMore={next !== null} loadingMore={loadingMore} onMore={more} />
      )}
      {failure && <p className="error-text">Could not load more: {failure}</p>}
    </section>
  );
}
