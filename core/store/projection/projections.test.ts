import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../index.js';
import { EMPTY_CORRELATION } from '../../base/errors/envelope.js';
import { envelope, JournalBuilder } from '../testing/journal-builder.js';

let store: SqliteStore;
afterEach(() => store?.close());

function completedRun(): JournalBuilder {
  return new JournalBuilder('run-ok', { flow: 'examples/retry.prose', flowName: 'retry' })
    .start()
    .runStep([
      { name: 'plan', attempts: ['ok'] },
      {
        name: 'flaky',
        attempts: [
          { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 100ms' },
          { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake', message: 'rate limited: 429' },
          'ok',
        ],
        delayMs: 5_000,
      },
    ])
    .runStep([{ name: 'summarize', attempts: ['ok'] }])
    .complete();
}

describe('projections from a journal', () => {
  it('derives run, steps, tasks, attempts with delays, errors and checkpoints', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = completedRun();
    store.appendEvents(b.events);
    const detail = store.getRun('run-ok');
    expect(detail).not.toBeNull();
    const { run, steps, tasks, attempts, checkpoints } = detail!;
    expect(run).toMatchObject({
      id: 'run-ok',
      flow: 'examples/retry.prose',
      flowName: 'retry',
      status: 'completed',
      steps: 2,
      currentStep: 2,
      lastCheckpointStep: 2,
      taskCount: 3,
      attemptCount: 5,
      errorCount: 2,
      lastErrorCode: 'RUNTIME_RATE_LIMIT',
      nextAttemptAt: null,
      lastSeq: b.events.length,
      maxSteps: 100,
      clock: 'real',
    });
    expect(run.endedAt! - run.startedAt).toBe(run.durationMs);
    expect(steps.map((s) => [s.step, s.status, s.taskCount, s.writes, s.checkpointed])).toEqual([
      [1, 'finished', 2, 2, true],
      [2, 'finished', 1, 1, true],
    ]);
    expect(tasks.map((t) => [t.taskId, t.name, t.status, t.attempts, t.maxAttempts])).toEqual([
      ['1:0', 'plan', 'succeeded', 1, 1],
      ['1:1', 'flaky', 'succeeded', 3, 3],
      ['2:0', 'summarize', 'succeeded', 1, 1],
    ]);
    const flaky = attempts.filter((a) => a.taskId === '1:1');
    expect(flaky.map((a) => [a.attempt, a.status, a.errorCode, a.delayMs, a.strategy])).toEqual([
      [1, 'failed', 'RUNTIME_TIMEOUT', 5_000, 'linear'],
      [2, 'failed', 'RUNTIME_RATE_LIMIT', 5_000, 'linear'],
      [3, 'succeeded', null, null, null],
    ]);
    expect(flaky[0]!.error?.message).toContain('timeout of 100ms');
    expect(flaky[1]!.startedAt - flaky[0]!.endedAt!).toBeGreaterThanOrEqual(5_000);
    expect(checkpoints.map((c) => [c.step, c.channels])).toEqual([
      [1, { r0: 'output of 1:0', r1: 'output of 1:1' }],
      [2, { r0: 'output of 2:0' }],
    ]);
    const errors = store.listErrors({ runId: 'run-ok' }).errors;
    expect(errors.map((e) => [e.code, e.retrying, e.caught, e.taskId, e.attempt, e.step, e.flow])).toEqual([
      ['RUNTIME_RATE_LIMIT', true, false, '1:1', 2, 1, 'examples/retry.prose'],
      ['RUNTIME_TIMEOUT', true, false, '1:1', 1, 1, 'examples/retry.prose'],
    ]);
    expect(errors[0]!.correlation).toEqual({ project: null, flow: 'examples/retry.prose', run: 'run-ok', step: 1, task: '1:1', attempt: 2 });
    expect(errors[0]!.flowName).toBe('retry');
  });

  it('round-trips events exactly and pages them by seq', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = completedRun();
    store.appendEvents(b.events);
    expect(store.getEvents('run-ok')).toEqual(b.events);
    expect(store.getEvents('run-ok', 5, 3)).toEqual(b.events.slice(5, 8));
    expect(store.getEvents('nope')).toEqual([]);
  });

  it('shows the retrying badge while a task is in backoff, and clears it after', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = new JournalBuilder('run-backoff').start();
    b.push({
      type: 'stepStarted',
      step: 1,
      frontier: [
        { ordinal: 0, taskId: '1:0', name: 'api' },
        { ordinal: 1, taskId: '1:1', name: 'other' },
      ],
    });
    b.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 'api', agent: 'fake', maxAttempts: 3 });
    b.push({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 1 });
    b.push({
      type: 'attemptFailed',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempt: 1,
      durationMs: 5,
      error: envelope({ code: 'RUNTIME_RATE_LIMIT' }, EMPTY_CORRELATION, 0),
    });
    store.appendEvents(b.events.splice(0));
    // The retry is scheduled in a later batch: the failed attempt is read back from the database.
    b.push({
      type: 'retryScheduled',
      step: 1,
      ordinal: 0,
      taskId: '1:0',
      attempt: 1,
      delayMs: 30_000,
      strategy: 'rate_limit_exponential',
      nextAttemptAt: 1_000_000,
    });
    store.appendEvents(b.events.splice(0));
    let run = store.getRun('run-backoff')!;
    expect(run.run.nextAttemptAt).toBe(1_000_000);
    expect(run.tasks.find((t) => t.taskId === '1:0')?.status).toBe('backoff');
    expect(run.tasks.find((t) => t.taskId === '1:1')?.status).toBe('pending');
    expect(run.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', delayMs: 30_000, nextAttemptAt: 1_000_000 });
    b.push({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 2 });
    store.appendEvents(b.events.splice(0));
    run = store.getRun('run-backoff')!;
    expect(run.run.nextAttemptAt).toBeNull();
    expect(run.tasks.find((t) => t.taskId === '1:0')?.status).toBe('running');
  });

  it('projects a failed run: the step stays uncommitted and the run carries the error', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = new JournalBuilder('run-fail')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .runStep([
        { attempts: [{ code: 'AGENT_NO_CHANGES', origin: 'agent:coder' }], caught: true },
        {
          attempts: [
            { code: 'RUNTIME_CRASHED', origin: 'runtime:command' },
            { code: 'RUNTIME_CRASHED', origin: 'runtime:command' },
          ],
        },
      ])
      .fail();
    store.appendEvents(b.events);
    const { run, steps, tasks } = store.getRun('run-fail')!;
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('RUNTIME_CRASHED');
    expect(run.steps).toBe(1);
    expect(run.errorCount).toBe(3);
    expect(steps.map((s) => s.status)).toEqual(['finished', 'aborted']);
    expect(tasks.map((t) => t.status)).toEqual(['succeeded', 'failed', 'failed']);
  });

  it('projects a cancel during a step: every frontier task cancelled, no commit', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = new JournalBuilder('run-cancel')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .cancelDuringStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake' }] }, { attempts: ['ok'] }, { attempts: ['ok'] }], 'cmd-9', 'stop');
    store.appendEvents(b.events);
    const { run, steps, tasks, attempts } = store.getRun('run-cancel')!;
    expect(run).toMatchObject({ status: 'cancelled', cancelCommandId: 'cmd-9', cancelReason: 'stop', epoch: 1, nextAttemptAt: null });
    expect(steps.map((s) => s.status)).toEqual(['finished', 'cancelled']);
    expect(tasks.filter((t) => t.step === 2).map((t) => t.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(attempts.filter((a) => a.step === 2).map((a) => [a.status, a.delayMs])).toEqual([['failed', 30_000]]);
  });

  it('rejects gaps and duplicates atomically', () => {
    store = openSqliteStore({ path: ':memory:' });
    const b = completedRun();
    store.appendEvents(b.events.slice(0, 4));
    expect(() => store.appendEvents([b.events[5]!])).toThrow(/expects 5/);
    expect(() => store.appendEvents([b.events[4]!, b.events[3]!])).toThrow(/expects 6/);
    expect(store.getEvents('run-ok')).toHaveLength(4);
    store.appendEvents(b.events.slice(4));
    expect(store.getRun('run-ok')!.run.status).toBe('completed');
    expect(store.replayRun('run-ok').ok).toBe(true);
  });
});
