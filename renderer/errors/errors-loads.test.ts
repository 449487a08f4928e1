import { describe, expect, it } from 'vitest';
import type { ErrorOccurrence, ErrorSeries, HivewatchApi, Page } from '../../core/service/api.js';
import { filterOf, parseErrorsQuery, stableNow, windowOf } from './errors-query.js';
import { loadOverview, prefetchedNow, prefetchErrors, SAMPLE_SIZE, takePrefetchedOverview, takePrefetchedSample } from './errors-loads.js';
import { costInput, issuesInput, takeArrivedIssues, takePrefetchedCost, takePrefetchedIssues } from './side-loads.js';

/**
 * Answers the Errors screen's reads (the overview's, the occurrences, the issues, the cost) with empty results and records each call with its
 * input; any other method is missing, so an unexpected read fails the test.
 */
const none = { attempts: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unknownCostAttempts: 0 };
const EMPTY_COST = { total: { failed: none, retried: none, succeeded: none }, flows: [], trend: { grain: 'hour', points: [] } };

function errorsApi(): { api: HivewatchApi; reads: { method: string; input: unknown }[] } {
  const reads: { method: string; input: unknown }[] = [];
  const answer =
    <T>(method: string, value: T) =>
    (input: unknown): Promise<T> => {
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
    listIssues: answer('listIssues', { items: [], nextCursor: null }),
    costSplit: answer('costSplit', EMPTY_COST),
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
  it('hands its clock to a screen that mounts just after the minute turned, which then takes the round', () => {
    const { api } = errorsApi();
    const asked = Date.UTC(2026, 10, 23, 12, 0, 59, 900);
    const mounted = asked + 200;
    expect(stableNow(mounted)).not.toBe(stableNow(asked));
    prefetchErrors(api, new URLSearchParams('range=7d&category=git'), asked);
    const at = prefetchedNow(mounted);
    expect(at).toBe(stableNow(asked));
    const query = parseErrorsQuery(new URLSearchParams('range=7d&category=git'));
    expect(takePrefetchedOverview(filterOf(query, at as number), windowOf(query, at as number).bucket)).not.toBeNull();
    // Taken: a screen mounted later keeps its own clock.
    expect(prefetchedNow(mounted)).toBeNull();
  });

  it('gives no clock once the round is five seconds old', () => {
    const { api } = errorsApi();
    prefetchErrors(api, new URLSearchParams('range=30d&origin=runtime%3Afake'), NOW);
    expect(prefetchedNow(NOW + 4_999)).toBe(stableNow(NOW));
    expect(prefetchedNow(NOW + 5_000)).toBeNull();
  });

  it('starts one round for the route, which the screen takes once, with the pivot sample as the only occurrence read', async () => {
    const { api, reads } = errorsApi();
    prefetchErrors(api, new URLSearchParams('range=24h'), NOW);
    prefetchErrors(api, new URLSearchParams('range=24h'), NOW); // the same route again: no second round
    const methods = reads.map((r) => r.method).sort();
    // The issues and the cost too: their panels mount only after the overview drew.
    expect(methods).toEqual([
      'costSplit',
      'errorCounts',
      'errorCounts',
      'errorCounts',
      'errorCounts',
      'errorCounts',
      'errorGroups',
      'errorSeries',
      'failureCounts',
      'listErrors',
      'listIssues',
    ]);
    // The cost follows every filter of the screen, the issues' status included.
    expect(reads.find((r) => r.method === 'costSplit')?.input).toEqual({ since: stableNow(NOW) - 86_400_000, issueStatus: 'unresolved' });
    expect(reads.find((r) => r.method === 'listErrors')?.input).toMatchObject({ limit: SAMPLE_SIZE });
    // The issues of the screen's window (and, like every panel, its issue status).
    expect(reads.find((r) => r.method === 'listIssues')?.input).toEqual({
      since: stableNow(NOW) - 86_400_000,
      status: 'unresolved',
      sort: 'last-seen',
      limit: 1_000,
    });
    expect(
      reads
        .filter((r) => r.method !== 'listIssues' && r.method !== 'usageByFlow')
        .every((r) => (r.input as { issueStatus?: string }).issueStatus === 'unresolved'),
    ).toBe(true);

    const { filter, bucket } = screenFilter('range=24h');
    const overview = takePrefetchedOverview(filter, bucket);
    const sample = takePrefetchedSample(filter, '');
    expect(overview).not.toBeNull();
    expect(sample).not.toBeNull();
    await expect(sample).resolves.toEqual({ items: [], nextCursor: null });
    // Taken once: a refresh reads again.
    expect(takePrefetchedOverview(filter, bucket)).toBeNull();
    expect(takePrefetchedSample(filter, '')).toBeNull();
    // The issues panel and the cost take theirs once, for the inputs they would ask.
    const issues = issuesInput(parseErrorsQuery(new URLSearchParams('range=24h')), stableNow(NOW));
    const cost = costInput(filter, 'unresolved');
    expect(takePrefetchedIssues({ ...issues, sort: 'failures' })).toBeNull();
    await expect(takePrefetchedIssues(issues)).resolves.toEqual({ items: [], nextCursor: null });
    await expect(takePrefetchedCost(cost)).resolves.toEqual(EMPTY_COST);
    expect(takePrefetchedIssues(issues)).toBeNull();
    expect(takePrefetchedCost(cost)).toBeNull();
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
    // The cost follows the category as every other figure does.
    expect(takePrefetchedCost(costInput(other.filter, 'unresolved'))).toBeNull();
    expect(takePrefetchedCost(costInput(same.filter, 'unresolved'))).not.toBeNull();
    expect(takePrefetchedIssues(issuesInput(parseErrorsQuery(new URLSearchParams('range=24h')), stableNow(NOW)))).toBeNull();
    expect(takePrefetchedIssues(issuesInput(parseErrorsQuery(new URLSearchParams('range=24h&category=runtime')), stableNow(NOW)))).not.toBeNull();
  });

  it('never hands a round that failed to a screen mounting later (the server was away): that screen reads afresh', async () => {
    const refused = () => Promise.reject(new Error('Failed to fetch'));
    const down = {
      errorCounts: refused,
      failureCounts: refused,
      errorGroups: refused,
      errorSeries: refused,
      listErrors: refused,
      listIssues: refused,
      costSplit: refused,
    } as unknown as HivewatchApi;
    prefetchErrors(down, new URLSearchParams('range=7d'), NOW);
    const { filter, bucket } = screenFilter('range=7d');
    // Let both rejections settle, as they have by the time the chunk loads after a restart.
    await new Promise((resolve) => setImmediate(resolve));
    expect(takePrefetchedOverview(filter, bucket)).toBeNull();
    expect(takePrefetchedSample(filter, '')).toBeNull();
    const issues = issuesInput(parseErrorsQuery(new URLSearchParams('range=7d')), stableNow(NOW));
    expect(takePrefetchedIssues(issues)).toBeNull();
    expect(takePrefetchedCost(costInput(filter, 'unresolved'))).toBeNull();
    // The route again once the server is back: a new round, which the screen takes.
    const { api, reads } = errorsApi();
    prefetchErrors(api, new URLSearchParams('range=7d'), NOW);
    expect(reads.length).toBeGreaterThan(0);
    await expect(takePrefetchedOverview(filter, bucket)).resolves.toBeDefined();
    await expect(takePrefetchedIssues(issues)).resolves.toEqual({ items: [], nextCursor: null });
  });

  it('hands the issues to a panel mounting after their answer as an answer in hand, once', async () => {
    const { api } = errorsApi();
    const hash = 'range=30d&flow=examples/03-flaky-tests.prose';
    prefetchErrors(api, new URLSearchParams(hash), NOW);
    const issues = issuesInput(parseErrorsQuery(new URLSearchParams(hash)), stableNow(NOW));
    // Not in yet: nothing in hand, and the promise is still there for the panel to wait on.
    expect(takeArrivedIssues(issues)).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(takeArrivedIssues({ ...issues, sort: 'failures' })).toBeUndefined();
    expect(takeArrivedIssues(issues)?.data).toEqual({ items: [], nextCursor: null });
    // Taken: neither form hands it over again (a refresh reads afresh).
    expect(takeArrivedIssues(issues)).toBeUndefined();
    expect(takePrefetchedIssues(issues)).toBeNull();
  });
});

