import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../../core/service/api.js';
import { formatAbsolute } from '../../lib/format.js';
import { envelope } from '../../testing/events.js';
import type { TimelineSegment } from './timeline-layout.js';
import { segmentTitle, type TitleContext } from './timeline-titles.js';

const WALL = Date.UTC(2026, 10, 26, 1, 0, 0);
const VIRTUAL = WALL + 3_600_000;
const task: TaskView = {
  taskId: '1:0',
  step: 1,
  ordinal: 0,
  name: 'Deploy',
  agent: 'a',
  status: 'failed',
  maxAttempts: 4,
  attempts: [],
  error: null,
  output: null,
};
const segment = (over: Partial<TimelineSegment>): TimelineSegment => ({
  kind: 'attempt',
  x: 0,
  width: 30,
  start: VIRTUAL,
  end: VIRTUAL,
  attempt: 1,
  status: 'failed',
  label: '#1',
  error: null,
  delayMs: null,
  strategy: null,
  why: null,
  ...over,
});
const ctx = (over: Partial<TitleContext> = {}): TitleContext => ({
  virtual: true,
  walls: new Map([
    ['1:0#1', { started: WALL, ended: WALL + 40 }],
    ['1:0#2', { started: WALL + 90, ended: WALL + 95 }],
  ]),
  roles: new Map(),
  ...over,
});

describe('timeline tooltips', () => {
  it('an attempt says when it started in wall time, its duration on the run’s clock, and that it ended the run', () => {
    const title = segmentTitle(
      task,
      segment({ error: envelope('RUNTIME_CRASHED', { message: 'exited with code 2' }) }),
      ctx({ roles: new Map([['1:0#1', 'ended']]) }),
    );
    expect(title.split('\n')).toEqual([
      'Attempt 1 of 4: failed, virtual 0 ms',
      'Its error ended the run.',
      `started ${formatAbsolute(WALL)}`,
      'RUNTIME_CRASHED (runtime, from runtime:fake)',
      'exited with code 2',
      'Click for the whole error.',
    ]);
    expect(title).not.toContain(formatAbsolute(VIRTUAL));
  });

  it('a virtual backoff says it took no real time and starts when the attempt before it ended (wall)', () => {
    const title = segmentTitle(
      task,
      segment({ kind: 'backoff', attempt: 2, delayMs: 30_000, why: 'transient → linear 30s·(n+1) = 30s, retry 1 of 3', status: 'done' }),
      ctx(),
    );
    expect(title.split('\n')).toEqual([
      'Backoff before attempt 2: virtual 30s',
      'The virtual clock jumped over it: no real time passed.',
      'transient → linear 30s·(n+1) = 30s, retry 1 of 3',
      `from ${formatAbsolute(WALL + 40)}`,
    ]);
  });

  it('a next attempt due on a virtual clock has no time of day; on a real one it has its own', () => {
    const pending = segment({ kind: 'pending', attempt: 2, delayMs: 30_000, start: VIRTUAL, status: 'pending' });
    expect(segmentTitle(task, pending, ctx())).toBe('Attempt 2 of 4 starts after its virtual 30s wait');
    expect(segmentTitle(task, { ...pending, start: WALL + 30_000 }, ctx({ virtual: false }))).toBe(`Attempt 2 of 4 starts at ${formatAbsolute(WALL + 30_000)}`);
  });

  it('a sibling-cancelled attempt reads so, with what it answered', () => {
    const stopped = {
      attempt: 2,
      startedAt: VIRTUAL,
      endedAt: VIRTUAL,
      status: 'cancelled' as const,
      error: null,
      delayAfterMs: null,
      strategy: null,
      nextAttemptAt: null,
      cancelledBy: 'sibling' as const,
      lateResult: { outcome: 'succeeded' as const },
    };
    expect(segmentTitle(task, segment({ attempt: 2, status: 'cancelled' }), ctx({ attempt: stopped })).split('\n')[0]).toBe(
      'Attempt 2 of 4: cancelled: a sibling branch failed (it had succeeded; nothing acted on it), virtual 0 ms',
    );
  });
});
