import { useState } from 'react';
import type { Issue, IssueSort } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { errorText, useAsync } from '../lib/use-async.js';
import { useShownPart } from './charts/load-charts.js';
import { ISSUE_SORT_CHOICES, STATUS_LABELS, type ErrorsQuery } from './errors-query.js';
import { IssuesTable, type IssueChange } from './IssuesTable.js';
import { issuesInput, takeArrivedIssues, takePrefetchedIssues } from './side-loads.js';

const SORT_LABELS: Record<IssueSort, string> = {
  'last-seen': 'Last seen',
  'first-seen': 'First seen',
  events: 'Events in the window',
  failures: 'Failures in the window',
  runs: 'Runs affected',
  trend: 'Trend (grew most)',
};

/**
 * The Errors screen's issues: those with events in the page's window and filters, in the status
 * the page shows and the order picked here (both in the URL), each with its events and failures
 * in the window and the change against the window before, with Resolve / Ignore / Reopen. The list
 * is the server's (`listIssues` over the same period and filters). A row opens the issue's page.
 */
export function IssuesPanel({ query, now, refresh, onQuery }: { query: ErrorsQuery; now: number; refresh: number; onQuery: (next: ErrorsQuery) => void }) {
  const api = useApi();
  const [changes, setChanges] = useState(0);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const ask = issuesInput(query, now);
  // Prefetched with the first round, the issues are usually in before this panel mounts (with the
  // overview): drawn in its first render, not a "Loading" frame later.
  const [arrived] = useState(() => takeArrivedIssues(ask));
  const { state, reload } = useAsync(() => takePrefetchedIssues(ask) ?? api.listIssues(ask), [api, JSON.stringify(ask), refresh, changes], arrived);
  const issues = state.data?.items ?? [];
  useShownPart('issues', state.status !== 'loading' || state.data !== undefined);

  const change = (issue: Issue, next: IssueChange): void => {
    setBusy(issue.id);
    setFailure(null);
    api.setIssueStatus({ id: issue.id, by: 'window', ...next }).then(
      () => {
        setBusy(null);
        setChanges((n) => n + 1);
      },
      (error: unknown) => {
        setBusy(null);
        setFailure(`Could not ${next.action} ${issue.code}: ${errorText(error)}`);
      },
    );
  };

  return (
    <section className="panel" aria-labelledby="groups-title">
      <h2 id="groups-title">
        Issues{' '}
        <span className="muted">({issues.length}; events and failures in this window, change against the window before; open one for everything about it)</span>
      </h2>
      <div className="toolbar issues-toolbar">
        <label className="select labelled">
          Sort by
          <select value={query.issueSort} onChange={(e) => onQuery({ ...query, issueSort: e.currentTarget.value as IssueSort })}>
            {ISSUE_SORT_CHOICES.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {failure && (
        <p role="alert" className="error-text">
          {failure}
        </p>
      )}
      <StaleNote failed={failedRead(state)} stream={false} />
      {state.status === 'loading' && !state.data ? (
        <Loading what="issues" />
      ) : state.status === 'error' && !state.data ? (
        <ErrorState title="Could not load the issues" error={state.error} onRetry={reload} />
      ) : issues.length === 0 ? (
        <p className="muted">No {query.issueStatus ? `${STATUS_LABELS[query.issueStatus].toLowerCase()} ` : ''}issues in this window.</p>
      ) : (
        <IssuesTable issues={issues} query={query} busy={busy} onChange={change} />
      )}
    </section>
  );
}