/**
 * A server that refuses a series of more than 10,000 buckets, as the real one does, and whose
 * error groups were first seen in 1938 and last seen in 2300 (rows an older ingest could leave).
 */
function hostileHistoryApi(): { api: HivewatchApi; series: { since: number; until: number | undefined; bucket: string }[] } {
  const series: { since: number; until: number | undefined; bucket: string }[] = [];
  const group = {
    fingerprint: 'fp',
    category: 'runtime',
    code: 'RUNTIME_RATE_LIMIT',
    origin: 'runtime:claude-code',
    message: 'Overloaded',
    count: 3,
    unhandled: 0,
    firstSeen: -1e12,
    lastSeen: Date.UTC(2300, 0, 1),
    trend: null,
  };
  const size: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
  const api = {
    errorCounts: () => Promise.resolve([{ key: 'runtime', count: 3, label: null }]),
    failureCounts: () => Promise.resolve({ total: 0, rows: [] }),
    errorGroups: () => Promise.resolve([group]),
    errorSeries: (input: { since: number; until?: number; bucket: string }) => {
      const until = input.until ?? NOW;
      const count = Math.ceil((until - input.since) / (size[input.bucket] as number));
      if (count > 10_000) return Promise.reject(new Error(`${count} ${input.bucket} buckets requested; at most 10000`));
      series.push({ since: input.since, until: input.until, bucket: input.bucket });
      return Promise.resolve({ bucket: input.bucket, stackBy: 'category', keys: ['runtime'], points: [{ start: NOW - 3_600_000, counts: { runtime: 1 } }] });
    },
  };
  return { api: api as unknown as HivewatchApi, series };
}

describe('planning the series window whatever the rows hold', () => {
  it.each(['range=1h', 'range=24h', 'range=7d', 'range=30d', 'range=all', 'since=0&until=8640000000000000', 'until=8640000000000000'])(
    '%s reads a series the server can answer, inside 2000 .. a day after now, at most 400 bars',
    async (hash) => {
      const { api, series } = hostileHistoryApi();
      const { filter, bucket } = screenFilter(hash);
      const overview = await loadOverview(api, filter, bucket, NOW);
      expect(overview.groups).toHaveLength(1);
      expect(series).toHaveLength(1);
      const [read] = series;
      const size = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[read!.bucket as 'minute'];
      expect(read!.since).toBeGreaterThanOrEqual(Date.UTC(2000, 0, 1));
      expect((read!.until ?? NOW) - read!.since).toBeLessThanOrEqual(401 * size);
      expect(read!.until ?? NOW).toBeLessThanOrEqual(NOW + 86_400_000);
      expect(overview.series.points.length).toBeLessThanOrEqual(400);
    },
  );
});
