import { describe, expect, it } from 'vitest';
import type { EndingError, ErrorEnvelope, FailureLink, TaskView } from '../../core/service/api.js';
import { envelope } from '../testing/events.js';
import { factsOf } from './ending-story.js';
import { failureHeadline, failureSummary, rootCauseIndex } from './failure-headline.js';

/** Links shaped as the engine journals them (runFailed.chain). */
const link = (code: string, over: Partial<FailureLink> = {}): FailureLink => ({
  seq: 7,
  code,
  category: code.split('_')[0]?.toLowerCase() ?? 'runtime',
  origin: 'runtime:fake',
  message: `${code} message`,
  step: 1,
  taskId: '1:0',
  attempt: 1,
  how: null,
  ...over,
});

const ending = (chain: FailureLink[]): EndingError => {
  const head = chain[0] as FailureLink;
  return {
    code: head.code,
    category: head.category,
    origin: head.origin,
    message: head.message,
    step: head.step,
    taskId: head.taskId,
    attempt: head.attempt,
    rootCode: (chain.at(-1) as FailureLink).code,
    chain,
  };
};

const task = (taskId: string, name: string, maxAttempts: number, errors: (ErrorEnvelope | null)[]): TaskView => ({
  taskId,
  step: 1,
  ordinal: 0,
  name,
  agent: 'a',
  status: 'failed',
  maxAttempts,
  error: null,
  output: null,
  attempts: errors.map((error, i) => ({
    attempt: i + 1,
    startedAt: 0,
    endedAt: 0,
    status: 'failed',
    error,
    delayAfterMs: null,
    strategy: null,
    nextAttemptAt: null,
  })),
});

const timeout = (attempt: number): FailureLink => link('RUNTIME_TIMEOUT', { attempt, message: 'Request timed out.', seq: 20 + attempt });
const gaveUp = ending([
  link('POLICY_RETRY_LIMIT_EXCEEDED', { attempt: 3, how: 'retry-limit', origin: 'policy', message: 'gave up after 3 attempts: Request timed out.' }),
  timeout(3),
]);

