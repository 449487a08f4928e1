import { useMemo } from 'react';
import type { ErrorGroup } from '../../core/service/api.js';
import { useShortcuts } from '../app/keyboard.js';
import { formatHash, navigate, useRoute } from '../app/router.js';
import { EmptyState, ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { formatAbsolute } from '../lib/format.js';
import { useLiveRefresh } from '../lib/use-live-refresh.js';
import { useReadInFlight } from '../lib/use-paced-reloads.js';
import { CorrelationPivot } from './CorrelationPivot.js';
import { CountsLine, headerCounts } from './CountsLine.js';
import { ErrorsCost } from './ErrorsCost.js';
import { ChartsAfterNumbers, useNumbersFirst } from './charts/load-charts.js';
import { CountChart } from './CountChart.js';
import { ErrorsFilterBar } from './ErrorsFilterBar.js';
import { filterOf, parseErrorsQuery, RANGE_LABELS, serializeErrorsQuery, STATUS_LABELS, windowOf, type ErrorsQuery, type FilterKey } from './errors-query.js';
import { IssuesPanel } from './IssuesPanel.js';
import { OccurrenceList } from './OccurrenceList.js';
import { SeriesChart } from './SeriesChart.js';
import { useOccurrences, useOverview } from './use-errors-data.js';
import { prefetchedNow } from './errors-loads.js';

interface OccurrencesPanelProps {
  occurrences: ReturnType<typeof useOccurrences>;
  selectedGroup: ErrorGroup | undefined;
  group: string;
  onAllGroups: () => void;
}

/** The occurrences of the selected group (or of every group shown). */
function OccurrencesPanel({ occurrences, selectedGroup, group, onAllGroups }: OccurrencesPanelProps) {
  return (
    <section className="panel" aria-labelledby="occ-title">
      <h2 id="occ-title">
        Occurrences{' '}
        <span className="muted">
          {selectedGroup
            ? `of ${selectedGroup.code} (${selectedGroup.fingerprint.slice(0, 8)})`
            : group
              ? `of group ${group.slice(0, 8)}`
              : 'of every group shown'}
        </span>
        {group && (
          <button type="button" className="link" onClick={onAllGroups}>
            all groups
          </button>
        )}
      </h2>
      {occurrences.state === 'loading' && occurrences.items.length === 0 ? (
        <Loading what="occurrences" />
      ) : occurrences.state === 'error' ? (
        <ErrorState title="Could not load the occurrences" error={occurrences.error ?? ''} />
      ) : occurrences.items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <OccurrenceList items={occurrences.items} hasMore={occurrences.hasMore} loadingMore={occurrences.loadingMore} onMore={occurrences.more} />
      )}
    </section>
  );
}

const sameWindow = (a: ErrorsQuery, b: ErrorsQuery): boolean => a.range === b.range && a.since === b.since && a.until === b.until;

/** "Last 24 hours", or a zoomed window's bounds: what a set of figures covers. */
/** A window without errors: what it was narrowed by, and the way to all time when it was narrowed. */
function NoErrors({ query, zoomed, onQuery }: { query: ErrorsQuery; zoomed: boolean; onQuery: (next: ErrorsQuery) => void }) {
  const filtered = query.category || query.origin || query.code || query.flow || query.run;
  return (
    <EmptyState
      title={`No errors ${zoomed ? 'in this zoomed window' : 'in this window'}${filtered ? ' with these filters' : ''}${query.issueStatus ? ` of ${STATUS_LABELS[query.issueStatus].toLowerCase()} issues` : ''}`}
    >
      {query.range !== 'all' || zoomed ? (
        <button type="button" onClick={() => onQuery({ ...query, range: 'all', since: null, until: null })}>
          Show all time
        </button>
      ) : (
        <span>
          Every failure of every run is journaled here, retried and caught ones included. Try <a href="#/flows">examples/02</a> for rate limits.
        </span>
      )}
    </EmptyState>
  );
}

function windowLabel(q: ErrorsQuery): string {
  if (q.since === null && q.until === null) return `the figures of ${RANGE_LABELS[q.range].replace(/^L/, 'l')}`;
  return `the figures of ${q.since !== null ? formatAbsolute(q.since).slice(5, 16) : 'the start'} → ${q.until !== null ? formatAbsolute(q.until).slice(5, 16) : 'now'}`;
}

