import type { ErrorCount } from '../../core/service/api.js';
import { formatAbsolute } from '../lib/format.js';
import { ISSUE_STATUS_CHOICES, RANGE_LABELS, RANGES, STATUS_LABELS, type ErrorsQuery, type IssueStatusChoice } from './errors-query.js';
import type { Overview } from './use-errors-data.js';

function FilterSelect({
  label,
  value,
  counts,
  onChange,
}: {
  label: string;
  value: string;
  counts: readonly ErrorCount[] | undefined;
  onChange: (value: string) => void;
}) {
  const options = counts ?? [];
  return (
    <label className="select labelled">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)} aria-label={`Filter by ${label.toLowerCase()}`}>
        <option value="">Any</option>
        {value && !options.some((c) => c.key === value) && <option value={value}>{value}</option>}
        {options.map((c) => (
          <option key={c.key} value={c.key}>
            {c.label ?? c.key} ({c.count})
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Time window, the category / origin / code / flow filters (a chart click sets them too) and the
 * issue status: every panel of the screen follows each of them. The window lit is the one the
 * figures on screen cover (`shown`); one chosen and not read yet (or that could not be read) is
 * marked pending beside it, never lit in its place.
 */
export function ErrorsFilterBar({
  query,
  shown,
  data,
  onChange,
}: {
  query: ErrorsQuery;
  shown: ErrorsQuery | null;
  data: Overview | undefined;
  onChange: (q: ErrorsQuery) => void;
}) {
  const set = (patch: Partial<ErrorsQuery>): void => onChange({ ...query, ...patch, group: '' });
  const zoomed = query.since !== null || query.until !== null;
  const lit = shown ?? query;
  const litZoomed = lit.since !== null || lit.until !== null;
  const any = query.category || query.origin || query.code || query.flow || query.run || zoomed;
  return (
    <div className="toolbar errors-toolbar">
      <div className="segmented" role="group" aria-label="Time window">
        {RANGES.map((r) => {
          const on = !litZoomed && lit.range === r;
          const pending = !on && !zoomed && query.range === r;
          return (
            <button
              key={r}
              type="button"
              aria-pressed={on}
              className={on ? 'on' : pending ? 'pending' : ''}
              data-pending={pending || undefined}
              title={pending ? `${RANGE_LABELS[r]}: not read yet; the figures shown are of the window lit` : undefined}
              onClick={() => set({ range: r, since: null, until: null })}
            >
              {RANGE_LABELS[r]}
            </button>
          );
        })}
      </div>
      {zoomed && (
        <span className="pill">
          {query.since !== null ? formatAbsolute(query.since).slice(5, 16) : 'start'} →{' '}
          {query.until !== null ? formatAbsolute(query.until).slice(5, 16) : 'now'}
          <button type="button" className="icon" aria-label="Reset zoom" onClick={() => set({ since: null, until: null })}>
            ×
          </button>
        </span>
      )}
      <FilterSelect label="Category" value={query.category} counts={data?.byCategory} onChange={(category) => set({ category })} />
      <FilterSelect label="Origin" value={query.origin} counts={data?.byOrigin} onChange={(origin) => set({ origin })} />
      <FilterSelect label="Code" value={query.code} counts={data?.byCode} onChange={(code) => set({ code })} />
      <FilterSelect label="Flow" value={query.flow} counts={data?.byFlow} onChange={(flow) => set({ flow })} />
      <label className="select labelled">
        <span>Issue status</span>
        <select
          value={query.issueStatus}
          onChange={(e) => set({ issueStatus: e.currentTarget.value as IssueStatusChoice })}
          title="every panel shows the occurrences of the issues in this status"
        >
          {ISSUE_STATUS_CHOICES.map((s) => (
            <option key={s || 'all'} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      {query.run && (
        <span className="pill mono">
          run {query.run}
          <button type="button" className="icon" aria-label="Remove the run filter" onClick={() => set({ run: '' })}>
            ×
          </button>
        </span>
      )}
      {any && (
        <button
          type="button"
          className="link"
          onClick={() => onChange({ ...query, category: '', origin: '', code: '', flow: '', run: '', group: '', since: null, until: null })}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}
