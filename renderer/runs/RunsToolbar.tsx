import type { RunCounts, RunListStatus } from '../../core/service/api.js';
import { registerSearchField } from '../app/keyboard.js';
import { chipCount, countLabel } from './count-words.js';
import { EMPTY_FILTERS, ERROR_CATEGORIES, isFiltered, RANGES, RUN_STATUSES, type ErrorMatch, type RangeKey, type RunsQuery } from './runs-query.js';

export interface RunsToolbarProps {
  query: RunsQuery;
  /** From the server under the current filter (null while the first read is in flight). */
  counts: RunCounts | null;
  onChange: (query: RunsQuery, options?: { replace?: boolean }) => void;
}

/** A chip reads as its status, except the derived one (core/base/run-list-status.ts). */
const STATUS_CHIP_LABELS: Partial<Record<RunListStatus, string>> = { 'waiting-limit': 'waiting for limit', 'waiting-approval': 'waiting for approval' };

const RANGE_LABELS: Record<RangeKey, string> = { '': 'Any time', '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days' };

const MATCH_LABELS: Record<ErrorMatch, string> = { ending: 'in the error that ended the run', any: 'in any error in the run' };

/**
 * Search, status chips (counted under every other filter), flow, error code and category (of the
 * error that ended the run, or of any error in it), and the start-time window; all of it lives
 * in the URL and is answered by the server.
 */
export function RunsToolbar({ query, counts, onChange }: RunsToolbarProps) {
  const toggleStatus = (status: RunListStatus): void => {
    const has = query.status.includes(status);
    onChange({ ...query, status: has ? query.status.filter((s) => s !== status) : [...query.status, status] });
  };
  const flows = counts?.byFlow ?? [];
  return (
    <div className="toolbar" role="search">
      <label className="search">
        <span className="visually-hidden">Search runs</span>
        <input
          ref={registerSearchField}
          type="search"
          placeholder="Search id, flow, error or prompt…  ( / )"
          value={query.text}
          onChange={(e) => onChange({ ...query, text: e.currentTarget.value }, { replace: true })}
          onKeyDown={(e) => {
            if (e.key === 'Escape' || e.key === 'Enter') e.currentTarget.blur();
          }}
        />
      </label>
      <div className="chips" role="group" aria-label="Filter by status">
        {RUN_STATUSES.map((status) => {
          const on = query.status.includes(status);
          return (
            <button key={status} type="button" className={`chip status-${status}${on ? ' on' : ''}`} aria-pressed={on} onClick={() => toggleStatus(status)}>
              <span className="dot" aria-hidden="true" />
              {STATUS_CHIP_LABELS[status] ?? status}
              <span className="chip-count">{chipCount(counts, status)}</span>
            </button>
          );
        })}
      </div>
      <label className="select">
        <span className="visually-hidden">Filter by flow</span>
        <select value={query.flow} onChange={(e) => onChange({ ...query, flow: e.currentTarget.value })}>
          <option value="">All flows</option>
          {query.flow && !flows.some((f) => f.flow === query.flow) && <option value={query.flow}>{query.flow}</option>}
          {flows.map((f) => (
            <option key={f.flow} value={f.flow}>
              {f.flowName} ({countLabel(counts, f.count)})
            </option>
          ))}
        </select>
      </label>
      <label className="select">
        <span className="visually-hidden">Filter by error category</span>
        <select value={query.category} onChange={(e) => onChange({ ...query, category: e.currentTarget.value })}>
          <option value="">Any error category</option>
          {ERROR_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label className="search code-filter">
        <span className="visually-hidden">Filter by error code</span>
        <input
          type="text"
          placeholder={query.match === 'any' ? 'Error code' : 'Ending error code'}
          value={query.code}
          spellCheck={false}
          onChange={(e) => onChange({ ...query, code: e.currentTarget.value.trim().toUpperCase() }, { replace: true })}
        />
      </label>
      <label className="select">
        <span className="visually-hidden">Match the error code and category</span>
        <select
          className="error-match"
          value={query.match}
          onChange={(e) => onChange({ ...query, match: e.currentTarget.value === 'any' ? 'any' : 'ending' })}
          data-testid="error-match"
        >
          {(Object.keys(MATCH_LABELS) as ErrorMatch[]).map((m) => (
            <option key={m} value={m}>
              {MATCH_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      <label className="select">
        <span className="visually-hidden">Started within</span>
        <select value={query.range} onChange={(e) => onChange({ ...query, range: e.currentTarget.value as RangeKey })}>
          {(Object.keys(RANGES) as RangeKey[]).map((r) => (
            <option key={r} value={r}>
              {RANGE_LABELS[r]}
            </option>
          ))}
        </select>
      </label>
      {isFiltered(query) && (
        <button type="button" className="link" onClick={() => onChange({ ...query, ...EMPTY_FILTERS })}>
          Clear filters
        </button>
      )}
    </div>
  );
}
