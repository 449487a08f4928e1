import type { RunSummary } from '../../core/service/api.js';
import { formatAbsolute } from '../lib/format.js';
import { useNow } from '../lib/use-now.js';
import { waitedWords } from '../lib/waited-words.js';

/**
 * A run blocked on a person's answer to a permission prompt (docs/otel.md "Waiting for
 * approval"): in the Runs list a badge, in the run header a notice, both with the time it has
 * waited so far, live. The wait's words change once a minute, so the header's polite live region
 * speaks that often at most.
 */

/** The prompt a live run waits on, when it waits on one. */
export function approvalOf(run: RunSummary): { label: string; since: number } | null {
  return (run.status === 'running' || run.status === 'cancelling') && run.approval ? run.approval : null;
}

/**
 * The Runs list's two marks: in the status column a short badge ("approval · 12 min"), in the
 * flow's second line the sentence ("waiting for approval of `Bash(rm -rf build)` · 12 min"),
 * cut with an ellipsis when the column is narrow (its title has it whole).
 */
export function ApprovalBadge({ approval }: { approval: { label: string; since: number } }) {
  const now = Math.max(useNow(), Date.now());
  return (
    <span className="badge approval-wait" title={sentenceOf(approval, now)} data-testid="approval-wait-badge">
      <span className="approval-icon" aria-hidden="true" />
      approval · {waitedWords(now - approval.since)}
    </span>
  );
}

export function ApprovalLine({ approval }: { approval: { label: string; since: number } }) {
  const now = Math.max(useNow(), Date.now());
  return (
    <span className="approval-line" title={sentenceOf(approval, now)} data-testid="approval-wait">
      waiting for approval of <code>{approval.label}</code> · {waitedWords(now - approval.since)}
    </span>
  );
}

const sentenceOf = (approval: { label: string; since: number }, now: number): string =>
  `Waiting for a person to approve ${approval.label} for ${waitedWords(now - approval.since)}, since ${formatAbsolute(approval.since)}`;

/** The run header's line: "Waiting for approval of `Bash(rm -rf build)` · 12 min. …". */
export function ApprovalNotice({ approval, external }: { approval: { label: string; since: number }; external: boolean }) {
  const now = Math.max(useNow(), Date.now());
  return (
    <p className="approval-wait-notice" role="status" aria-live="polite" data-testid="approval-wait-notice">
      <span className="approval-icon" aria-hidden="true" />
      Waiting for approval of <code>{approval.label}</code> ·{' '}
      <time dateTime={new Date(approval.since).toISOString()} title={`since ${formatAbsolute(approval.since)}`}>
        {waitedWords(now - approval.since)}
      </time>
      .{' '}
      {external
        ? 'The agent is blocked until a person answers its permission prompt in its own terminal or app. Stop watching ends its run here; Hivewatch cannot stop the agent.'
        : 'The agent is blocked until a person answers its permission prompt.'}
    </p>
  );
}
