import { useState } from 'react';
import type { ErrorGroup, Issue, IssueSort } from '../../core/service/api.js';
import { useApi } from '../app/api-context.js';
import { ErrorState, Loading } from '../components/states.js';
import { failedRead, StaleNote } from '../components/StaleNote.js';
import { errorText, useAsync } from '../lib/use-async.js';
import { ISSUE_SORT_CHOICES, ISSUE_STATUS_CHOICES, type ErrorsQuery, type IssueStatusChoice } from './errors-query.js';
import { IssuesTable, type IssueChange } from './IssuesTable.js';
import { issuesInput, takePrefetchedIssues } from './side-loads.js';

const STATUS_LABELS: Record<IssueStatusChoice, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
  regressed: 'Regressed',
  escalating: 'Escalating',
  new: 'New',
  ongoing: 'Ongoing',
  '': 'Every status',
};

const SORT_LABELS: Record<IssueSort, string> = {
  'last-seen': 'Last seen',
  'first-seen': 'First seen',
  failures: 'Failures',
  runs: 'Runs affected',
};

/**
 * The Errors screen's issues: the groups the page's window and filters show, as issues in the
 * status and order picked here (both in the URL), with Resolve / Ignore / Reopen. The list is
 * the server's (`listIssues`), kept to the groups in the window, in the server's order.
 */
export function IssuesPanel({
  query,
  groups,
  refresh,
  onQuery,
}: {
  query: ErrorsQuery;
  groups: readonly ErrorGroup[];
  refresh: number;
  onQuery: (next: ErrorsQuery) => void;
}) {
  const api = useApi();
  const [changes, setChanges] = useState(0);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { state, reload } = useAsync(
    () => {
      const ask = issuesInput(query);
      return takePrefetchedIssues(ask) ?? api.listIssues(ask);
    },
    [api, query.issueStatus, query.issueSort, refresh, changes],
  );
  const shown = new Set(groups.map((g) => g.fingerprint));
  const issues = (state.data?.items ?? []).filter((i) => shown.has(i.id));

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
        Issues <span className="muted">({issues.length}; click one for its occurrences)</span>
      </h2>
      <div className="toolbar issues-toolbar">
        <label className="select labelled">
          Status
          <select value={query.issueStatus} onChange={(e) => onQuery({ ...query, issueStatus: e.currentTarget.value as IssueStatusChoice })}>
            {ISSUE_STATUS_CHOICES.map((s) => (
              <option key={s || 'all'} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
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
        <IssuesTable
          issues={issues}
          selected={query.group}
          busy={busy}
          onSelect={(fp) => onQuery({ ...query, group: query.group === fp ? '' : fp })}
          onChange={change}
        />
      )}
    </section>
  );
}
