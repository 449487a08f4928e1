import { useMemo, useRef, useState } from 'react';
import type { IssueDetail } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { useShortcuts } from '../app/keyboard.js';
import { useScreenTitle } from '../app/page-title.js';
import { formatHash, navigate, useRoute } from '../app/router.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorState, Loading } from '../components/states.js';
import { parseErrorsQuery, RANGE_LABELS, scopeOf, serializeErrorsQuery, STATUS_LABELS, type ErrorsQuery } from '../errors/errors-query.js';
import { formatAbsolute } from '../lib/format.js';
import { errorText, useAsync } from '../lib/use-async.js';
import { useLiveRefresh } from '../lib/use-live-refresh.js';
import { useReadInFlight } from '../lib/use-paced-reloads.js';
import { IssuePeriodCost } from './IssuePeriodCost.js';
import { readIssuePage } from './issue-reads.js';
import { IssueActions, StatusChip, type IssueChange } from './IssueActions.js';
import { ignoreWords } from './ignore-words.js';
import { IssueOccurrences } from './IssueOccurrences.js';
import { FlowChange, IssueActivityList, IssueFacts, IssueWhere, LatestOccurrence } from './IssueSections.js';
import { RunsAffected } from './RunsAffected.js';
import { TrendChart } from './TrendChart.js';

/** "in the last 24 hours", "between 11-28 09:00 and now", "of all time": the period the page counts in. */
function periodWords(query: ErrorsQuery): string {
  if (query.since !== null || query.until !== null) {
    const from = query.since !== null ? formatAbsolute(query.since).slice(5, 16) : 'the start';
    return `between ${from} and ${query.until !== null ? formatAbsolute(query.until).slice(5, 16) : 'now'}`;
  }
  return query.range === 'all' ? 'of all time' : `in the ${RANGE_LABELS[query.range].toLowerCase()}`;
}

/** What the screen's filters narrow the page to, besides the period ("flow api.prose · category git"). */
function filterWords(query: ErrorsQuery): string {
  const parts = [
    query.flow && `flow ${query.flow}`,
    query.run && `run ${query.run}`,
    query.issueStatus && `${STATUS_LABELS[query.issueStatus].toLowerCase()} issues`,
  ].filter(Boolean);
  return parts.join(' · ');
}

function Header({ detail, backHref, busy, onChange }: { detail: IssueDetail; backHref: string; busy: boolean; onChange: (change: IssueChange) => void }) {
  const { issue } = detail;
  // The chip says when the ignore ends; the page says it whole (the exact time, what comes after).
  const ignored = issue.status === 'ignored' ? ignoreWords(issue.ignore, Date.now()).title : null;
  return (
    <header className="page-header issue-header">
      <a href={backHref} className="back-link" data-testid="issue-back">
        ← Issues <span className="muted">(Esc)</span>
      </a>
      <h1 id="issue-title">
        <code>{issue.code}</code> <span className="issue-heading-message">{issue.title.slice(issue.code.length + 3)}</span>
      </h1>
      <p className="issue-why" data-testid="issue-why">
        <StatusChip issue={issue} /> {issue.why}
      </p>
      {ignored && <p data-testid="issue-ignore-end">{ignored.charAt(0).toUpperCase() + ignored.slice(1)}.</p>}
      <div className="issue-header-actions">
        <IssueActions issue={issue} busy={busy} onChange={onChange} />
        <CopyButton text={window.location.href} what="a link to this issue" />
        <span className="muted mono" title="the issue's fingerprint">
          {issue.id}
        </span>
        {issue.culprit && <span className="muted">in {issue.culprit}</span>}
      </div>
    </header>
  );
}

/**
 * An issue's page (`#/issues/<id>`, the Errors screen's window and filters in its query): why its
 * status, its actions, its counts and trend in the period, the latest occurrence with its causes,
 * its occurrences and the runs it hit, where it happened, whether it came with a flow change, and
 * its activity. Esc (or "← Issues") goes back to the issues table with the same filters. A link to
 * it opens the same page on any window of the same database.
 */
