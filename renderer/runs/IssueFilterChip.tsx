import { useApi } from '../app/api-context.js';
import { formatHash } from '../app/router.js';
import { useAsync } from '../lib/use-async.js';
import type { RunsQuery } from './runs-query.js';

/**
 * Runs filtered to an error issue (`#/runs?issue=<fingerprint>`, from the Errors screen's
 * "N runs affected →"): a chip naming the issue that removes the filter, and the way back to it.
 */
export function IssueFilterChip({ query, onChange }: { query: RunsQuery; onChange: (next: RunsQuery) => void }) {
  const api = useApi();
  const { state } = useAsync(() => (query.issue ? api.getIssue({ id: query.issue }) : Promise.resolve(null)), [api, query.issue]);
  if (!query.issue) return null;
  const title = state.data?.title ?? (state.status === 'error' ? `issue ${query.issue} (${state.error})` : `issue ${query.issue.slice(0, 8)}…`);
  return (
    <div className="issue-filter" data-testid="issue-filter">
      <span className="pill">
        <span>
          Runs that hit <strong>{title}</strong>
        </span>
        <button type="button" className="link" aria-label="Remove the issue filter" onClick={() => onChange({ ...query, issue: '' })}>
          ×
        </button>
      </span>
      <a href={formatHash(['issues', query.issue], { range: 'all', istatus: 'all' })}>← Back to the issue</a>
    </div>
  );
}
