import { describe, expect, it } from 'vitest';
import type { AttemptView, EndingError, FailureLink, TaskView } from '../../../core/service/api.js';
import { envelope } from '../../testing/events.js';
import { endingRoles, stopNote, waitAfter } from './attempt-notes.js';

const link = (code: string, taskId: string | null, attempt: number | null, how: FailureLink['how'] = null): FailureLink => ({
  seq: 1,
  code,
  category: 'runtime',
  origin: 'runtime:fake',
  message: code,
  step: 1,
  taskId,
  attempt,
  how,
});
const ending = (chain: FailureLink[]): EndingError => ({
  code: chain[0]?.code ?? '',
  category: 'runtime',
  origin: 'runtime:fake',
  message: '',
  step: 1,
  taskId: chain[0]?.taskId ?? null,
  attempt: chain[0]?.attempt ?? null,
  rootCode: chain.at(-1)?.code ?? '',
  chain,
});
const attempt = (n: number, over: Partial<AttemptView> = {}): AttemptView => ({
  attempt: n,
  startedAt: 0,
  endedAt: 0,
  status: 'failed',
  error: null,
  delayAfterMs: null,
  strategy: null,
  nextAttemptAt: null,
  ...over,
});
const task = (attempts: AttemptView[], status: TaskView['status']): TaskView => ({
  taskId: '1:0',
  step: 1,
  ordinal: 0,
  name: 'Deploy',
  agent: 'a',
  status,
  maxAttempts: 5,
  attempts,
  error: null,
  output: null,
});

describe('what an attempt was to its run', () => {
  it('the head’s attempt ended the run; the other attempts its chain names caused it', () => {
    // A retry limit names the attempt it gave up after, as its root does: one attempt, it ended the run.
    expect([...endingRoles(ending([link('POLICY_RETRY_LIMIT_EXCEEDED', '1:0', 4, 'retry-limit'), link('RUNTIME_CRASHED', '1:0', 4)]))]).toEqual([
      ['1:0#4', 'ended'],
    ]);
    // A failing finally: its attempt ended the run; the error it replaced is a cause.
    expect([...endingRoles(ending([link('RUNTIME_CRASHED', '2:1', 1, 'finally-failed'), link('RUNTIME_TIMEOUT', '1:0', 1)]))]).toEqual([
      ['2:1#1', 'ended'],
      ['1:0#1', 'cause'],
    ]);
    // A throw in a catch names no attempt: the caught one is a cause, none "ended" the run.
    expect([...endingRoles(ending([link('USER_THROWN', null, null, 'thrown-in-catch'), link('RUNTIME_CRASHED', '1:0', 1)]))]).toEqual([['1:0#1', 'cause']]);
    expect(endingRoles(null).size).toBe(0);
  });

  it('says why a stopped attempt stopped, with what it answered anyway', () => {
    expect(stopNote(attempt(2, { status: 'cancelled', cancelledBy: 'sibling' }))).toBe('cancelled: a sibling branch failed');
    expect(stopNote(attempt(2, { status: 'cancelled', cancelledBy: 'sibling', lateResult: { outcome: 'failed', error: envelope('RUNTIME_TIMEOUT') } }))).toBe(
      'cancelled: a sibling branch failed (it had failed: RUNTIME_TIMEOUT; nothing acted on it)',
    );
    expect(stopNote(attempt(1, { status: 'stale', lateResult: { outcome: 'succeeded', output: 'ok' } }))).toBe(
      'answered after the run was cancelled (it had succeeded; nothing acted on it)',
    );
    expect(stopNote(attempt(1, { status: 'cancelled' }))).toBe('cancelled with its run');
    expect(stopNote(attempt(1, { status: 'failed' }))).toBeNull();
  });

  it('a backoff the run’s end cut short is not a wait that happened', () => {
    const first = attempt(1, { delayAfterMs: 30_000 });
    expect(waitAfter(task([first, attempt(2)], 'failed'), first, false, 'rate limit')).toBe(' · then waited 30s: rate limit');
    expect(waitAfter(task([first], 'waiting'), first, true, undefined)).toBe(' · then waits a virtual 30s');
    expect(waitAfter(task([first], 'cancelled'), first, false, 'rate limit')).toBe(' · 30s backoff was due; the run ended first');
    expect(waitAfter(task([attempt(1)], 'failed'), attempt(1), false, undefined)).toBeNull();
  });
});
