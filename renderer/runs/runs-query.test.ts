import { describe, expect, it } from 'vitest';
import type { EndingError, FailureLink, RunSummary } from '../../core/service/api.js';
import { formatHash, parseHash } from '../app/router.js';
import { compareRuns, DEFAULT_SORT, EMPTY_FILTERS, nextSort, parseRunsQuery, serializeRunsQuery, serverFilter, type RunsQuery } from './runs-query.js';
import { matchesRunFilter } from '../../core/common/run-filter.js';

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
    endingError: null,
    ...overrides,
  };
}

/** An ending error with a one- or two-link chain (head, root cause). */
function ending(code: string, rootCode = code): EndingError {
  const category = code.split('_')[0]?.toLowerCase() ?? 'runtime';
  const link = (c: string): FailureLink => ({
    seq: 1,
    code: c,
    category: c.split('_')[0]?.toLowerCase() ?? '',
    origin: 'runtime:fake',
    message: c,
    step: 1,
    taskId: '1:0',
    attempt: 1,
    how: null,
  });
  return {
    code,
    category,
    origin: 'runtime:fake',
    message: code,
    step: 1,
    taskId: '1:0',
    attempt: 1,
    rootCode,
    chain: rootCode === code ? [link(code)] : [{ ...link(code), how: 'retry-limit' }, link(rootCode)],
  };
}

