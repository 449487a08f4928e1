import { describe, expect, it } from 'vitest';
import type { ErrorOccurrence, ErrorSeries, HivewatchApi, Page } from '../../core/service/api.js';
import { filterOf, parseErrorsQuery, stableNow, windowOf } from './errors-query.js';
import { prefetchErrors, SAMPLE_SIZE, takePrefetchedOverview, takePrefetchedSample } from './errors-loads.js';

/**
 * Answers the Errors screen's five reads with empty results and records each call with its
 * input; any other method is missing, so an unexpected read fails the test.
 */
function errorsApi(): { api: HivewatchApi; reads: { method: string; input: unknown }[] } {
  const reads: { method: string; input: unknown }[] = [];
  const answer = <T>(method: string, value: T) => (input: unknown): Promise<T> => {
    reads.push({ method, input });
    return Promise.resolve(value);
  };
  const series = { bucket: 'hour', bucketMs: 3_600_000, points: [], keys: [] };
  const page: Page<ErrorOccurrence> = { items: [], nextCursor: null };
  const api = {
    errorCounts: answer('errorCounts', []),
    failureCounts: answer('failureCounts', { total: 0, rows: [] }),
    errorGroups: answer('errorGroups', []),
    errorSeries: answer('errorSeries', series),
    listErrors: answer('listErrors', page),
  };
  return { api: api as unknown as HivewatchApi, reads };
}

const NOW = Date.UTC(2026, 10, 23, 12, 0, 30);

function screenFilter(hash: string): { filter: ReturnType<typeof filterOf>; bucket: ErrorSeries['bucket'] } {
  const query = parseErrorsQuery(new URLSearchParams(hash));
  const at = stableNow(NOW);
  return { filter: filterOf(query, at), bucket: windowOf(query, at).bucket };
}

describe('prefetching the Errors screen', () => {
  it('starts one round for the route, which the screen takes once, with the pivot sample as the only occurrence read', async () => {
    const { api, reads } = errorsApi();
    prefetchErrors(api, new URLSearchParams('range=24h'), NOW);
    prefetchErrors(api, new URLSearchParams('range=24h'), NOW); // the same route again: no second round
    const methods = reads.map((r) => r.method).sort();
    expect(methods).toEqual(['errorCounts', 'errorCounts', 'errorCounts', 'errorCounts', 'errorCounts', 'errorGroups', 'errorSeries', 'failureCounts', 'listErrors']);
    expect(reads.find((r) => r.method === 'listErrors')?.input).toMatchObject({ limit: SAMPLE_SIZE });

    const { filter, bucket } = screenFilter('range=24h');
    const overview = takePrefetchedOverview(filter, bucket);
    const sample = takePrefetchedSample(filter, '');
    expect(overview).not.toBeNull();
    expect(sample).not.toBeNull();
    await expect(sample).resolves.toEqual({ items: [], nextCursor: null });
    // Taken once: a refresh reads again.
    expect(takePrefetchedOverview(filter, bucket)).toBeNull();
    expect(takePrefetchedSample(filter, '')).toBeNull();
  });

  it('gives nothing to a screen whose filter differs from the prefetched one', () => {
    const { api } = errorsApi();
    prefetchErrors(api, new URLSearchParams('range=24h&category=runtime'), NOW);
    const other = screenFilter('range=24h');
    expect(takePrefetchedOverview(other.filter, other.bucket)).toBeNull();
    expect(takePrefetchedSample(other.filter, '')).toBeNull();
    const same = screenFilter('range=24h&category=runtime');
    expect(takePrefetchedSample(same.filter, 'some-group')).toBeNull();
    expect(takePrefetchedSample(same.filter, '')).not.toBeNull();
  });
});
