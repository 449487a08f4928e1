import { describe, expect, it } from 'vitest';
import { FakeApi } from '../testing/fake-api.js';
import { envelope, JournalBuilder } from '../testing/events.js';
import { manualScheduler } from '../live/frame-batcher.js';
import { RunsStore } from '../live/runs-store.js';
import { DEFAULT_SORT, EMPTY_FILTERS, type RunsQuery } from './runs-query.js';
import { RunsView } from './runs-view.js';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

/** A run that started at `at` and, unless `open`, failed with `code`. */
function history(id: string, at: number, end: 'failed' | 'completed' | 'open' = 'completed', code = 'RUNTIME_TIMEOUT'): JournalBuilder {
  const j = new JournalBuilder(id, at);
  j.start();
  if (end === 'failed') {
    const error = envelope(code, { message: `${code} in ${id}` });
    j.add({ type: 'errorOccurred', error, caught: false, retrying: false, step: 1, ordinal: 0, taskId: '1:0' });
    j.add({ type: 'runFailed', error });
  } else if (end === 'completed') j.add({ type: 'runCompleted', steps: 0 });
  return j;
}

function setup(query: Partial<RunsQuery> = {}, pageSize = 3) {
  const api = new FakeApi();
  const scheduler = manualScheduler();
  const store = new RunsStore(api, { scheduler });
  const timers: (() => void)[] = [];
  const make = (): RunsView =>
    new RunsView(api, store, { ...EMPTY_FILTERS, sort: DEFAULT_SORT, ...query }, { pageSize, now: () => 1_000_000, setTimer: (fn) => timers.push(fn) });
  const frame = async (): Promise<void> => {
    scheduler.frame();
    await settle();
  };
  return { api, store, make, frame, timers };
}

/** Holds listRuns' answers (each read when asked, as a slow server has) until the returned function is called. */
function holdListRuns(api: FakeApi): () => void {
  let answer = (): void => {};
  api.listGate = new Promise((resolve) => {
    answer = resolve;
  });
  return () => answer();
}

const ids = (view: RunsView): string[] => view.getState().rows.map((r) => r.id);

