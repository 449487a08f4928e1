import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../core/service/api.js';
import { formatHash, parseHash } from '../app/router.js';
import {
  DEFAULT_SORT,
  filterAndSortRuns,
  flowsOf,
  nextSort,
  parseRunsQuery,
  serializeRunsQuery,
  statusCounts,
  type RunsQuery,
} from './runs-query.js';

function run(id: string, overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    id,
    flow: 'examples/01-happy-path.prose',
    flowName: '01-happy-path',
    status: 'completed',
    clock: 'real',
    startedAt: 1_000,
    endedAt: 2_000,
    durationMs: 1_000,
    startedWall: 1_000,
    endedWall: 2_000,
    step: 3,
    maxSteps: 100,
    attempts: 3,
    errorCount: 0,
    retrying: null,
    resumedFrom: null,
    retryOf: null,
    lastError: null,
    ...overrides,
  };
}

describe('runs URL state', () => {
  it('parses filters and sort from the hash and ignores unknown values', () => {
    const { path, params } = parseHash('#/runs?status=failed,bogus,running&flow=examples%2F02.prose&q=rate%20limit&sort=-errors');
    expect(path).toEqual(['runs']);
    expect(parseRunsQuery(params)).toEqual({
      status: ['running', 'failed'],
      flow: 'examples/02.prose',
      text: 'rate limit',
      sort: { key: 'errors', desc: true },
    });
    expect(parseRunsQuery(new URLSearchParams('sort=sideways')).sort).toEqual(DEFAULT_SORT);
  });

  it('serializes only what differs from the defaults, and round-trips', () => {
    expect(serializeRunsQuery({ status: [], flow: '', text: '', sort: DEFAULT_SORT }).toString()).toBe('');
    const query: RunsQuery = { status: ['failed', 'queued'], flow: 'f.prose', text: 'a&b=c #1', sort: { key: 'duration', desc: false } };
    const params = serializeRunsQuery(query);
    expect(params.get('status')).toBe('queued,failed');
    const hash = formatHash(['runs'], params);
    expect(parseRunsQuery(parseHash(hash).params)).toEqual({ ...query, status: ['queued', 'failed'] });
  });

  it('decodes path segments and encodes them back', () => {
    expect(parseHash(formatHash(['runs', 'run/with space'])).path).toEqual(['runs', 'run/with space']);
    expect(parseHash('').path).toEqual([]);
    expect(parseHash('#/flows/%E0%A4%A').path).toEqual(['flows', '%E0%A4%A']);
  });

  it('flips direction on the same column and starts a new one sensibly', () => {
    expect(nextSort({ key: 'started', desc: true }, 'started')).toEqual({ key: 'started', desc: false });
    expect(nextSort({ key: 'started', desc: true }, 'errors')).toEqual({ key: 'errors', desc: true });
    expect(nextSort({ key: 'started', desc: true }, 'flow')).toEqual({ key: 'flow', desc: false });
  });
});

describe('filterAndSortRuns', () => {
  const runs = [
    run('run_a', { startedAt: 3_000, status: 'running', endedAt: null, durationMs: null, flowName: 'beta', flow: 'b.prose' }),
    run('run_b', { startedAt: 1_000, status: 'failed', errorCount: 4, lastError: { code: 'RUNTIME_RATE_LIMIT', message: '429 Too Many' } }),
    run('run_c', { startedAt: 2_000, durationMs: 50_000 }),
    run('run_d', { startedAt: 2_000, durationMs: 10 }),
  ];
  const base: RunsQuery = { status: [], flow: '', text: '', sort: DEFAULT_SORT };

  it('sorts newest first by default, breaking ties by start then id', () => {
    expect(filterAndSortRuns(runs, base, 10_000).map((r) => r.id)).toEqual(['run_a', 'run_d', 'run_c', 'run_b']);
    expect(filterAndSortRuns(runs, { ...base, sort: { key: 'started', desc: false } }, 10_000).map((r) => r.id)).toEqual([
      'run_b',
      'run_c',
      'run_d',
      'run_a',
    ]);
  });

  it('sorts a running run by its duration so far', () => {
    const ids = filterAndSortRuns(runs, { ...base, sort: { key: 'duration', desc: true } }, 100_000).map((r) => r.id);
    expect(ids).toEqual(['run_a', 'run_c', 'run_b', 'run_d']);
  });

  it('filters by status, flow and text (id, flow, error code or message)', () => {
    expect(filterAndSortRuns(runs, { ...base, status: ['failed', 'running'] }, 0).map((r) => r.id)).toEqual(['run_a', 'run_b']);
    expect(filterAndSortRuns(runs, { ...base, flow: 'b.prose' }, 0).map((r) => r.id)).toEqual(['run_a']);
    expect(filterAndSortRuns(runs, { ...base, flow: 'beta' }, 0).map((r) => r.id)).toEqual(['run_a']);
    expect(filterAndSortRuns(runs, { ...base, text: 'rate_limit' }, 0).map((r) => r.id)).toEqual(['run_b']);
    expect(filterAndSortRuns(runs, { ...base, text: ' too many ' }, 0).map((r) => r.id)).toEqual(['run_b']);
    expect(filterAndSortRuns(runs, { ...base, text: 'RUN_C' }, 0).map((r) => r.id)).toEqual(['run_c']);
  });

  it('lists flows and status counts of the loaded runs', () => {
    expect(flowsOf(runs)).toEqual([
      { flow: 'examples/01-happy-path.prose', name: '01-happy-path', count: 3 },
      { flow: 'b.prose', name: 'beta', count: 1 },
    ]);
    expect(Object.fromEntries(statusCounts(runs))).toEqual({ running: 1, failed: 1, completed: 2 });
  });
});
