import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { envelope, JournalBuilder } from './testing/journal-builder.js';
import { LIMIT_REPORTED, usageLimitWait } from './testing/usage-limit-journal.js';

/**
 * The `waiting-limit` state through the store contract on every engine: a
 * retryScheduled that carries `usageLimit` sets the task's and the run's `waitingUntil`; the
 * next attempt, a skipped backoff or a cancel clears them; the list filters and counts by it,
 * alone and beside real statuses; replay rebuilds the same rows.
 */

const { engines, start, stop } = testEngines('waiting_limit');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const RESET = Date.UTC(2026, 10, 26, 14, 5, 0);
const REPORTED = LIMIT_REPORTED;

function waiting(runId: string, options: { flow?: string; usageLimit?: boolean } = {}): JournalBuilder {
  const flowName = options.flow === undefined ? 'a' : 'b';
  return usageLimitWait(runId, { start: T0, resetAt: RESET, flowName, ...options });
}

describe.each(engines)('usage-limit waits in the store on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const fresh = async (): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    return store;
  };

  it('a usage-limit backoff sets waitingUntil on the task and the run; the next attempt clears it', async () => {
    const store = await fresh();
    const run = waiting('run-wait');
    await store.appendEvents(run.events);
    const detail = (await store.getRun('run-wait'))!;
    expect(detail.run).toMatchObject({ status: 'running', nextAttemptAt: RESET, waitingUntil: RESET });
    expect(detail.tasks.map((t) => [t.status, t.waitingUntil])).toEqual([['backoff', RESET]]);
    const journaled = (await store.getEvents('run-wait')).find((e) => e.type === 'retryScheduled');
    expect(journaled).toMatchObject({ usageLimit: { reported: REPORTED, resetAt: RESET } });

    const next = run.wait(RESET - run.ts);
    await store.appendEvents([next.push({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 2 })]);
    const after = (await store.getRun('run-wait'))!;
    expect([after.run.waitingUntil, after.tasks[0]?.waitingUntil]).toEqual([null, null]);
    expect(await store.replayRun('run-wait')).toMatchObject({ ok: true, diffs: [] });
  });

  it('a plain backoff is not a usage-limit wait; a cancel during the wait ends it', async () => {
    const store = await fresh();
    await store.appendEvents(waiting('run-plain', { usageLimit: false }).events);
    expect((await store.getRunRow('run-plain'))?.waitingUntil).toBeNull();

    const cancelled = waiting('run-cancel');
    const ref = { step: 1, ordinal: 0, taskId: '1:0' };
    cancelled.push({ type: 'cancelRequested', commandId: 'cmd-1', reason: 'operator', alreadyCancelling: false });
    cancelled.push({ type: 'runCancelling', epoch: 1, commandId: 'cmd-1' });
    const stop = envelope(
      { code: 'SYSTEM_CANCELLED' },
      { project: null, flow: 'flows/a.prose', run: 'run-cancel', step: 1, task: '1:0', attempt: null },
      cancelled.ts,
    );
    cancelled.push({ type: 'taskFailed', ...ref, attempts: 1, error: stop, cancelled: true });
    cancelled.push({ type: 'runCancelled', cause: { commandId: 'cmd-1', reason: 'operator' }, correlation: { run: 'run-cancel', step: 1, epoch: 1 } });
    await store.appendEvents(cancelled.events);
    expect(await store.getRunRow('run-cancel')).toMatchObject({ status: 'cancelled', waitingUntil: null });
    expect(await store.replayRun('run-cancel')).toMatchObject({ ok: true, diffs: [] });
  });

  it('filters and counts waiting-limit alone and beside real statuses', async () => {
    const store = await fresh();
    const done = new JournalBuilder('run-done', { flow: 'flows/a.prose', flowName: 'a', start: T0 - 60_000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents([
      ...waiting('run-a').events,
      ...waiting('run-b', { flow: 'flows/b.prose' }).events,
      ...waiting('run-plain', { usageLimit: false }).events,
      ...done.events,
    ]);
    const ids = async (status: Parameters<HivewatchStore['listRuns']>[0]): Promise<string[]> =>
      (await store.listRuns({ ...status, sort: 'flow' })).runs.map((r) => r.id).sort();

    expect(await ids({ status: 'waiting-limit' })).toEqual(['run-a', 'run-b']);
    expect(await ids({ status: ['waiting-limit'], flow: 'flows/b.prose' })).toEqual(['run-b']);
    expect(await ids({ status: ['completed', 'waiting-limit'] })).toEqual(['run-a', 'run-b', 'run-done']);
    expect(await ids({ status: ['running', 'waiting-limit'] })).toEqual(['run-a', 'run-b', 'run-plain']);

    const all = await store.countRuns();
    expect(all.byStatus).toEqual({ running: 3, completed: 1, 'waiting-limit': 2 });
    expect(all.total).toBe(4);
    const onlyWaiting = await store.countRuns({ status: ['waiting-limit'] });
    expect(onlyWaiting.total).toBe(2);
    expect(onlyWaiting.byFlow.map((f) => [f.flow, f.count]).sort()).toEqual([
      ['flows/a.prose', 1],
      ['flows/b.prose', 1],
    ]);
    const widened = await store.countRuns({ status: ['completed', 'waiting-limit'], flow: 'flows/a.prose' });
    expect([widened.total, widened.byStatus['waiting-limit']]).toEqual([2, 1]);
    // Running already holds the waiting runs: they are not counted twice.
    expect((await store.countRuns({ status: ['running', 'waiting-limit'] })).total).toBe(3);
    await expect(store.listRuns({ status: ['waiting' as 'running'] })).rejects.toThrow(/unknown run status "waiting"/);
  });
});