describe('"Failed because": the root cause first, then how the run gave up', () => {
  it('a retry limit leads with the error it gave up on, and says after how many attempts', () => {
    expect(failureSummary(gaveUp)).toBe('RUNTIME_TIMEOUT in task 1:0 attempt 3 · Request timed out. — gave up after 3 attempts');
    const facts = factsOf([task('1:0', 'Smoke tests', 3, [null, null, envelope('RUNTIME_TIMEOUT')])]);
    expect(failureHeadline(gaveUp, facts)).toEqual({
      code: 'RUNTIME_TIMEOUT',
      end: '',
      message: 'Request timed out.',
      where: { taskId: '1:0', attempt: 3, label: 'Smoke tests attempt 3' },
      gaveUp: 'gave up after 3 attempts',
      after: [],
      endedAs: 'POLICY_RETRY_LIMIT_EXCEEDED',
    });
  });

  it('a process end is said beside the code when the attempt’s own error has it', () => {
    const crash = ending([
      link('POLICY_RETRY_LIMIT_EXCEEDED', { attempt: 2, how: 'retry-limit' }),
      link('RUNTIME_CRASHED', { attempt: 2, message: 'exited with code 2' }),
    ]);
    const facts = factsOf([task('1:0', 'Deploy', 2, [null, envelope('RUNTIME_CRASHED', { context: { exitCode: 2, signal: null } })])]);
    expect(failureSummary(crash, facts)).toBe('RUNTIME_CRASHED exit 2 in Deploy attempt 2 · exited with code 2 — gave up after 2 attempts');
    // An error of another code on that attempt is not this link's: no exit is borrowed from it.
    const other = factsOf([task('1:0', 'Deploy', 2, [null, envelope('RUNTIME_TIMEOUT', { context: { exitCode: 9 } })])]);
    expect(failureHeadline(crash, other).end).toBe('');
  });

  it('a throw in a catch, a failing finally and a rethrow are steps of giving up, after the root cause', () => {
    const thrown = ending([
      link('USER_THROWN', { how: 'thrown-in-catch', taskId: null, attempt: null, message: 'deploy failed' }),
      link('RUNTIME_CRASHED', { message: 'boom' }),
    ]);
    expect(failureSummary(thrown)).toBe('RUNTIME_CRASHED in task 1:0 attempt 1 · boom — the catch threw “deploy failed”');
    expect(failureHeadline(thrown).endedAs).toBe('USER_THROWN');
    const finallyFailed = ending([
      link('RUNTIME_CRASHED', { how: 'finally-failed', taskId: '2:1', message: 'unlock failed' }),
      link('RUNTIME_TIMEOUT', { message: 'slow' }),
    ]);
    expect(failureSummary(finallyFailed)).toBe('RUNTIME_TIMEOUT in task 1:0 attempt 1 · slow — then a finally failed: RUNTIME_CRASHED in task 2:1 attempt 1');
    expect(failureSummary(ending([link('RUNTIME_CRASHED', { rethrown: true, message: 'boom' })]))).toBe(
      'RUNTIME_CRASHED in task 1:0 attempt 1 · boom — caught and rethrown',
    );
    // Three links: the timeout was retried to its limit, then the catch threw.
    const both = ending([
      link('USER_THROWN', { how: 'thrown-in-catch', taskId: null, attempt: null, message: 'smoke failed' }),
      link('POLICY_RETRY_LIMIT_EXCEEDED', { attempt: 3, how: 'retry-limit' }),
      timeout(3),
    ]);
    expect(failureSummary(both)).toBe('RUNTIME_TIMEOUT in task 1:0 attempt 3 · Request timed out. — gave up after 3 attempts; the catch threw “smoke failed”');
  });

  it('a cancelled branch’s failing cleanup follows the root cause and is never it', () => {
    const chain = [link('RUNTIME_CRASHED', { how: 'cleanup-failed', message: 'B exited' }), link('RUNTIME_OUTPUT_MALFORMED', { taskId: '1:2' })];
    expect(rootCauseIndex(chain)).toBe(0);
    expect(failureSummary(ending(chain))).toBe(
      'RUNTIME_CRASHED in task 1:0 attempt 1 · B exited — a cancelled branch’s cleanup then failed: RUNTIME_OUTPUT_MALFORMED in task 1:2 attempt 1',
    );
    expect(failureHeadline(ending(chain)).endedAs).toBeNull();
  });

  it('a one-link failure says why it was not retried when the run’s detail knows', () => {
    const auth = ending([link('RUNTIME_AUTH_FAILED', { message: 'bad key' })]);
    const noRetry = factsOf([task('1:0', 'Deploy', 1, [envelope('RUNTIME_AUTH_FAILED')])]);
    expect(failureSummary(auth, noRetry)).toBe('RUNTIME_AUTH_FAILED in Deploy attempt 1 · bad key — no retry was allowed');
    const fatal = factsOf([task('1:0', 'Deploy', 4, [envelope('RUNTIME_AUTH_FAILED', { recoverable: false })])]);
    expect(failureSummary(auth, fatal)).toBe('RUNTIME_AUTH_FAILED in Deploy attempt 1 · bad key — not retried: the error is not recoverable');
    expect(failureSummary(auth)).toBe('RUNTIME_AUTH_FAILED in task 1:0 attempt 1 · bad key');
  });

  it('a failure the run raised itself names no attempt; an old row without a chain reads as its code and message', () => {
    const steps = ending([link('POLICY_MAX_STEPS_EXCEEDED', { taskId: null, attempt: null, message: 'ran 100 steps' })]);
    expect(failureHeadline(steps).where).toBeNull();
    expect(failureSummary(steps)).toBe('POLICY_MAX_STEPS_EXCEEDED · ran 100 steps');
    expect(failureSummary({ ...gaveUp, chain: [] })).toBe('POLICY_RETRY_LIMIT_EXCEEDED in task 1:0 attempt 3 · gave up after 3 attempts: Request timed out.');
  });
});
