import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../core/service/api.js';
import { FakeApi } from '../testing/fake-api.js';
import { envelope, JournalBuilder } from '../testing/events.js';
import { manualScheduler } from './frame-batcher.js';
import { RunsStore } from './runs-store.js';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function journal(runId: string, startedAt: number, steps = 2): JournalBuilder {
  const j = new JournalBuilder(runId, startedAt);
  j.start();
  for (let step = 1; step <= steps; step++) {
    const taskId = `${step}:0`;
    j.add({ type: 'stepStarted', step, frontier: [{ ordinal: 0, taskId, name: `task ${step}` }] });
    j.add({ type: 'taskStarted', step, ordinal: 0, taskId, name: `task ${step}`, agent: 'a', maxAttempts: 2 });
    j.add({ type: 'attemptStarted', step, ordinal: 0, taskId, attempt: 1 });
    const error = envelope('RUNTIME_TIMEOUT');
    j.add({ type: 'attemptFailed', step, ordinal: 0, taskId, attempt: 1, durationMs: 1, error });
    j.add({ type: 'errorOccurred', error, caught: false, retrying: true, step, ordinal: 0, taskId });
    j.add({ type: 'retryScheduled', step, ordinal: 0, taskId, attempt: 1, delayMs: 5_000, strategy: 'linear', nextAttemptAt: j.ts + 5_000 });
    j.add({ type: 'attemptStarted', step, ordinal: 0, taskId, attempt: 2 }, j.ts + 5_000);
    j.add({ type: 'attemptSucceeded', step, ordinal: 0, taskId, attempt: 2, durationMs: 1 });
    j.add({ type: 'taskSucceeded', step, ordinal: 0, taskId, attempts: 2, output: 'ok' });
    j.add({ type: 'stepFinished', step });
  }
  j.add({ type: 'runCompleted', steps });
  return j;
}

function setup(options: { maxKnown?: number } = {}) {
  const api = new FakeApi();
  const scheduler = manualScheduler();
  const store = new RunsStore(api, { scheduler, ...options });
  const frame = async (): Promise<void> => {
    scheduler.frame();
    await settle();
    await settle();
  };
  return { api, scheduler, store, frame };
}

