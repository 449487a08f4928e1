import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../base/approval-wait.js';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Waiting on a person through the store contract on every engine (migration 25): a journaled
 * prompt sets the run's `approvalSince` and label, its end clears them and adds the time waited
 * to `approvalWaitMs`; the run list filters and counts `waiting-approval` alone and beside real
 * statuses; a run that ends waits no more; flow health sums each flow's time waited; replay
 * rebuilds the same rows.
 */

const { engines, start, stop } = testEngines('approval_wait');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);
const MINUTE = 60_000;

/** A run with one task whose attempt is under way, then a prompt opened for `label`. */
function waiting(runId: string, flow = 'flows/a.prose', label = 'Bash(rm -rf build)'): JournalBuilder {
  const run = new JournalBuilder(runId, { flow, flowName: flow.slice(6, -6), start: T0 }).start();
  run.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'agent' }] });
  run.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 'agent', agent: 'claude-code', maxAttempts: 1 });
  run.push({
    type: 'externalEvent',
    name: APPROVAL_REQUESTED,
    known: true,
    taskId: '1:0',
    attributes: { tool: 'Bash', label, since: T0 + 1000, via: 'claude_code.tool.blocked_on_user' },
  });
  return run;
}

const ended = (run: JournalBuilder, waitedMs: number, decision: string | null = 'reject'): void => {
  run.wait(waitedMs);
  run.push({
    type: 'externalEvent',
    name: APPROVAL_ENDED,
    known: true,
    taskId: '1:0',
    attributes: {
      tool: 'Bash',
      label: 'Bash(rm -rf build)',
      since: T0 + 1000,
      waitedMs,
      decision,
      source: 'user_reject',
      byPerson: true,
      via: 'claude_code.tool_decision',
    },
  });
};

describe.each(engines)('waiting for approval in the store on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  const fresh = async (): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    return store;
  };

  it('a prompt sets the run waiting for approval; its end clears it and counts the time waited', async () => {
    const store = await fresh();
    const run = waiting('run-wait');
    await store.appendEvents(run.events);
    expect(await store.getRunRow('run-wait')).toMatchObject({
      status: 'running',
      approvalSince: T0 + 1000,
      approvalLabel: 'Bash(rm -rf build)',
      approvalWaitMs: 0,
    });

    const before = run.events.length;
    ended(run, 12 * MINUTE);
    await store.appendEvents(run.events.slice(before));
    expect(await store.getRunRow('run-wait')).toMatchObject({ approvalSince: null, approvalLabel: null, approvalWaitMs: 12 * MINUTE });
    expect(await store.replayRun('run-wait')).toMatchObject({ ok: true, diffs: [] });
  });

  it('filters and counts waiting-approval alone and beside real statuses', async () => {
    const store = await fresh();
    const done = new JournalBuilder('run-done', { flow: 'flows/a.prose', flowName: 'a', start: T0 - MINUTE })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    const answered = waiting('run-answered');
    ended(answered, MINUTE);
    await store.appendEvents([...waiting('run-a').events, ...waiting('run-b', 'flows/b.prose').events, ...answered.events, ...done.events]);
    const ids = async (status: string[]): Promise<string[]> => (await store.listRuns({ status: status as never })).runs.map((r) => r.id).sort();
    expect(await ids(['waiting-approval'])).toEqual(['run-a', 'run-b']);
    expect(await ids(['completed', 'waiting-approval'])).toEqual(['run-a', 'run-b', 'run-done']);
    expect(await ids(['waiting-limit', 'waiting-approval'])).toEqual(['run-a', 'run-b']);
    const counts = await store.countRuns({ status: ['completed', 'waiting-approval'] });
    expect(counts.byStatus).toMatchObject({ 'waiting-approval': 2, running: 3, completed: 1 });
    expect(counts.total).toBe(3);
    expect((await store.countRuns({ flow: 'flows/b.prose' })).byStatus['waiting-approval']).toBe(1);
  });

  it('a run that ends waits no more; flow health sums the time waited of the runs that ended, and counts those waiting now', async () => {
    const store = await fresh();
    const a = waiting('run-a');
    ended(a, 5 * MINUTE);
    a.push({
      type: 'externalEvent',
      name: APPROVAL_REQUESTED,
      known: true,
      taskId: '1:0',
      attributes: { tool: 'Write', label: 'Write', since: a.ts, via: 'claude_code.hook_execution_start' },
    });
    ended(a, 3 * MINUTE, null);
    a.push({ type: 'taskSucceeded', step: 1, ordinal: 0, taskId: '1:0', attempts: 0, output: '' });
    a.complete();
    const pendingAtEnd = waiting('run-cut');
    pendingAtEnd.complete();
    await store.appendEvents([...a.events, ...pendingAtEnd.events, ...waiting('run-now').events]);
    expect(await store.getRunRow('run-a')).toMatchObject({ status: 'completed', approvalSince: null, approvalWaitMs: 8 * MINUTE });
    expect(await store.getRunRow('run-cut')).toMatchObject({ status: 'completed', approvalSince: null, approvalLabel: null, approvalWaitMs: 0 });
    const health = await store.usage({ kind: 'flowHealth', query: { since: T0 - MINUTE } });
    expect(health.find((h) => h.flow === 'flows/a.prose')?.approval).toEqual({ waitedMs: 8 * MINUTE, runs: 1, waitingNow: 1 });
    const before = await store.usage({ kind: 'flowHealth', query: { until: T0 } });
    expect(before.find((h) => h.flow === 'flows/a.prose')?.approval).toEqual({ waitedMs: 0, runs: 0, waitingNow: 1 });
    for (const id of ['run-a', 'run-cut', 'run-now']) expect(await store.replayRun(id)).toMatchObject({ ok: true, diffs: [] });
  });
});
