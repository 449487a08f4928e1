import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../../core/service/api.js';
import { envelope, JournalBuilder } from '../../testing/events.js';
import { branchesText, judgmentWaits, waitTitle } from './judgment-wait.js';

const ref = (taskId: string) => ({ step: 1, ordinal: Number(taskId.split(':')[1]), taskId });
const trace = (exitCode: number | null, signal: string | null = null) => ({ exitCode, signal, stdoutTail: '', stderrTail: '' });

/** A fail-fast step of three branches: 1:2 exits 3 while 1:0 and 1:1 still run. */
function waiting(): JournalBuilder {
  const j = new JournalBuilder('r1', 0);
  j.start();
  for (const id of ['1:0', '1:1', '1:2']) j.add({ ...ref(id), type: 'attemptStarted', attempt: 1 });
  j.add({ ...ref('1:2'), type: 'attemptFailed', attempt: 1, durationMs: 5, error: envelope('RUNTIME_CRASHED'), trace: trace(3), awaiting: ['1:0', '1:1'] });
  return j;
}

const task = (taskId: string, name: string): TaskView => ({
  taskId,
  step: 1,
  ordinal: Number(taskId.split(':')[1]),
  name,
  agent: 'fake',
  status: 'running',
  maxAttempts: 1,
  attempts: [],
  error: null,
  output: null,
});
const TASKS = [task('1:2', 'Check quickly'), task('1:0', 'Review slowly'), task('1:1', 'Lint')];

describe('a failure waiting for lower branches to settle the step', () => {
  it('shows the fact and every lower branch it waits for, fewer as they end', () => {
    const j = waiting();
    expect(judgmentWaits(j.events).get('1:2')).toEqual({ attempt: 1, fact: 'exited 3', waitingFor: ['1:0', '1:1'] });
    j.add({ ...ref('1:1'), type: 'attemptSucceeded', attempt: 1, durationMs: 9 });
    expect(judgmentWaits(j.events).get('1:2')?.waitingFor).toEqual(['1:0']);
    expect(branchesText(['1:0'], TASKS)).toBe('branch 1');
    expect(branchesText(['1:0', '1:1'], TASKS)).toBe('branches 1 and 2');
  });

  it('a lower branch in backoff has not ended: a retried failure is no end', () => {
    const j = waiting();
    j.add({ ...ref('1:0'), type: 'attemptFailed', attempt: 1, durationMs: 5, error: envelope('RUNTIME_TIMEOUT'), trace: trace(124) });
    j.add({ type: 'errorOccurred', error: envelope('RUNTIME_TIMEOUT'), caught: false, retrying: true, ...ref('1:0') });
    expect(judgmentWaits(j.events).get('1:2')?.waitingFor).toEqual(['1:0', '1:1']);
  });

  it('ends with the verdict: the error counted, or the task judged cancelled, or the run ended', () => {
    const counted = waiting();
    counted.add({ type: 'errorOccurred', error: envelope('RUNTIME_CRASHED'), caught: false, retrying: false, ...ref('1:2') });
    expect(judgmentWaits(counted.events).size).toBe(0);

    const cancelled = waiting();
    cancelled.add({ ...ref('1:2'), type: 'attemptJudgedCancelled', attempt: 1, by: 'sibling' });
    expect(judgmentWaits(cancelled.events).size).toBe(0);

    const ended = waiting();
    ended.add({ type: 'runCancelled', cause: { commandId: 'c', reason: 'stop' }, correlation: { run: 'r1', step: 1, epoch: 1 } });
    expect(judgmentWaits(ended.events).size).toBe(0);
  });

  it('a failure that waited for nothing shows no wait; a signal or an error code is the fact when there is no exit code', () => {
    const j = new JournalBuilder('r1', 0);
    j.start();
    j.add({ ...ref('1:2'), type: 'attemptFailed', attempt: 1, durationMs: 5, error: envelope('RUNTIME_TIMEOUT'), awaiting: ['1:0', '1:1'] });
    j.add({
      ...ref('1:1'),
      type: 'attemptFailed',
      attempt: 1,
      durationMs: 5,
      error: envelope('RUNTIME_CRASHED'),
      trace: trace(null, 'SIGSEGV'),
      awaiting: ['1:0'],
    });
    expect(judgmentWaits(j.events).get('1:2')).toEqual({ attempt: 1, fact: 'failed with RUNTIME_TIMEOUT', waitingFor: ['1:0'] });
    expect(judgmentWaits(j.events).get('1:1')).toEqual({ attempt: 1, fact: 'killed by SIGSEGV', waitingFor: ['1:0'] });
    // 1:0 fails at once, counted with nothing to wait for: it shows no wait, and once it has ended
    // the others wait for nothing more, even before their verdicts land.
    j.add({ ...ref('1:0'), type: 'attemptFailed', attempt: 1, durationMs: 5, error: envelope('RUNTIME_CRASHED'), trace: trace(3) });
    j.add({ type: 'errorOccurred', error: envelope('RUNTIME_CRASHED'), caught: false, retrying: false, ...ref('1:0') });
    expect(judgmentWaits(j.events).size).toBe(0);
  });

  it('the tooltip names the branches it waits for and why', () => {
    const wait = judgmentWaits(waiting().events).get('1:2');
    expect(wait && waitTitle(wait, TASKS)).toBe(
      "Attempt 1 exited 3. Whether that counts as this task's failure or as cancelled depends on “Review slowly” (1:0), “Lint” (1:1): a lower branch that fails first cancels it (fail-fast), so the step's verdict waits until they end.",
    );
  });
});
