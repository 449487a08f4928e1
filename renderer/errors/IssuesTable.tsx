import type { Issue, IssueAction, SetIssueStatusInput } from '../../core/service/api.js';
import { RelativeTime } from '../components/Time.js';
import { formatHash } from '../app/router.js';
import { colorFor } from '../lib/theme.js';
import { useNow } from '../lib/use-now.js';
import { ignoreWords } from './ignore-words.js';
import { Sparkline } from './Sparkline.js';

/** What the Ignore menu offers: the durations and conditions of `hivewatch issues ignore`. */
const IGNORE_CHOICES: { value: string; label: string; input: Omit<SetIssueStatusInput, 'id' | 'action'> }[] = [
  { value: 'forever', label: 'Ignore forever', input: {} },
  { value: '1h', label: 'Ignore for 1 hour', input: { forMs: 3_600_000 } },
  { value: '24h', label: 'Ignore for 24 hours', input: { forMs: 86_400_000 } },
  { value: '7d', label: 'Ignore for 7 days', input: { forMs: 7 * 86_400_000 } },
  { value: 'count10', label: 'Ignore until 10 more', input: { untilCount: 10 } },
  { value: 'count100', label: 'Ignore until 100 more', input: { untilCount: 100 } },
  { value: 'escalating', label: 'Ignore until escalating', input: { untilEscalating: true } },
];

export type IssueChange = { action: IssueAction } & Omit<SetIssueStatusInput, 'id' | 'action'>;

function statusLabel(issue: Issue): string {
  if (issue.status === 'unresolved') return issue.substatus ?? 'unresolved';
  return issue.status;
}

const changedBy = (issue: Issue): string => (issue.changedBy ? `: changed by ${issue.changedBy}${issue.reason ? ` (${issue.reason})` : ''}` : '');

/** An ignored issue's chip says when the ignore ends: a time, a count of occurrences, or an escalation. */
function IgnoredChip({ issue }: { issue: Issue }) {
  const words = ignoreWords(issue.ignore, useNow());
  return (
    <span className="chip issue-status issue-ignored" title={`${words.title}${changedBy(issue)}`} data-testid="issue-status">
      <span className="issue-status-words">{words.label}</span>
    </span>
  );
}

function StatusChip({ issue }: { issue: Issue }) {
  if (issue.status === 'ignored') return <IgnoredChip issue={issue} />;
  const label = statusLabel(issue);
  return (
    <span className={`chip issue-status issue-${label}`} title={`${issue.status}${changedBy(issue)}`} data-testid="issue-status">
      {label}
    </span>
  );
}

function Actions({ issue, busy, onChange }: { issue: Issue; busy: boolean; onChange: (change: IssueChange) => void }) {
  if (issue.status !== 'unresolved') {
    return (
      <button type="button" className="issue-reopen" disabled={busy} onClick={() => onChange({ action: 'reopen' })}>
        Reopen
      </button>
    );
  }
  return (
    <span className="issue-actions">
      <button type="button" disabled={busy} onClick={() => onChange({ action: 'resolve' })}>
        Resolve
      </button>
      <label className="select">
        <span className="visually-hidden">Ignore {issue.code}</span>
        <select
          value=""
          disabled={busy}
          onChange={(e) => {
            const choice = IGNORE_CHOICES.find((c) => c.value === e.currentTarget.value);
            if (choice) onChange({ action: 'ignore', ...choice.input });
          }}
        >
          <option value="">Ignore…</option>
          {IGNORE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
    </span>
  );
}

/**
 * Issues: error groups with a title, a status an operator works, and the runs they hit. A row
 * still selects its group's occurrences below (the class names are the groups table's).
 */
export function IssuesTable({
  issues,
  selected,
  busy,
  onSelect,
  onChange,
}: {
  issues: readonly Issue[];
  selected: string;
  busy: string | null;
  onSelect: (fingerprint: string) => void;
  onChange: (issue: Issue, change: IssueChange) => void;
}) {
  return (
    <div className="groups-table-wrap">
      <table className="groups-table issues-table" tabIndex={-1} data-skip-target>
        <thead>
          <tr>
            <th scope="col">Issue</th>
            <th scope="col">Status</th>
            <th scope="col" className="num" title="occurrences over all time">
              Events
            </th>
            <th scope="col" className="num" title="runs that ended failed with this as their ending error">
              Failures
            </th>
            <th scope="col">Runs affected</th>
            <th scope="col" className="issue-wide-only">
              First seen
            </th>
            <th scope="col">Last seen</th>
            <th scope="col" className="issue-wide-only">
              Last 24 h
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {issues.map((issue) => {
            const on = issue.id === selected;
            return (
              <tr
                key={issue.id}
                className={on ? 'selected' : ''}
                aria-selected={on}
                data-fingerprint={issue.id}
                // The row selects its occurrences, except from its own link and actions.
                onClick={(e) => {
                  if (!(e.target as HTMLElement).closest('a, .issue-actions, .issue-reopen')) onSelect(issue.id);
                }}
              >
                <td className="group-error issue-title">
                  <button type="button" className="link" aria-pressed={on} title={`issue ${issue.id}: show its occurrences`}>
                    <span className="cat-dot" style={{ background: colorFor(issue.category) }} aria-hidden="true" />
                    <code>{issue.code}</code>
                  </button>
                  <div className="group-message" title={issue.lastMessage}>
                    {issue.title.slice(issue.code.length + 3)}
                  </div>
                  {issue.culprit && (
                    <div className="muted issue-culprit" title={issue.culpritTemplate !== undefined ? `prompt as written: ${issue.culpritTemplate}` : undefined}>
                      {issue.culprit}
                    </div>
                  )}
                </td>
                <td>
                  <StatusChip issue={issue} />
                </td>
                <td className="num strong">{issue.occurrences.toLocaleString('en-US')}</td>
                <td className={`num${issue.failures > 0 ? ' error-text' : ' muted'}`}>{issue.failures.toLocaleString('en-US')}</td>
                <td>
                  <a href={formatHash(['runs'], { issue: issue.id })} data-testid="issue-runs">
                    {issue.runs.toLocaleString('en-US')} run{issue.runs === 1 ? '' : 's'} affected →
                  </a>
                </td>
                <td className="issue-wide-only">
                  <RelativeTime ts={issue.firstSeen} />
                </td>
                <td>
                  <RelativeTime ts={issue.lastSeen} />
                </td>
                <td className="issue-wide-only">
                  <Sparkline values={issue.trend} label={`occurrences of ${issue.code} per hour over the last 24 hours`} />
                </td>
                <td>
                  <Actions issue={issue} busy={busy === issue.id} onChange={(change) => onChange(issue, change)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