export function IssuePage({ id }: { id: string }) {
  const api = useApi();
  const route = useRoute();
  const query = useMemo(() => parseErrorsQuery(route.params), [route.params]);
  const live = useLiveRefresh();
  const { now, refresh, reload } = live;
  const scope = useMemo(() => scopeOf(query, now), [query, now]);
  const [changes, setChanges] = useState(0);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string>('');
  const backHref = formatHash(['errors'], serializeErrorsQuery({ ...query, group: '' }));
  useShortcuts({ Escape: () => navigate(backHref), r: reload });
  // The sections' first reads go in the same turn as the issue's first, so in one batch. Only
  // then: once the sections are on the page they read again themselves (a refresh, a new period),
  // and their effects run before this one.
  const sectionsAskedFor = useRef<string | null>(null);
  const { state, reload: again } = useAsync(() => {
    if (sectionsAskedFor.current === id) return api.getIssueDetail({ id, ...scope });
    sectionsAskedFor.current = id;
    return readIssuePage(api, id, scope);
  }, [api, id, JSON.stringify(scope), refresh, changes]);
  const detail = state.data;
  useReadInFlight(live, state.status === 'loading');
  useScreenTitle(detail ? `${detail.issue.code} · Issue` : 'Issue');

  const change = (next: IssueChange): void => {
    if (!detail) return;
    setBusy(true);
    setSaid('');
    api.setIssueStatus({ id: detail.issue.id, by: 'window', ...next }).then(
      (issue) => {
        setBusy(false);
        setSaid(`${issue.code} is ${issue.substatus ?? issue.status} now.`);
        setChanges((n) => n + 1);
      },
      (error: unknown) => {
        setBusy(false);
        setSaid(`Could not ${next.action} it: ${errorText(error)}`);
      },
    );
  };

  if (!detail) {
    if (state.status === 'error') {
      return (
        <section className="page issue-page">
          <a href={backHref}>← Issues</a>
          <ErrorState title={`Could not load issue ${id}`} error={state.error} onRetry={again} />
        </section>
      );
    }
    return <Loading what="the issue" />;
  }
  const words = periodWords(query);
  const narrowed = filterWords(query);
  const { issue } = detail;
  return (
    <section className="page issue-page" aria-labelledby="issue-title" data-issue={issue.id}>
      <Header detail={detail} backHref={backHref} busy={busy} onChange={change} />
      <p role="status" aria-live="polite" className="issue-said">
        {said}
      </p>
      {narrowed && (
        <p className="muted">
          Counted {words}, for {narrowed} (the issues table’s filters).
        </p>
      )}
      <div className="issue-grid">
        <div className="issue-main">
          <section className="panel" aria-labelledby="issue-trend-title">
            <h2 id="issue-trend-title">
              Trend{' '}
              <span className="muted">
                {words}, per {issue.trendBucketMs >= 86_400_000 ? 'day' : 'hour'}
              </span>
            </h2>
            <TrendChart trend={{ counts: issue.trend, start: issue.trendStart, bucketMs: issue.trendBucketMs, partial: issue.trendPartial }} />
          </section>
          <LatestOccurrence detail={detail} />
          <RunsAffected issueId={issue.id} total={issue.runs} refresh={refresh + changes} />
          <IssueOccurrences issueId={issue.id} scope={scope} periodWords={words} refresh={refresh} />
        </div>
        <div className="issue-side">
          <IssueFacts detail={detail} periodWords={words}>
            <IssuePeriodCost issueId={issue.id} scope={scope} periodWords={words} refresh={refresh + changes} />
          </IssueFacts>
          <FlowChange detail={detail} />
          <IssueWhere detail={detail} />
          <IssueActivityList detail={detail} />
        </div>
      </div>
    </section>
  );
}