describe('RunsStore', () => {
  it('reads only the active runs at start, never the history', async () => {
    const { api, store } = setup();
    for (let i = 0; i < 5; i++) api.record(journal(`run_${i}`, 1_000 + i).events);
    const active = new JournalBuilder('run_active', 10);
    active.start();
    api.record(active.events);
    store.start();
    await settle();
    await settle();
    const snap = store.getSnapshot();
    expect(snap.phase).toBe('ready');
    expect([...snap.runs.keys()]).toEqual(['run_active']);
    expect(api.calls.filter((c) => c === 'listRuns')).toHaveLength(1);
  });

  it('forgets the oldest terminal runs beyond its bound, never an active one', async () => {
    const { api, store, frame } = setup({ maxKnown: 2 });
    const active = new JournalBuilder('run_active', 1);
    active.start();
    api.record(active.events);
    store.start();
    await settle();
    await settle();
    for (let i = 0; i < 4; i++) api.emit(journal(`run_done_${i}`, 100 + i, 1).events);
    await frame();
    expect([...store.getSnapshot().runs.keys()].sort()).toEqual(['run_active', 'run_done_3']);
  });

  it('tells change listeners which runs changed, once per frame, and counts live errors', async () => {
    const { api, store, frame } = setup();
    store.start();
    await settle();
    const seen: string[][] = [];
    store.onRunsChanged((ids) => seen.push([...ids].sort()));
    api.emit(journal('run_1', 1, 1).events);
    api.emit(journal('run_2', 2, 1).events);
    await frame();
    expect(seen).toEqual([['run_1', 'run_2']]);
    expect(store.getSnapshot().liveErrors).toBe(2);
  });

  it('applies a live run from its first event, once per frame, matching the journal', async () => {
    const { api, store, scheduler, frame } = setup();
    store.start();
    await settle();
    let notified = 0;
    store.subscribe(() => notified++);
    const j = journal('run_live', 5_000);
    for (const e of j.events) api.emit([e]);
    expect(scheduler.scheduled).toBe(1);
    await frame();
    expect(notified).toBe(1);
    expect(store.getSnapshot().runs.get('run_live')).toEqual(api.project('run_live')?.summary);
    expect(api.calls.some((c) => c.startsWith('getRun'))).toBe(false);
  });

  it('drops duplicated events and fills holes from getEvents(afterSeq)', async () => {
    const { api, store, frame } = setup();
    store.start();
    await settle();
    const events = journal('run_gap', 5_000).events;
    api.record(events);
    const [first, second, third, ...rest] = events as [HivewatchEvent, HivewatchEvent, HivewatchEvent, ...HivewatchEvent[]];
    api.stream([first, second, first]);
    await frame();
    api.stream([second, ...rest.slice(3)]);
    await frame();
    expect(api.calls).toContain('getEvents:run_gap:2');
    const summary = store.getSnapshot().runs.get('run_gap');
    expect(summary).toEqual(api.project('run_gap')?.summary);
    expect(summary?.attempts).toBe(4);
    expect(summary?.errorCount).toBe(2);
    void third;
  });

  /** A running run with two events journaled before the window opens, and its next two. */
  function runningBeforeOpen(api: FakeApi): { later: () => [HivewatchEvent, HivewatchEvent] } {
    const j = new JournalBuilder('run_old', 1_000);
    j.start();
    j.add({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 't' }] });
    j.add({ type: 'taskStarted', step: 1, ordinal: 0, taskId: '1:0', name: 't', agent: 'a', maxAttempts: 1 });
    api.record(j.events);
    return {
      later: () => [
        j.add({ type: 'attemptStarted', step: 1, ordinal: 0, taskId: '1:0', attempt: 1 }),
        j.add({ type: 'attemptSucceeded', step: 1, ordinal: 0, taskId: '1:0', attempt: 1, durationMs: 3 }),
      ],
    };
  }

  it('follows a listed run from the position the list read it at, never reading its detail', async () => {
    const { api, store, frame } = setup();
    const run = runningBeforeOpen(api);
    store.start();
    await settle();
    await settle();
    const [a, b] = run.later();
    api.emit([a, b]);
    api.stream([a]);
    await frame();
    expect(store.getSnapshot().runs.get('run_old')?.attempts).toBe(1);
    expect(store.getSnapshot().runs.get('run_old')).toEqual(api.project('run_old')?.summary);
    expect(api.calls.filter((c) => c.startsWith('getRun'))).toEqual([]);
  });

  it('applies the events journaled after the list read its position, each once', async () => {
    const { api, store, frame } = setup();
    const run = runningBeforeOpen(api);
    // listRuns reads the position as the store starts: before `a` and `b` are journaled.
    store.start();
    const [a, b] = run.later();
    api.emit([a]);
    await settle();
    await settle();
    api.emit([b]);
    api.stream([a]);
    await frame();
    expect(store.getSnapshot().runs.get('run_old')).toEqual(api.project('run_old')?.summary);
    expect(api.calls.filter((c) => c.startsWith('getRun'))).toEqual([]);
  });

  it('holds the events that come while the list is read: no detail read for a run the list gives, one for a run it does not', async () => {
    const { api, store, frame } = setup();
    const run = runningBeforeOpen(api);
    let answer = (): void => undefined;
    api.listGate = new Promise((resolve) => (answer = resolve));
    // listRuns reads as the store starts; then a run starts whose first event the stream missed.
    store.start();
    const late = journal('run_late', 2_000, 1);
    api.record(late.events.slice(0, 1));
    const [a, b] = run.later();
    api.emit([a, b]);
    api.emit(late.events.slice(1));
    await frame();
    expect(api.calls.filter((c) => c.startsWith('getRun'))).toEqual([]);
    answer();
    await settle();
    await settle();
    await frame();
    expect(store.getSnapshot().runs.get('run_old')).toEqual(api.project('run_old')?.summary);
    expect(store.getSnapshot().runs.get('run_late')).toEqual(api.project('run_late')?.summary);
    expect(api.calls.filter((c) => c.startsWith('getRun'))).toEqual(['getRun:run_late']);
  });

  it('re-reads a listed run the list gave no position for, then applies only newer events', async () => {
    const { api, store, frame } = setup();
    api.unpositioned = true;
    const run = runningBeforeOpen(api);
    store.start();
    await settle();
    await settle();
    expect(api.calls).toContain('getRun:run_old');
    const [a, b] = run.later();
    api.emit([a, b]);
    api.stream([a]);
    await frame();
    expect(store.getSnapshot().runs.get('run_old')?.attempts).toBe(1);
  });

  it('holds events of an unknown run until its snapshot arrives', async () => {
    const { api, store, frame } = setup();
    store.start();
    await settle();
    const j = journal('run_unseen', 9_000, 1);
    api.record(j.events.slice(0, 5));
    api.emit(j.events.slice(5));
    await frame();
    expect(api.calls).toContain('getRun:run_unseen');
    expect(store.getSnapshot().runs.get('run_unseen')).toEqual(api.project('run_unseen')?.summary);
  });

  it('delivers each run’s events to its listeners exactly once, in order', async () => {
    const { api, store, frame } = setup();
    store.start();
    await settle();
    const seen: number[] = [];
    store.onRunEvents('run_x', (events) => seen.push(...events.map((e) => e.seq)));
    const events = journal('run_x', 1).events;
    api.emit(events.slice(0, 6));
    api.stream(events.slice(2, 4));
    await frame();
    api.emit(events.slice(6));
    await frame();
    expect(seen).toEqual(events.map((e) => e.seq));
  });

  it('shows cancelling at once and reverts when the server refuses', async () => {
    const { api, store, frame } = setup();
    const j = new JournalBuilder('run_c', 1_000);
    j.start();
    api.record(j.events);
    store.start();
    await settle();
    await frame();
    store.markCancelling(['run_c']);
    expect(store.getSnapshot().runs.get('run_c')?.status).toBe('cancelling');
    store.revert(['run_c']);
    await settle();
    await settle();
    expect(store.getSnapshot().runs.get('run_c')?.status).toBe('running');
  });

  it('catches up quiet active runs whose last events were lost', async () => {
    let now = 0;
    const api = new FakeApi();
    const scheduler = manualScheduler();
    const store = new RunsStore(api, { scheduler, now: () => now });
    store.start();
    await settle();
    const events = journal('run_q', 1, 1).events;
    api.emit(events.slice(0, 4));
    scheduler.frame();
    await settle();
    api.record(events.slice(4)); // lost on the way: never streamed
    now = 20_000;
    store.checkQuietRuns(10_000);
    await settle();
    await settle();
    expect(store.getSnapshot().runs.get('run_q')?.status).toBe('completed');
  });

  it('re-reads the active runs after a reset of the stream and tells views to re-read theirs', async () => {
    const { api, store, frame } = setup();
    const events = journal('run_r', 1, 1).events;
    api.record(events.slice(0, 3));
    store.start();
    await settle();
    await settle();
    expect(store.getSnapshot().connection).toBe('live');
    api.record(events.slice(3)); // committed while the stream was away
    api.record(journal('run_new', 50, 1).events);
    api.reset();
    await frame();
    await settle();
    const runs = store.getSnapshot().runs;
    expect(store.getSnapshot().resets).toBe(1);
    expect(runs.get('run_r')).toEqual(api.project('run_r')?.summary);
    // A run that started and ended while away is the views' to read (they re-read on `resets`).
    expect(runs.has('run_new')).toBe(false);
  });

  it('after an outage says live only once it has re-read, and tells views to re-read once', async () => {
    let now = 1_000;
    const api = new FakeApi();
    const store = new RunsStore(api, { scheduler: manualScheduler(), now: () => now });
    store.start();
    await settle();
    await settle();
    expect(store.getSnapshot().connection).toBe('live');
    api.outage();
    expect(store.getSnapshot()).toMatchObject({ connection: 'reconnecting', downSince: 1_000 });

    // Back, but the first re-read fails: still catching up, the outage's start kept.
    let answer: ((ok: boolean) => void) | null = null;
    const listRuns = api.listRuns.bind(api);
    api.listRuns = (input) => new Promise((resolve, reject) => (answer = (ok) => (ok ? resolve(listRuns(input)) : reject(new Error('refused')))));
    now = 5_000;
    api.restarted();
    expect(store.getSnapshot()).toMatchObject({ connection: 'catching-up', downSince: 1_000, resets: 0 });
    answer!(true);
    await settle();
    await settle();
    expect(store.getSnapshot()).toMatchObject({ connection: 'live', downSince: null, resets: 1 });
  });

  it('keeps catching up while its re-read fails, and the outage goes on from when it began', async () => {
    const api = new FakeApi();
    let now = 1_000;
    const store = new RunsStore(api, { scheduler: manualScheduler(), now: () => now });
    store.start();
    await settle();
    api.outage();
    api.listRuns = () => Promise.reject(new Error('refused'));
    api.restarted();
    await settle();
    expect(store.getSnapshot().connection).toBe('catching-up');
    now = 9_000;
    api.outage();
    expect(store.getSnapshot()).toMatchObject({ connection: 'reconnecting', downSince: 1_000, resets: 0 });
    store.stop();
  });

  it('tells its alert listeners what the stream says of the alert deliveries, and once back from an outage', async () => {
    const api = new FakeApi();
    const store = new RunsStore(api, { scheduler: manualScheduler() });
    const told: boolean[] = [];
    const stopListening = store.onAlertDeliveries((change) => told.push(change.desktop));
    store.start();
    await settle();
    expect(told).toEqual([]);
    api.alertDeliveriesChanged(false);
    api.alertDeliveriesChanged(true);
    expect(told).toEqual([false, true]);
    // What the stream said while it was down is lost: everything is read again once back.
    api.outage();
    api.restarted();
    expect(told).toEqual([false, true, true]);
    stopListening();
    api.alertDeliveriesChanged(true);
    expect(told).toHaveLength(3);
    store.stop();
  });

  it('reports a failed first load as an error state', async () => {
    const api = new FakeApi();
    api.listRuns = () => Promise.reject(new Error('connection refused'));
    const store = new RunsStore(api, { scheduler: manualScheduler() });
    store.start();
    await settle();
    expect(store.getSnapshot()).toMatchObject({ phase: 'error', error: 'connection refused' });
  });
});
