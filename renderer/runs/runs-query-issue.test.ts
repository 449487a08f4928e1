import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/service/api.js';
import { EMPTY_FILTERS, isFiltered, parseRunsQuery, serializeRunsQuery, serverFilter } from './runs-query.js';
import { matchesRunFilter } from '../../core/common/run-filter.js';

/** The Runs screen's `issue=<fingerprint>` filter: URL, server filter, live placement. */
describe('runs filtered by an error issue', () => {
  const summary = (errorCount: number): RunSummary => ({ id: 'run_1', flow: 'f.prose', flowName: 'f', status: 'failed', errorCount }) as RunSummary;

  it('round-trips in the URL, is a filter Clear removes, and asks the server for it', () => {
    const query = parseRunsQuery(new URLSearchParams('issue=ab0922c62c57a5ed&status=failed'));
    expect(query.issue).toBe('ab0922c62c57a5ed');
    expect(serializeRunsQuery(query).toString()).toBe('status=failed&issue=ab0922c62c57a5ed');
    expect(isFiltered({ ...query, status: [] })).toBe(true);
    expect({ ...query, ...EMPTY_FILTERS }.issue).toBe('');
    expect(serverFilter(query, 0)).toEqual({ status: ['failed'], issue: 'ab0922c62c57a5ed' });
    // Not a fingerprint (hex): dropped, as an unknown status is.
    expect(parseRunsQuery(new URLSearchParams('issue=<script>')).issue).toBe('');
  });

  it('places a live run without errors outside the filter and leaves one with errors to the server', () => {
    const filter = serverFilter(parseRunsQuery(new URLSearchParams('issue=ab09')), 0);
    expect(matchesRunFilter(summary(0), filter)).toBe(false);
    expect(matchesRunFilter(summary(3), filter)).toBeNull();
  });
});