describe('RunsView', () => {
  it('asks the server for one page and the counts, then the next page on demand, without duplicates', async () => {
    const { api, store, make } = setup();
    for (let i = 1; i <= 7; i++) api.record(history(`run_${i}`, i * 1_000).events);
    store.start();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_7', 'run_6', 'run_5']);
    expect(view.getState()).toMatchObject({ phase: 'ready', hasMore: true, counts: { total: 7, byStatus: { completed: 7 } } });
    await Promise.all([view.more(), view.more()]);
    expect(ids(view)).toEqual(['run_7', 'run_6', 'run_5', 'run_4', 'run_3', 'run_2']);
    await view.more();
    expect(view.getState().hasMore).toBe(false);
    expect(ids(view)).toHaveLength(7);
    expect(api.calls.filter((c) => c === 'listRuns')).toHaveLength(1 /* store: active runs */ + 3);
  });

  it('finds an old failed run by status and code on the server, whatever the history size', async () => {
    const { api, store, make } = setup({ status: ['failed'], code: 'AGENT_CRASHED' });
    api.record(history('run_old', 1, 'failed', 'AGENT_CRASHED').events);
    for (let i = 1; i <= 20; i++) api.record(history(`run_${i}`, 1_000 + i, i % 2 === 0 ? 'failed' : 'completed').events);
    store.start();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_old']);
    expect(view.getState().counts?.total).toBe(1);
  });

  it('puts a new matching run at the top when newest first, and re-reads the counts once per throttle window', async () => {
    const { api, store, make, frame, timers } = setup({ status: ['running', 'failed'] });
    for (let i = 1; i <= 5; i++) api.record(history(`run_${i}`, i * 1_000, 'failed').events);
    store.start();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_5', 'run_4', 'run_3']);
    const countsBefore = api.calls.filter((c) => c === 'countRuns').length;
    const fresh = history('run_new', 9_000, 'open');
    api.emit(fresh.events);
    await frame();
    expect(ids(view)).toEqual(['run_new', 'run_5', 'run_4', 'run_3']);
    expect(view.getState().rows[0]?.status).toBe('running');
    // A second new run inside the throttle window: counted when the window ends.
    api.emit(history('run_newer', 9_500, 'open').events);
    await frame();
    expect(api.calls.filter((c) => c === 'countRuns').length).toBe(countsBefore + 1);
    timers.shift()?.();
    await settle();
    expect(api.calls.filter((c) => c === 'countRuns').length).toBe(countsBefore + 2);
    expect(view.getState().counts?.byStatus.running).toBe(2);
  });

  it('re-reads the counts when a running run starts waiting for a usage limit (its status stays running)', async () => {
    const { api, store, make, frame, timers } = setup();
    const j = history('run_limited', 1_000, 'open');
    api.record(j.events);
    store.start();
    await settle();
    const view = make();
    view.start();
    await settle();
    expect(view.getState().counts?.byStatus).toEqual({ running: 1 });
    const ref = { step: 1, ordinal: 0, taskId: '1:0' };
    const reset = 7_200_000;
    api.emit([
      j.add({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'Code' }] }),
      j.add({ type: 'taskStarted', ...ref, name: 'Code', agent: 'coder', maxAttempts: 3 }),
      j.add({ type: 'attemptStarted', ...ref, attempt: 1 }),
      j.add({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: 5, error: envelope('RUNTIME_RATE_LIMIT', { message: 'usage limit' }) }),
    ]);
    await frame();
    timers.splice(0).forEach((fire) => fire());
    await settle();
    const before = api.calls.filter((c) => c === 'countRuns').length;
    const usageLimit = { reported: 'session limit · resets 3pm', resetAt: reset };
    api.emit([j.add({ type: 'retryScheduled', ...ref, attempt: 1, delayMs: reset - 2_000, strategy: 'runtime_reset_time', nextAttemptAt: reset, usageLimit })]);
    await frame();
    expect(api.calls.filter((c) => c === 'countRuns').length).toBe(before + 1);
    expect(view.getState().counts?.byStatus).toEqual({ running: 1, 'waiting-limit': 1 });
  });

  it('updates a shown run in place, drops it when it leaves the filter, and leaves a run sorted past the loaded rows to its page', async () => {
    const { api, store, make, frame } = setup({ status: ['running'] });
    const runs = [1, 2, 3, 4].map((i) => history(`run_${i}`, i * 1_000, 'open'));
    for (const j of runs) api.record(j.events);
    store.start();
    await settle();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_4', 'run_3', 'run_2']);
    const r3 = runs[2] as JournalBuilder;
    api.emit([r3.add({ type: 'runCompleted', steps: 0 })]);
    await frame();
    expect(ids(view)).toEqual(['run_4', 'run_2']);
    // run_0 starts "in the past" (older than the last loaded row while more pages exist).
    api.emit(history('run_0', 500, 'open').events);
    await frame();
    expect(ids(view)).toEqual(['run_4', 'run_2']);
    await view.more();
    expect(ids(view)).toEqual(['run_4', 'run_2', 'run_1', 'run_0']);
  });

  it('shows a run that came into the filter while the first page was being read (the page was read before the change)', async () => {
    const { api, store, make, frame } = setup({ status: ['failed'] });
    const j = history('run_late', 1_000, 'open');
    api.record(j.events);
    store.start();
    await settle();
    const answer = holdListRuns(api);
    const view = make();
    view.start();
    await settle();
    expect(view.getState().phase).toBe('loading');
    const error = envelope('RUNTIME_TIMEOUT', { message: 'timed out' });
    api.emit([j.add({ type: 'runFailed', error })]);
    await frame();
    answer();
    await settle();
    expect(view.getState().phase).toBe('ready');
    expect(ids(view)).toEqual(['run_late']);
  });

  it('places a run that came into the filter while the next page was being read, where it sorts in that page', async () => {
    const { api, store, make, frame } = setup({ status: ['failed'] });
    for (let i = 1; i <= 6; i++) api.record(history(`run_${i}`, i * 1_000, 'failed').events);
    const late = history('run_x', 2_500, 'open');
    api.record(late.events);
    store.start();
    await settle();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_6', 'run_5', 'run_4']);
    const answer = holdListRuns(api);
    const more = view.more();
    await settle();
    api.emit([late.add({ type: 'runFailed', error: envelope('RUNTIME_TIMEOUT', { message: 'timed out' }) })]);
    await frame();
    answer();
    await more;
    expect(ids(view)).toEqual(['run_6', 'run_5', 'run_4', 'run_3', 'run_x', 'run_2', 'run_1']);
  });

  it('loads the next page by itself when most shown rows leave the filter (a bulk cancel of running runs)', async () => {
    const { api, store, make, frame } = setup({ status: ['running'] }, 4);
    const runs = [1, 2, 3, 4, 5, 6].map((i) => history(`run_${i}`, i * 1_000, 'open'));
    for (const j of runs) api.record(j.events);
    store.start();
    await settle();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_6', 'run_5', 'run_4', 'run_3']);
    // Three of the four shown runs end: the one left is under half a page, so the next page comes.
    api.emit(runs.slice(3).map((j) => j.add({ type: 'runCompleted', steps: 0 })));
    await frame();
    await settle();
    expect(ids(view)).toEqual(['run_3', 'run_2', 'run_1']);
  });

  it('moves a run whose sort value changed (sorted by status)', async () => {
    const { api, store, make, frame } = setup({ sort: { key: 'status', desc: false } }, 10);
    const open = history('run_a', 2_000, 'open');
    api.record(open.events);
    api.record(history('run_b', 1_000, 'failed').events);
    store.start();
    await settle();
    const view = make();
    view.start();
    await settle();
    expect(ids(view)).toEqual(['run_a', 'run_b']);
    api.emit([open.add({ type: 'runCompleted', steps: 0 })]);
    await frame();
    expect(ids(view)).toEqual(['run_b', 'run_a']);
  });

  it('shows a failed read as an error state and recovers on reload', async () => {
    const { api, store, make } = setup();
    store.start();
    await settle();
    const listRuns = api.listRuns.bind(api);
    api.listRuns = () => Promise.reject(new Error('connection refused'));
    const view = make();
    view.start();
    await settle();
    expect(view.getState()).toMatchObject({ phase: 'error', error: 'connection refused' });
    api.listRuns = listRuns;
    await view.reload();
    expect(view.getState().phase).toBe('ready');
  });
});
