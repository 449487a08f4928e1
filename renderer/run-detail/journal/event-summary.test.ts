import { describe, expect, it } from 'vitest';
import { envelope, JournalBuilder } from '../../testing/events.js';
import { chipTones, describeEvent, eventJson, eventTone, toneOf, typeCounts } from './event-summary.js';

describe('describeEvent', () => {
  const j = new JournalBuilder('run_1', 0);
  const started = j.start('examples/02-rate-limited-api.prose');
  const retry = j.add({
    type: 'retryScheduled',
    step: 1,
    ordinal: 0,
    taskId: '1:0',
    attempt: 1,
    delayMs: 30_000,
    strategy: 'rate_limit_exponential',
    nextAttemptAt: 30_000,
  });
  const failed = j.add({
    type: 'attemptFailed',
    step: 1,
    ordinal: 0,
    taskId: '1:0',
    attempt: 2,
    durationMs: 12,
    error: envelope('RUNTIME_RATE_LIMIT', { message: '<b>429</b>' }),
  });
  const cancelled = j.add({
    type: 'runCancelled',
    cause: { commandId: 'c', reason: 'cancelled by the operator' },
    correlation: { run: 'run_1', step: 2, epoch: 1 },
  });

  it('reads as a sentence about the event', () => {
    expect(describeEvent(started)).toBe('02-rate-limited-api started, virtual clock, max 100 steps');
    expect(describeEvent(retry)).toBe('task 1:0 retries in 30s (rate_limit_exponential)');
    expect(describeEvent(cancelled)).toBe('cancelled during step 2: cancelled by the operator');
    const untilReset = j.add({
      type: 'retryScheduled',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempt: 1,
      delayMs: 3 * 3_600_000,
      strategy: 'runtime_reset_time',
      reason: 'the usage limit resets at 15:00',
      nextAttemptAt: 3 * 3_600_000,
    });
    expect(describeEvent(untilReset)).toBe('task 1:0 retries in 3h (runtime_reset_time: the usage limit resets at 15:00)');
    const reported = j.add({ ...untilReset, usageLimit: { reported: '5-hour limit reached ∙ resets 3pm', resetAt: 3 * 3_600_000 } } as Parameters<
      typeof j.add
    >[0]);
    expect(describeEvent(reported)).toBe(
      'task 1:0 retries in 3h (runtime_reset_time: the usage limit resets at 15:00) · usage limit, reported: "5-hour limit reached ∙ resets 3pm"',
    );
  });

  it('says what a failure’s verdict waits for, and a verdict of cancelled as a cancellation', () => {
    const waiting = j.add({
      type: 'attemptFailed',
      step: 1,
      ordinal: 1,
      taskId: '1:1',
      attempt: 1,
      durationMs: 5,
      error: envelope('RUNTIME_CRASHED', { message: 'exit 3' }),
      awaiting: ['1:0'],
    });
    expect(describeEvent(waiting)).toBe('task 1:1 attempt 1 failed: RUNTIME_CRASHED: exit 3 · whether it counts waits for 1:0 to end');
    const judged = j.add({ type: 'attemptJudgedCancelled', step: 1, ordinal: 1, taskId: '1:1', attempt: 1, by: 'sibling' });
    expect(describeEvent(judged)).toBe('task 1:1 attempt 1: counts as cancelled, a lower sibling branch failed first (its failure is not an error of its own)');
    expect(eventTone(judged)).toBe('cancel');
  });

  it('keeps markup in messages as literal text', () => {
    expect(describeEvent(failed)).toBe('task 1:0 attempt 2 failed: RUNTIME_RATE_LIMIT: <b>429</b>');
  });

  it('never draws a cancellation as a failure', () => {
    const k = new JournalBuilder('run_2', 0);
    k.start('examples/01-happy-path.prose');
    const cancelledTask = k.add({ type: 'taskFailed', step: 1, ordinal: 0, taskId: '1:0', attempts: 1, cancelled: true, error: envelope('SYSTEM_CANCELLED') });
    const failedTask = k.add({ type: 'taskFailed', step: 1, ordinal: 1, taskId: '1:1', attempts: 3, cancelled: false, error: envelope('RUNTIME_TIMEOUT') });
    expect(eventTone(cancelledTask)).toBe('cancel');
    expect(eventTone(failedTask)).toBe('fail');
    expect(chipTones([cancelledTask]).get('taskFailed')).toBe('cancel');
    expect(chipTones([cancelledTask, failedTask]).get('taskFailed')).toBe('fail');
    expect(chipTones([failedTask, cancelledTask]).get('taskFailed')).toBe('fail');
  });

  it('groups types by tone and counts them', () => {
    expect(toneOf('retryScheduled')).toBe('retry');
    expect(toneOf('attemptFailed')).toBe('fail');
    expect(typeCounts([started, retry, retry, failed])).toEqual([
      ['runStarted', 1],
      ['retryScheduled', 2],
      ['attemptFailed', 1],
    ]);
  });

  it('shows what happened to the agent processes: the group, one that escaped it, what recovery did', () => {
    const processStarted = j.add({ type: 'attemptProcess', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, pid: 4242, startTime: '777', hostname: 'box' });
    const escaped = j.add({
      type: 'attemptProcessEscaped',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempt: 1,
      pid: 4242,
      message: 'a process outside the group kept its output open',
    });
    const interrupted = j.add({
      type: 'runInterrupted',
      error: envelope('SYSTEM_RUN_INTERRUPTED', { message: 'host gone' }),
      processes: [{ taskId: '1:0', attempt: 2, pgid: 4300, outcome: 'notOurs', message: 'process group 4300 now belongs to another process; left alone' }],
    });
    expect(describeEvent(processStarted)).toBe('task 1:0 attempt 1: process group 4242 on box');
    expect(describeEvent(escaped)).toBe('task 1:0 attempt 1: ⚠ a process outside the group kept its output open');
    expect(toneOf('attemptProcessEscaped')).toBe('fail');
    expect(describeEvent(interrupted)).toBe('interrupted: host gone; process group 4300 now belongs to another process; left alone');
  });

  it('pretty-prints JSON with its line count', () => {
    const { text, lines } = eventJson(retry);
    expect(JSON.parse(text)).toEqual(retry);
    expect(lines).toBe(text.split('\n').length);
  });
});
