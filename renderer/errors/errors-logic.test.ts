import { describe, expect, it } from 'vitest';
import type { ErrorOccurrence } from '../../core/service/api.js';
import { envelope } from '../testing/events.js';
import { binTimestamps, densify } from './bins.js';
import { bucketFor, DEFAULT_RANGE, filterOf, parseErrorsQuery, serializeErrorsQuery, windowOf, type ErrorsQuery } from './errors-query.js';
import { buildPivot } from './pivot.js';

const NOW = 1_800_000_000_000;

describe('errors URL state', () => {
  it('defaults to the last 24 hours with no filter', () => {
    const q = parseErrorsQuery(new URLSearchParams(''));
    expect(q).toEqual({
      range: DEFAULT_RANGE,
      since: null,
      until: null,
      category: '',
      origin: '',
      code: '',
      flow: '',
      run: '',
      group: '',
      issueStatus: 'unresolved',
      issueSort: 'last-seen',
    });
    expect(serializeErrorsQuery(q).toString()).toBe('');
  });

  it('round-trips filters, group and a zoom window', () => {
    const q: ErrorsQuery = {
      range: '7d',
      since: NOW - 5_000,
      until: NOW,
      category: 'runtime',
      origin: 'runtime:fake',
      code: 'RUNTIME_RATE_LIMIT',
      flow: 'examples/02-rate-limited-api.prose',
      run: 'run_1',
      group: 'abc123',
      issueStatus: 'regressed',
      issueSort: 'failures',
    };
    expect(parseErrorsQuery(serializeErrorsQuery(q))).toEqual(q);
    // Every status is `istatus=all`; the default (unresolved) and sort (last seen) are left out.
    const every = { ...q, issueStatus: '' as const, issueSort: 'last-seen' as const };
    expect(serializeErrorsQuery(every).get('istatus')).toBe('all');
    expect(serializeErrorsQuery(every).has('isort')).toBe(false);
    expect(parseErrorsQuery(serializeErrorsQuery(every))).toEqual(every);
    expect(parseErrorsQuery(new URLSearchParams('istatus=archived&isort=count'))).toMatchObject({ issueStatus: 'unresolved', issueSort: 'last-seen' });
  });

  it('drops a nonsense range or an inverted zoom', () => {
    expect(parseErrorsQuery(new URLSearchParams('range=forever')).range).toBe('24h');
    expect(parseErrorsQuery(new URLSearchParams('since=10&until=5'))).toMatchObject({ since: null, until: null });
    expect(parseErrorsQuery(new URLSearchParams('since=abc')).since).toBeNull();
  });

  it('turns a range into a window and a readable bucket', () => {
    const base = parseErrorsQuery(new URLSearchParams(''));
    expect(windowOf({ ...base, range: '1h' }, NOW)).toEqual({ since: NOW - 3_600_000, until: null, bucket: 'minute', zoomed: false });
    expect(windowOf({ ...base, range: '7d' }, NOW).bucket).toBe('hour');
    expect(windowOf({ ...base, range: '30d' }, NOW).bucket).toBe('day');
    expect(windowOf({ ...base, range: 'all' }, NOW)).toEqual({ since: null, until: null, bucket: 'day', zoomed: false });
    expect(windowOf({ ...base, since: NOW - 600_000, until: NOW }, NOW)).toEqual({ since: NOW - 600_000, until: NOW, bucket: 'minute', zoomed: true });
    expect(bucketFor(2 * 86_400_000)).toBe('hour');
  });

  it('builds the API filter, run and issue status included (unresolved unless the URL says otherwise)', () => {
    const q = parseErrorsQuery(new URLSearchParams('range=1h&category=runtime&run=run_9&group=g'));
    expect(filterOf(q, NOW)).toEqual({ since: NOW - 3_600_000, category: 'runtime', runId: 'run_9', issueStatus: 'unresolved' });
    expect(filterOf(parseErrorsQuery(new URLSearchParams('range=1h&istatus=resolved')), NOW)).toEqual({ since: NOW - 3_600_000, issueStatus: 'resolved' });
    // Every status: no issue-status filter at all.
    expect(filterOf(parseErrorsQuery(new URLSearchParams('range=1h&istatus=all')), NOW)).toEqual({ since: NOW - 3_600_000 });
  });
});

