import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../base/events.js';
import { STATUS_RANK_SQL } from '../store/schema-constants.js';
import { matchesRunFilter, RUN_SORT_KEYS, runComparator, STATUS_RANK, type FilterableRun } from './run-filter.js';

const run = (id: string, over: Partial<FilterableRun> = {}): FilterableRun => ({
  id,
  flow: 'flows/a.prose',
  flowName: 'a',
  status: 'completed',
  startedAt: 1_000,
  endedAt: 2_000,
  durationMs: 1_000,
  step: 1,
  attempts: 1,
  errorCount: 0,
  waitingUntil: null,
  lastError: null,
  endingError: null,
  ...over,
});

describe('the runs filter and order, as the store applies them', () => {
  it("ranks statuses as the store's frozen SQL does", () => {
    const ranks = Object.entries(STATUS_RANK).sort(([, a], [, b]) => a - b);
    const last = ranks.at(-1) as [RunStatus, number];
    const cases = ranks
      .slice(0, -1)
      .map(([status, rank]) => `WHEN '${status}' THEN ${rank}`)
      .join(' ');
    expect(STATUS_RANK_SQL).toBe(`(CASE status ${cases} ELSE ${last[1]} END)`);
  });

  it('matches statuses and the derived waiting-limit; an empty list matches nothing, as the store answers no page', () => {
    const waiting = run('w', { status: 'running', waitingUntil: 5_000 });
    expect(matchesRunFilter(waiting, { status: ['waiting-limit'] })).toBe(true);
    expect(matchesRunFilter(waiting, { status: 'running' })).toBe(true);
    expect(matchesRunFilter(run('r', { status: 'running' }), { status: ['waiting-limit'] })).toBe(false);
    expect(matchesRunFilter(waiting, { status: [] })).toBe(false);
  });

  it('matches a flow file surely, and by name only when the store could (null), never false for a name it would match', () => {
    expect(matchesRunFilter(run('f'), { flow: 'flows/a.prose' })).toBe(true);
    expect(matchesRunFilter(run('f'), { flow: 'a' })).toBeNull();
    expect(matchesRunFilter(run('f'), { flow: 'b' })).toBe(false);
    // A sure false elsewhere wins over what cannot be told.
    expect(matchesRunFilter(run('f'), { flow: 'a', status: ['failed'] })).toBe(false);
    expect(matchesRunFilter(run('f'), { flow: 'a', anyCode: 'X' })).toBe(false);
  });

  it('tells an ending code by the head or the root, and occurrences only by the newest', () => {
    const failed = run('x', {
      status: 'failed',
      errorCount: 2,
      lastError: { code: 'RUNTIME_RATE_LIMIT', message: '429' },
      endingError: { code: 'POLICY_RETRY_LIMIT_EXCEEDED', category: 'policy', rootCode: 'RUNTIME_TIMEOUT' },
    });
    expect(matchesRunFilter(failed, { code: 'RUNTIME_TIMEOUT', category: 'policy' })).toBe(true);
    expect(matchesRunFilter(failed, { code: 'RUNTIME_RATE_LIMIT' })).toBe(false);
    expect(matchesRunFilter(failed, { anyCode: 'RUNTIME_RATE_LIMIT' })).toBe(true);
    expect(matchesRunFilter(failed, { anyCode: 'RUNTIME_TIMEOUT' })).toBeNull();
    expect(matchesRunFilter(failed, { issue: 'ab12' })).toBeNull();
    expect(matchesRunFilter(run('clean'), { issue: 'ab12' })).toBe(false);
    expect(matchesRunFilter(failed, { text: ' 429 ' })).toBe(true);
    expect(matchesRunFilter(failed, { text: 'deploy' })).toBeNull();
  });

  it('orders every sort key with its tie rule, then the id, and a live run as the store COALESCEs it', () => {
    const live = run('live', { status: 'running', startedAt: 3_000, endedAt: null, durationMs: null });
    const early = run('early', { startedAt: 1_000 });
    const twin = run('twin', { startedAt: 1_000 });
    const late = run('late', { startedAt: 2_000 });
    const order = (key: (typeof RUN_SORT_KEYS)[number], desc: boolean): string[] => [late, live, twin, early].sort(runComparator(key, desc)).map((r) => r.id);
    expect(order('started', true)).toEqual(['live', 'late', 'twin', 'early']);
    expect(order('ended', false)).toEqual(['early', 'twin', 'late', 'live']);
    expect(order('duration', true)).toEqual(['late', 'twin', 'early', 'live']);
    // status and flow: ties newest first when ascending.
    expect(order('status', false)).toEqual(['live', 'late', 'early', 'twin']);
    expect(order('flow', true)).toEqual(['twin', 'early', 'late', 'live']);
    for (const key of RUN_SORT_KEYS) expect(new Set(order(key, false)).size).toBe(4);
  });
});
