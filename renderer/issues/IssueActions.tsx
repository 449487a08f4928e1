import type { Issue, IssueAction, SetIssueStatusInput } from '../../core/service/api.js';
import { useNow } from '../lib/use-now.js';
import { ignoreWords } from './ignore-words.js';

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

function statusLabel(issue: Pick<Issue, 'status' | 'substatus'>): string {
  if (issue.status === 'unresolved') return issue.substatus ?? 'unresolved';
  return issue.status;
}

/** When an ignored issue comes back: "until 2026-11-29 14:00", "until 10 more", "until it escalates", "until reopened". */
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

/** The status and sub-state as a chip; its tooltip says why (with the figures behind it). */
export function StatusChip({ issue }: { issue: Issue }) {
  if (issue.status === 'ignored') return <IgnoredChip issue={issue} />;
  const label = statusLabel(issue);
  return (
    <span className={`chip issue-status issue-${label}`} title={issue.why} data-testid="issue-status">
      {label}
    </span>
  );
}

/** Resolve and Ignore… for an unresolved issue; Reopen otherwise. */
export function IssueActions({ issue, busy, onChange }: { issue: Issue; busy: boolean; onChange: (change: IssueChange) => void }) {
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