describe('runs URL state', () => {
  it('parses filters and sort from the hash and ignores unknown values', () => {
    const { path, params } = parseHash('#/runs?status=failed,bogus,running&flow=examples%2F02.prose&q=rate%20limit&sort=-errors');
    expect(path).toEqual(['runs']);
    expect(parseRunsQuery(params)).toEqual({
      ...EMPTY_FILTERS,
      status: ['running', 'failed'],
      flow: 'examples/02.prose',
      text: 'rate limit',
      sort: { key: 'errors', desc: true },
    });
    expect(parseRunsQuery(new URLSearchParams('code=RUNTIME_TIMEOUT&category=runtime&range=7d'))).toMatchObject({
      code: 'RUNTIME_TIMEOUT',
      category: 'runtime',
      range: '7d',
    });
    expect(parseRunsQuery(new URLSearchParams('category=weather&range=2y'))).toMatchObject({ category: '', range: '' });
    expect(parseRunsQuery(new URLSearchParams('sort=sideways')).sort).toEqual(DEFAULT_SORT);
  });

  it('serializes only what differs from the defaults, and round-trips', () => {
    expect(serializeRunsQuery({ ...EMPTY_FILTERS, sort: DEFAULT_SORT }).toString()).toBe('');
    const query: RunsQuery = {
      ...EMPTY_FILTERS,
      status: ['failed', 'queued'],
      flow: 'f.prose',
      text: 'a&b=c #1',
      code: 'AGENT_CRASHED',
      category: 'agent',
      range: '24h',
      sort: { key: 'duration', desc: false },
    };
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

describe('the server query and its client twin', () => {
  const runs = [
    run('run_a', { startedAt: 3_000, status: 'running', endedAt: null, durationMs: null, flowName: 'beta', flow: 'b.prose' }),
    // Its newest error is a retried rate limit; it failed because of a crash.
    run('run_b', {
      startedAt: 1_000,
      status: 'failed',
      errorCount: 4,
      lastError: { code: 'RUNTIME_RATE_LIMIT', message: '429 Too Many' },
      endingError: ending('RUNTIME_CRASHED'),
    }),
    run('run_c', { startedAt: 2_000, durationMs: 50_000 }),
    run('run_d', { startedAt: 2_000, durationMs: 10 }),
  ];
  const base: RunsQuery = { ...EMPTY_FILTERS, sort: DEFAULT_SORT };
  const order = (query: RunsQuery): string[] => [...runs].sort(compareRuns(query.sort)).map((r) => r.id);
  const matching = (query: RunsQuery): string[] => runs.filter((r) => matchesRunFilter(r, serverFilter(query, 10_000))).map((r) => r.id);

  it('turns the URL state into the server filter, the range from now', () => {
    expect(serverFilter({ ...base, status: ['failed'], text: '  rate ', code: 'X', category: 'agent', range: '1h' }, 10_000_000)).toEqual({
      status: ['failed'],
      text: 'rate',
      code: 'X',
      category: 'agent',
      since: 10_000_000 - 3_600_000,
    });
    expect(serverFilter(base, 0)).toEqual({});
  });

  it('orders like the store: newest first with id ties, a running run last by duration (-1), status newest first within a rank', () => {
    expect(order(base)).toEqual(['run_a', 'run_d', 'run_c', 'run_b']);
    expect(order({ ...base, sort: { key: 'started', desc: false } })).toEqual(['run_b', 'run_c', 'run_d', 'run_a']);
    expect(order({ ...base, sort: { key: 'duration', desc: true } })).toEqual(['run_c', 'run_b', 'run_d', 'run_a']);
    // running (rank 0), failed (3), completed (6); the completed ones newest first, then by id.
    expect(order({ ...base, sort: { key: 'status', desc: false } })).toEqual(['run_a', 'run_b', 'run_c', 'run_d']);
    // Binary text order, as SQLite compares: upper case before lower case.
    const named = [run('x1', { flowName: 'beta' }), run('x2', { flowName: 'Zeta' })].sort(compareRuns({ key: 'flow', desc: false }));
    expect(named.map((r) => r.id)).toEqual(['x2', 'x1']);
  });

  it('matches like the store: status, flow file (a name cannot be told), the ending error’s code and category, text over id, flow and message', () => {
    expect(matching({ ...base, status: ['failed', 'running'] })).toEqual(['run_a', 'run_b']);
    expect(matching({ ...base, flow: 'b.prose' })).toEqual(['run_a']);
    // By a flow's name the store matches only when no run has a file so named, which a summary
    // cannot tell: null ("ask the server"), never a false the store could contradict.
    expect(runs.map((r) => matchesRunFilter(r, { flow: 'beta' }))).toEqual([null, false, false, false]);
    // code / category mean the error that ended the run, not its newest one.
    expect(matching({ ...base, code: 'RUNTIME_CRASHED' })).toEqual(['run_b']);
    expect(matching({ ...base, code: 'RUNTIME_RATE_LIMIT' })).toEqual([]);
    expect(matching({ ...base, category: 'runtime' })).toEqual(['run_b']);
    expect(matching({ ...base, text: ' too many ' })).toEqual(['run_b']);
    expect(matching({ ...base, text: 'RUN_C' })).toEqual(['run_c']);
  });

  it('a code filter finds a run by its ending error’s root cause too; "any error in the run" is told only where the summary knows', () => {
    const limit = run('run_l', { status: 'failed', errorCount: 5, endingError: ending('POLICY_RETRY_LIMIT_EXCEEDED', 'RUNTIME_TIMEOUT') });
    expect(matchesRunFilter(limit, { code: 'RUNTIME_TIMEOUT' })).toBe(true);
    expect(matchesRunFilter(limit, { code: 'POLICY_RETRY_LIMIT_EXCEEDED', category: 'policy' })).toBe(true);
    expect(matchesRunFilter(limit, { category: 'runtime' })).toBe(false);
    // Any occurrence: the newest is known, the others are not; a run without errors has none.
    expect(serverFilter({ ...base, code: 'RUNTIME_RATE_LIMIT', category: 'runtime', match: 'any' }, 0)).toEqual({
      anyCode: 'RUNTIME_RATE_LIMIT',
      anyCategory: 'runtime',
    });
    expect(matching({ ...base, code: 'RUNTIME_RATE_LIMIT', match: 'any' })).toEqual(['run_b']);
    expect(matchesRunFilter(runs[1] as RunSummary, { anyCode: 'RUNTIME_TIMEOUT' })).toBeNull();
    expect(matchesRunFilter(runs[1] as RunSummary, { anyCategory: 'runtime' })).toBeNull();
    expect(matchesRunFilter(runs[2] as RunSummary, { anyCode: 'RUNTIME_TIMEOUT' })).toBe(false);
    // The choice lives in the URL only while a code or category is set.
    expect(serializeRunsQuery({ ...base, code: 'X', match: 'any' }).toString()).toBe('code=X&match=any');
    expect(serializeRunsQuery({ ...base, match: 'any' }).toString()).toBe('');
    expect(parseRunsQuery(new URLSearchParams('code=X&match=any')).match).toBe('any');
    expect(parseRunsQuery(new URLSearchParams('code=X&match=sideways')).match).toBe('ending');
  });
});