describe('sparkline bins', () => {
  it('counts timestamps per slice, clamping the edges', () => {
    expect(binTimestamps([0, 1, 5, 9, 10, -3, 99], 0, 10, 2)).toEqual([3, 4]);
    expect(binTimestamps([], 0, 10, 3)).toEqual([0, 0, 0]);
  });
});

function occurrence(run: string, task: string | null, attempt: number | null, code = 'RUNTIME_TIMEOUT', flow = 'f.prose'): ErrorOccurrence {
  const error = envelope(code, { correlation: { project: null, flow, run, step: 1, task, attempt } });
  return {
    id: 1,
    runId: run,
    seq: 1,
    ts: 0,
    category: error.category,
    code,
    origin: error.origin,
    message: error.message,
    fingerprint: 'fp',
    caught: false,
    retrying: true,
    disposition: 'handled',
    ending: false,
    flow,
    correlation: error.correlation,
    error,
  };
}

describe('buildPivot', () => {
  it('nests flow → run → task → attempt with counts, largest first, and links into the run', () => {
    const tree = buildPivot([
      occurrence('run_a', '1:0', 1),
      occurrence('run_a', '1:0', 2, 'RUNTIME_RATE_LIMIT'),
      occurrence('run_a', '1:0', 2, 'RUNTIME_RATE_LIMIT'),
      occurrence('run_b', '2:1', 1),
      occurrence('run_c', null, null, 'POLICY_MAX_STEPS_EXCEEDED', 'g.prose'),
    ]);
    expect(tree.map((n) => [n.label, n.count])).toEqual([
      ['f.prose', 4],
      ['g.prose', 1],
    ]);
    const runA = tree[0]!.children[0]!;
    expect(runA).toMatchObject({ label: 'run_a', count: 3, href: '#/runs/run_a', codes: ['RUNTIME_RATE_LIMIT', 'RUNTIME_TIMEOUT'] });
    const task = runA.children[0]!;
    expect(task).toMatchObject({ label: 'task 1:0', count: 3, href: '#/runs/run_a?task=1%3A0' });
    expect(task.children.map((a) => [a.label, a.count, a.href])).toEqual([
      ['attempt 2', 2, '#/runs/run_a?task=1%3A0&attempt=2'],
      ['attempt 1', 1, '#/runs/run_a?task=1%3A0&attempt=1'],
    ]);
    expect(tree[1]!.children[0]).toMatchObject({ label: 'run_c', children: [] });
  });
});

describe('densify', () => {
  it('fills empty buckets across the window so time runs linearly', () => {
    const H = 3_600_000;
    const out = densify(
      [
        { start: 2 * H, counts: { runtime: 3 } },
        { start: 5 * H + 10, counts: { policy: 1 } },
      ],
      'hour',
      0,
      6 * H,
    );
    expect(out.map((p) => p.start / H)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(out[2]!.counts).toEqual({ runtime: 3 });
    expect(out[5]!.counts).toEqual({ policy: 1 });
    expect(out[0]!.counts).toEqual({});
  });
  it('keeps the newest buckets beyond the cap', () => {
    const M = 60_000;
    const out = densify(
      [
        { start: 0, counts: { a: 1 } },
        { start: 999 * M, counts: { a: 2 } },
      ],
      'minute',
      null,
      null,
      10,
    );
    expect(out).toHaveLength(10);
    expect(out.at(-1)).toEqual({ start: 999 * M, counts: { a: 2 } });
  });
  it('is empty without points', () => {
    expect(densify([], 'day', 0, 10)).toEqual([]);
  });
  it('ends, at most `max` buckets, for points past 2^53 where adding a bucket changes nothing', () => {
    const out = densify(
      [
        { start: 1e31, counts: { a: 1 } },
        { start: 0, counts: { a: 1 } },
      ],
      'day',
      null,
      null,
      5,
    );
    expect(out).toHaveLength(5);
    expect(densify([{ start: 0, counts: { a: 1 } }], 'day', -1e31, 1e31, 3)).toHaveLength(3);
  });
});