/** Counts, trend, groups, occurrences and their correlation; every filter lives in the URL. */
export function ErrorsPage() {
  const route = useRoute();
  const query = useMemo(() => parseErrorsQuery(route.params), [route.params]);
  // The first round's clock when the window asked it moments ago, so its answers are this screen's.
  const live = useLiveRefresh(prefetchedNow());
  const { now, refresh, reload } = live;

  const win = windowOf(query, now);
  const filter = useMemo(() => filterOf(query, now), [query, now]);
  const overview = useOverview(filter, win.bucket, refresh, query);
  const data = overview.data;
  // The query the figures on screen answer: the one before while a new window is read or could not be.
  const shown = overview.answers ?? null;
  const occurrences = useOccurrences(filter, query.group, refresh);
  useReadInFlight(live, overview.status === 'loading');
  // The charts draw after the issues (IssuesPanel tells the gate) and the occurrences.
  const numbersFirst = useNumbersFirst(['issues', 'occurrences'], 'occurrences', data !== undefined && occurrences.state !== 'loading');

  const setQuery = (next: ErrorsQuery, options: { replace?: boolean } = {}): void => navigate(formatHash(['errors'], serializeErrorsQuery(next)), options);
  const toggle = (key: FilterKey, value: string): void => setQuery({ ...query, [key]: query[key] === value ? '' : value, group: '' });

  useShortcuts({ r: reload });

  const counts = data ? headerCounts(data.byHandled, data.failures) : null;
  const totalInWindow = counts ? counts.occurrences + counts.failures : 0;
  const selectedGroup = data?.groups.find((g) => g.fingerprint === query.group);

  // The charts and issues depend on the overview and the query only: kept as the same elements
  // while the occurrences (and the side loads) arrive, React leaves them — four SVG charts —
  // alone instead of drawing them again for each answer.
  const overviewPanels = useMemo(
    () =>
      data && (
        <>
          <div className="charts-row">
            <CountChart title="category" counts={data.byCategory} selected={query.category} byCategory onPick={(k) => toggle('category', k)} />
            <CountChart title="origin" counts={data.byOrigin} selected={query.origin} onPick={(k) => toggle('origin', k)} />
            <CountChart title="code" counts={data.byCode} selected={query.code} onPick={(k) => toggle('code', k)} />
          </div>
          <SeriesChart series={data.series} onZoom={(since, until) => setQuery({ ...query, since, until })} />
          <IssuesPanel query={query} now={now} refresh={refresh} onQuery={setQuery} />
        </>
      ),
    // toggle and setQuery read only `query`.
    [data, query, now, refresh],
  );

  let content;
  if (overview.status === 'loading' && !data) content = <Loading what="errors" />;
  else if (overview.status === 'error' && !data) content = <ErrorState title="Could not load the errors" error={overview.error} onRetry={overview.reload} />;
  else if (data && totalInWindow === 0) content = <NoErrors query={query} zoomed={win.zoomed} onQuery={setQuery} />;
  else if (data)
    content = (
      <>
        {overviewPanels}
        <div className="drill-row">
          <OccurrencesPanel occurrences={occurrences} selectedGroup={selectedGroup} group={query.group} onAllGroups={() => setQuery({ ...query, group: '' })} />
          <section className="panel" aria-labelledby="pivot-title">
            <h2 id="pivot-title">
              Where they happened <span className="muted">flow → run → task → attempt</span>
            </h2>
            <CorrelationPivot nodes={occurrences.pivot} truncated={occurrences.pivotTruncated} />
          </section>
        </div>
      </>
    );

  return (
    <ChartsAfterNumbers.Provider value={numbersFirst}>
      <section className="page errors-page" aria-labelledby="errors-title">
        <header className="page-header">
          <h1 id="errors-title">Errors</h1>
          <span className="page-meta" data-testid="errors-total">
            {counts && <CountsLine counts={counts} />}
            <ErrorsCost filter={filter} issueStatus={query.issueStatus} refresh={refresh} />
            {win.zoomed && ` between ${formatAbsolute(win.since ?? 0).slice(0, 16)} and ${win.until ? formatAbsolute(win.until).slice(0, 16) : 'now'}`}
            {overview.status === 'loading' && data && ' · refreshing…'}
          </span>
        </header>
        <StaleNote failed={failedRead(overview)} showing={shown && sameWindow(shown, query) ? null : shown && windowLabel(shown)} />
        <ErrorsFilterBar query={query} shown={shown} data={data} onChange={setQuery} />
        {content}
      </section>
    </ChartsAfterNumbers.Provider>
  );
}
