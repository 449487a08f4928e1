import type { RunStatus } from '../../core/service/api.js';
import { registerSearchField } from '../app/keyboard.js';
import { RUN_STATUSES, type RunsQuery } from './runs-query.js';

export interface RunsToolbarProps {
  query: RunsQuery;
  flows: { flow: string; name: string; count: number }[];
  counts: Map<RunStatus, number>;
  onChange: (query: RunsQuery, options?: { replace?: boolean }) => void;
}

/** Search, status chips (with counts) and the flow filter; all of it lives in the URL. */
export function RunsToolbar({ query, flows, counts, onChange }: RunsToolbarProps) {
  const toggleStatus = (status: RunStatus): void => {
    const has = query.status.includes(status);
    onChange({ ...query, status: has ? query.status.filter((s) => s !== status) : [...query.status, status] });
  };
  const filtered = query.status.length > 0 || query.flow !== '' || query.text !== '';
  return (
    <div className="toolbar" role="search">
      <label className="search">
        <span className="visually-hidden">Search runs</span>
        <input
          ref={registerSearchField}
          type="search"
          placeholder="Search id, flow or error…  ( / )"
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
            <button
              key={status}
              type="button"
              className={`chip status-${status}${on ? ' on' : ''}`}
              aria-pressed={on}
              onClick={() => toggleStatus(status)}
            >
              <span className="dot" aria-hidden="true" />
              {status}
              <span className="chip-count">{(counts.get(status) ?? 0).toLocaleString('en-US')}</span>
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
              {f.name} ({f.count})
            </option>
          ))}
        </select>
      </label>
      {filtered && (
        <button type="button" className="link" onClick={() => onChange({ ...query, status: [], flow: '', text: '' })}>
          Clear filters
        </button>
      )}
    </div>
  );
}
