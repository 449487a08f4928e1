import { describe, expect, it } from 'vitest';
import type { EndingError, ErrorEnvelope, FailureLink, TaskView } from '../../core/service/api.js';
import { envelope } from '../testing/events.js';
import { chainParts, chainText, endingKind, endingSentence, factsOf, failureLine, processEnd } from './ending-story.js';

/** Links shaped as the engine journals them (runFailed.chain of the journeys' runs). */
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

const exit2: ErrorEnvelope = envelope('RUNTIME_CRASHED', { context: { exitCode: 2, signal: null } });
const task = (taskId: string, name: string, errors: (ErrorEnvelope | null)[]): TaskView => ({
  taskId,
  step: 1,
  ordinal: 0,
  name,
  agent: 'a',
  status: 'failed',
  maxAttempts: errors.length,
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

describe('the ending error in words', () => {
  it('a retry limit reads as what it gave up after, with the exit code and the task by name', () => {
    const limit = ending([
      link('POLICY_RETRY_LIMIT_EXCEEDED', { attempt: 4, how: 'retry-limit', origin: 'policy', seq: 23 }),
      link('RUNTIME_CRASHED', { attempt: 4, seq: 22, message: 'runtime fake exited with code 2' }),
    ]);
    const facts = factsOf([task('1:0', 'Deploy', [exit2, exit2, exit2, exit2])]);
    expect(chainText(limit, facts)).toBe('retry limit after 4 attempts → RUNTIME_CRASHED exit 2 in Deploy attempt 4');
    // The retry limit names no attempt of its own: one click target, on the error it gave up after.
    expect(chainParts(limit, facts).map((p) => p.where)).toEqual([null, { taskId: '1:0', attempt: 4, label: 'Deploy attempt 4' }]);
    // Without the run's detail (a notification, a list row): the task by id, no exit code.
    expect(chainText(limit)).toBe('retry limit after 4 attempts → RUNTIME_CRASHED in task 1:0 attempt 4');
    expect(failureLine(limit)).toBe('retry limit after 4 attempts → RUNTIME_CRASHED in task 1:0 attempt 4: runtime fake exited with code 2');
  });

  it('a rethrown error, a throw in a catch, a failing finally and a failing cleanup say how each link led on', () => {
    const facts = factsOf([
      task('1:0', 'Deploy', [envelope('RUNTIME_CRASHED', { context: { exitCode: null, signal: 'SIGSEGV' } })]),
      task('2:1', 'Unlock', [exit2]),
    ]);
    expect(chainText(ending([link('RUNTIME_CRASHED', { rethrown: true })]), facts)).toBe(
      'RUNTIME_CRASHED signal SIGSEGV in Deploy attempt 1 (caught, rethrown)',
    );
    expect(
      chainText(
        ending([link('USER_THROWN', { how: 'thrown-in-catch', taskId: null, attempt: null, message: 'deploy failed' }), link('RUNTIME_CRASHED')]),
        facts,
      ),
    ).toBe('USER_THROWN “deploy failed” → thrown while handling RUNTIME_CRASHED signal SIGSEGV in Deploy attempt 1');
    expect(chainText(ending([link('RUNTIME_CRASHED', { how: 'finally-failed', taskId: '2:1' }), link('RUNTIME_TIMEOUT')]), facts)).toBe(
      'RUNTIME_CRASHED exit 2 in Unlock attempt 1 → a finally failed over RUNTIME_TIMEOUT in Deploy attempt 1',
    );
    expect(chainText(ending([link('RUNTIME_CRASHED', { how: 'cleanup-failed' }), link('RUNTIME_OUTPUT_MALFORMED', { taskId: '2:1' })]))).toBe(
      'RUNTIME_CRASHED in task 1:0 attempt 1 + then a cancelled branch’s cleanup failed: RUNTIME_OUTPUT_MALFORMED in task 2:1 attempt 1',
    );
  });

  it('a failure the run raised itself names no task; an old row without a chain reads as its code', () => {
    expect(chainText(ending([link('POLICY_MAX_STEPS_EXCEEDED', { taskId: null, attempt: null, step: 3 })]))).toBe('POLICY_MAX_STEPS_EXCEEDED');
    expect(chainText({ ...ending([link('RUNTIME_CRASHED')]), chain: [] })).toBe('RUNTIME_CRASHED');
  });

  it('only a failed, cancelled or interrupted run with an ending error has a story; cancelled and interrupted say what ended them', () => {
    const crash = ending([link('RUNTIME_CRASHED')]);
    expect(endingKind({ status: 'failed', endingError: crash })).toBe('failed');
    expect(endingKind({ status: 'completed', endingError: null })).toBeNull();
    expect(endingKind({ status: 'running', endingError: null })).toBeNull();
    expect(endingKind({ status: 'failed', endingError: null })).toBeNull();
    const cancel = ending([link('SYSTEM_CANCELLED', { taskId: null, attempt: null, step: 2, message: 'stopped from the window', seq: null })]);
    expect(endingSentence('cancelled', cancel)).toBe('Cancelled during step 2: stopped from the window');
    expect(endingSentence('cancelled', { ...cancel, step: null })).toBe('Cancelled between steps: stopped from the window');
    expect(endingSentence('interrupted', ending([link('SYSTEM_RUN_INTERRUPTED', { message: 'host 4242 is gone' })]))).toMatch(
      /^Interrupted: its host stopped before the run ended \(host 4242 is gone\)/,
    );
  });

  it('reads a process end from the envelope: an exit code, else a signal, else nothing', () => {
    expect(processEnd(exit2)).toBe('exit 2');
    expect(processEnd(envelope('RUNTIME_CRASHED', { context: { exitCode: null, signal: 'SIGKILL' } }))).toBe('signal SIGKILL');
    expect(processEnd(envelope('RUNTIME_TIMEOUT'))).toBe('');
    expect(processEnd(null)).toBe('');
  });
});
