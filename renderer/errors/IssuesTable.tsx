import type { Issue } from '../../core/service/api.js';
import { RelativeTime } from '../components/Time.js';
import { formatHash, navigate } from '../app/router.js';
import { colorFor } from '../lib/theme.js';
import { serializeErrorsQuery, type ErrorsQuery } from './errors-query.js';
import { IssueActions, StatusChip, type IssueChange } from '../issues/IssueActions.js';
import { Sparkline } from './Sparkline.js';
import { changeText, changeTitle, changeTone } from '../issues/trend-words.js';
import { formatCount } from '../lib/format.js';
import { useRowsInStages } from '../lib/use-rows-in-stages.js';

export type { IssueChange } from '../issues/IssueActions.js';

/** The issue's page, carrying the screen's window and filters: its counts follow them, and back returns to them. */
function issueHref(id: string, query: ErrorsQuery): string {
  return formatHash(['issues', id], serializeErrorsQuery({ ...query, group: '' }));
}

const num = (n: number): string => formatCount(n);

/** The column heads; the wide-only columns drop out on a narrow window (CSS). */
function IssuesTableHead() {
  return (
    <thead>
      <tr>
        <th scope="col">Issue</th>
        <th scope="col">Status</th>
        <th scope="col" className="num" title="occurrences in this window">
          Events
        </th>
        <th scope="col" className="num" title="events against the window before">
          Change
        </th>
        <th scope="col" className="num" title="runs that ended failed on this issue in this window">
          Failures
        </th>
        <th scope="col">Runs affected</th>
        <th scope="col" className="issue-wide-only">
          First seen
        </th>
        <th scope="col">Last seen</th>
        <th scope="col" className="issue-wide-only">
          Trend
        </th>
        <th scope="col">Actions</th>
      </tr>
    </thead>
  );
}

/** The issue's cell: its code (the link a keyboard reaches), its message, and the prompt it came from when known. */
function IssueTitleCell({ issue, href }: { issue: Issue; href: string }) {
  return (
    <td className="group-error issue-title">
      <a href={href} className="issue-link" title={`issue ${issue.id}: open its page`}>
        <span className="cat-dot" style={{ background: colorFor(issue.category) }} aria-hidden="true" />
        <code>{issue.code}</code>
      </a>
      <div className="group-message" title={issue.lastMessage}>
        {issue.title.slice(issue.code.length + 3)}
      </div>
      {issue.culprit && (
        <div className="muted issue-culprit" title={issue.culpritTemplate !== undefined ? `prompt as written: ${issue.culpritTemplate}` : undefined}>
          {issue.culprit}
        </div>
      )}
    </td>
  );
}

/** One issue: its counts in the window, when it was seen, its trend and what an operator can do with it. */
function IssueRow({
  issue,
  query,
  busy,
  onChange,
}: {
  issue: Issue;
  query: ErrorsQuery;
  busy: boolean;
  onChange: (issue: Issue, change: IssueChange) => void;
}) {
  const href = issueHref(issue.id, query);
  const trend = { counts: issue.trend, start: issue.trendStart, bucketMs: issue.trendBucketMs, partial: issue.trendPartial };
  return (
    <tr
      data-fingerprint={issue.id}
      className="issue-row"
      // The row opens the issue, except from its own links and actions.
      onClick={(e) => {
        if (!(e.target as HTMLElement).closest('a, button, select, label')) navigate(href);
      }}
    >
      <IssueTitleCell issue={issue} href={href} />
      <td>
        <StatusChip issue={issue} />
      </td>
      <td className="num strong" data-testid="issue-events">
        {num(issue.period.events)}
      </td>
      <td className={`num issue-change change-${changeTone(issue.period)}`} title={changeTitle(issue.period)} data-testid="issue-change">
        {changeText(issue.period)}
      </td>
      <td className={`num${issue.period.failures > 0 ? ' error-text' : ' muted'}`} data-testid="issue-failures">
        {num(issue.period.failures)}
      </td>
      <td>
        <a href={formatHash(['runs'], { issue: issue.id })} data-testid="issue-runs">
          {num(issue.runs)} run{issue.runs === 1 ? '' : 's'} affected →
        </a>
      </td>
      <td className="issue-wide-only">
        <RelativeTime ts={issue.firstSeen} />
      </td>
      <td>
        <RelativeTime ts={issue.lastSeen} />
      </td>
      <td className="issue-wide-only">
        <Sparkline trend={trend} label={`${issue.code} per ${issue.trendBucketMs >= 86_400_000 ? 'day' : 'hour'}`} />
      </td>
      <td>
        <IssueActions issue={issue} busy={busy} onChange={(change) => onChange(issue, change)} />
      </td>
    </tr>
  );
}

/**
 * Issues: error groups with a title, a status an operator works, their events and failures in the
 * window and the change against the window before, and the runs they hit. A row opens the issue's
 * page (its title is the link a keyboard reaches).
 */
export function IssuesTable({
  issues,
  query,
  busy,
  onChange,
}: {
  issues: readonly Issue[];
  query: ErrorsQuery;
  busy: string | null;
  onChange: (issue: Issue, change: IssueChange) => void;
}) {
  const rows = useRowsInStages(issues);
  return (
    <div className="groups-table-wrap">
      <table className="groups-table issues-table" tabIndex={-1} data-skip-target>
        <IssuesTableHead />
        <tbody>
          {rows.map((issue) => (
            <IssueRow key={issue.id} issue={issue} query={query} busy={busy === issue.id} onChange={onChange} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
