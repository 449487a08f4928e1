import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { createDurableSink, openStore, type HivewatchStore } from '../index.js';
import { JournalBuilder } from '../testing/journal-builder.js';

let store: HivewatchStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function storm(runs: number, steps: number): HivewatchEvent[] {
  const all: HivewatchEvent[] = [];
  for (let r = 0; r < runs; r += 1) {
    const b = new JournalBuilder(`storm-${r}`).start();
    for (let s = 0; s < steps; s += 1) b.runStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake' }, 'ok'] }, { attempts: ['ok'] }]);
    all.push(...b.complete().events);
  }
  return all;
}

describe('createDurableSink', () => {
  it('batches a storm: transactions of maxBatch events, never one per event', async () => {
    store = await openStore({ path: ':memory:' });
    const batches: number[] = [];
    const spy = { appendEvents: (events: readonly HivewatchEvent[]) => (batches.push(events.length), store!.appendEvents(events)) };
    const sink = createDurableSink(spy, { maxBatch: 250 });
    const events = storm(4, 40);
    for (const event of events) sink.append(event);
    await sink.flush();
    expect(batches.reduce((a, b) => a + b, 0)).toBe(events.length);
    expect(batches.length).toBe(Math.ceil(events.length / 250));
    expect(Math.max(...batches)).toBe(250);
    expect(sink.pending).toBe(0);
    for (let r = 0; r < 4; r += 1) expect((await store.replayRun(`storm-${r}`)).diffs).toEqual([]);
  });

  it('makes appended events visible on the next tick and durable on flush', async () => {
    store = await openStore({ path: ':memory:' });
    const committed: number[] = [];
    store.subscribe((events) => committed.push(...events.map((e) => e.seq)));
    const sink = createDurableSink(store);
    const b = new JournalBuilder('live').start().runStep([{ attempts: ['ok'] }]);
    sink.append(b.events[0]!);
    sink.append(b.events[1]!);
    expect(await store.getEvents('live')).toEqual([]);
    expect(sink.pending).toBe(2);
    await nextTick();
    expect((await store.getEvents('live')).map((e) => e.seq)).toEqual([1, 2]);
    for (const event of b.events.slice(2)) sink.append(event);
    await sink.flush();
    expect(await store.getEvents('live')).toHaveLength(b.events.length);
    expect(committed).toEqual(b.events.map((e) => e.seq));
    await sink.close();
  });

  it('keeps the buffer when a write fails, rejects flush with SYSTEM_EVENT_WRITE_FAILED, and recovers', async () => {
    store = await openStore({ path: ':memory:' });
    let fail = true;
    const flaky = {
      appendEvents: (events: readonly HivewatchEvent[]) => {
        if (fail) return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
        return store!.appendEvents(events);
      },
    };
    const sink = createDurableSink(flaky, { maxBatch: 2, retryDelaysMs: [] });
    const b = new JournalBuilder('flaky').start().runStep([{ attempts: ['ok'] }]);
    for (const event of b.events) sink.append(event);
    await nextTick();
    expect(sink.pending).toBe(b.events.length);
    const error = await sink.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HivewatchError);
    expect((error as HivewatchError).code).toBe('SYSTEM_EVENT_WRITE_FAILED');
    expect((error as HivewatchError).message).toMatch(/database is locked/);
    fail = false;
    await sink.flush();
    expect(sink.pending).toBe(0);
    expect((await store.getEvents('flaky')).map((e) => e.seq)).toEqual(b.events.map((e) => e.seq));
  });

  it('a throwing subscriber neither undoes nor blocks the write', async () => {
    const errors: unknown[] = [];
    store = await openStore({ path: ':memory:', onListenerError: (error) => errors.push(error) });
    store.subscribe(() => {
      throw new Error('listener broke');
    });
    const seen: number[] = [];
    store.subscribe((events) => seen.push(events.length));
    await store.appendEvents(new JournalBuilder('x').start().events);
    expect(seen).toEqual([1]);
    expect(await store.getEvents('x')).toHaveLength(1);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it('retries a failed flush after each bounded delay, then gives up with SYSTEM_EVENT_WRITE_FAILED and keeps the events', async () => {
    store = await openStore({ path: ':memory:' });
    let failures = 5;
    let tries = 0;
    const away = {
      appendEvents: (events: readonly HivewatchEvent[]) => {
        tries += 1;
        if (failures > 0) {
          failures -= 1;
          return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
        }
        return store!.appendEvents(events);
      },
    };
    const waited: number[] = [];
    const sink = createDurableSink(away, { retryDelaysMs: [10, 20, 40], sleep: (ms) => (waited.push(ms), Promise.resolve()) });
    const b = new JournalBuilder('away').start().runStep([{ attempts: ['ok'] }]);
    for (const event of b.events) sink.append(event);
    // Five failures against three retries: the flush gives up after 4 tries, having waited each delay once.
    const error = await sink.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as HivewatchError).code).toBe('SYSTEM_EVENT_WRITE_FAILED');
    expect((error as HivewatchError).message).toBe(`could not journal ${b.events.length} event(s): connect ECONNREFUSED 127.0.0.1:5432`);
    expect(waited).toEqual([10, 20, 40]);
    expect(sink.pending).toBe(b.events.length);
    expect(tries).toBe(4);
    // The server is back after one more failure: the next flush's first retry writes everything, in order.
    await sink.flush();
    expect(tries).toBe(6);
    expect(waited).toEqual([10, 20, 40, 10]);
    expect(sink.pending).toBe(0);
    expect((await store.getEvents('away')).map((e) => e.seq)).toEqual(b.events.map((e) => e.seq));
  });

  it('drops the events of a run another host took (RunTakenError), says which, and writes the rest of the batch without a retry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-sink-taken-'));
    try {
      const path = join(dir, 'h.db');
      store = await openStore({ path, recover: false });
      const taken = new JournalBuilder('taken').start().runStep([{ attempts: ['ok'] }]);
      const kept = new JournalBuilder('kept').start().runStep([{ attempts: ['ok'] }]);
      const told: string[][] = [];
      const sleeps: number[] = [];
      const sink = createDurableSink(store, { onRunTaken: (ids) => told.push([...ids]), sleep: (ms) => (sleeps.push(ms), Promise.resolve()) });
      sink.append(taken.events[0]!);
      await sink.flush();
      const other = await openStore({ path, recover: false });
      try {
        await other.recoverInterrupted({ runId: 'taken', force: true });
      } finally {
        await other.close();
      }
      for (let i = 0; i < kept.events.length; i += 1) {
        sink.append(kept.events[i]!);
        if (taken.events[i + 1]) sink.append(taken.events[i + 1]!);
      }
      await sink.flush();
      expect(told).toEqual([['taken']]);
      expect(sleeps).toEqual([]);
      expect(sink.pending).toBe(0);
      expect(await store.getEvents('kept')).toEqual(kept.events);
      expect((await store.getEvents('taken')).map((e) => e.type)).toEqual(['runStarted', 'errorOccurred', 'runInterrupted']);
      // Whatever the run still appends goes nowhere.
      sink.append({ ...taken.events[1]!, seq: 99 });
      expect(sink.pending).toBe(0);
      await sink.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps its process alive while it waits to retry (a host must not exit with its journal unwritten)', () => {
    // A real process whose only pending work is the sink's retry: with an unref'd timer Node
    // exits before the flush settles (exit 13, "unsettled top-level await"). dist/ is built by the
    // suite's global setup.
    const sink = pathToFileURL(join(import.meta.dirname, '..', '..', '..', 'dist', 'core', 'store', 'sink', 'sink.js')).href;
    const script = `
      import { createDurableSink } from ${JSON.stringify(sink)};
      let failures = 3;
      const written = [];
      const away = { appendEvents: async (events) => {
        if (failures-- > 0) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        written.push(...events);
      } };
      const sink = createDurableSink(away, { retryDelaysMs: [20, 40, 80] });
      sink.append({ runId: 'r', seq: 1, ts: 1, type: 'stepFinished', step: 1 });
      await sink.flush();
      console.log('written ' + written.length);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: child.status, stdout: child.stdout.trim() }, child.stderr).toEqual({ status: 0, stdout: 'written 1' });
  });

  it('after a flush gave up, writes the buffered events in the background once the database is back', async () => {
    store = await openStore({ path: ':memory:' });
    let away = true;
    const flaky = {
      appendEvents: (events: readonly HivewatchEvent[]) =>
        away ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : store!.appendEvents(events),
    };
    const wakes: (() => void)[] = [];
    const sink = createDurableSink(flaky, { retryDelaysMs: [], backgroundRetryMs: 1_000, sleep: () => new Promise<void>((resolve) => wakes.push(resolve)) });
    const b = new JournalBuilder('later')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    for (const event of b.events) sink.append(event);
    await expect(sink.flush()).rejects.toMatchObject({ code: 'SYSTEM_EVENT_WRITE_FAILED' });
    // One background try per wait, and nothing is lost while the database stays away.
    await expect.poll(() => wakes.length === 1, { message: 'the first background wait', timeout: 20_000 }).toBeTruthy();
    wakes.shift()!();
    await expect.poll(() => wakes.length === 1, { message: 'the second background wait', timeout: 20_000 }).toBeTruthy();
    expect(sink.pending).toBe(b.events.length);
    away = false;
    wakes.shift()!();
    await expect.poll(() => sink.pending === 0, { message: 'the events written without a flush', timeout: 20_000 }).toBeTruthy();
    expect(await store.getEvents('later')).toEqual(b.events);
    expect(wakes).toEqual([]);
    await sink.close();
  });

  it('a database that goes away while a refused batch is written around loses nothing and writes nothing twice', async () => {
    store = await openStore({ path: ':memory:' });
    const faults: ('refuse' | 'away')[] = ['refuse', 'away'];
    const tries: number[] = [];
    const misbehaving = {
      appendEvents: (events: readonly HivewatchEvent[]) => {
        tries.push(events.length);
        const fault = faults.shift();
        if (fault === 'refuse') return Promise.reject(new TypeError('refused (a misbehaving double)'));
        if (fault === 'away') return Promise.reject(new Error('Connection terminated unexpectedly'));
        return store!.appendEvents(events);
      },
    };
    const sink = createDurableSink(misbehaving, { retryDelaysMs: [] });
    const runs = [new JournalBuilder('one').start().complete().events, new JournalBuilder('two').start().complete().events];
    for (const event of [runs[0]![0]!, runs[1]![0]!, runs[0]![1]!, runs[1]![1]!]) sink.append(event);
    await expect(sink.flush()).rejects.toMatchObject({ code: 'SYSTEM_EVENT_WRITE_FAILED', message: expect.stringMatching(/Connection terminated/) });
    expect(sink.pending).toBe(4);
    await sink.flush();
    // The whole batch (refused), run one's events (away), then everything again in one batch.
    expect(tries).toEqual([4, 2, 4]);
    expect(await store.getEvents('one')).toEqual(runs[0]);
    expect(await store.getEvents('two')).toEqual(runs[1]);
  });

  it('a flush waits for the events appended before it, not for those appended while it waits', async () => {
    store = await openStore({ path: ':memory:' });
    // A store whose writes commit only when the test lets them: the later batch can be held forever.
    const held: { events: readonly HivewatchEvent[]; release: () => void }[] = [];
    let wrote: () => void = () => undefined;
    const nextWrite = (): Promise<void> => new Promise((resolve) => (wrote = resolve));
    const gated = {
      appendEvents: (events: readonly HivewatchEvent[]) =>
        new Promise<void>((resolve, reject) => {
          held.push({ events, release: () => store!.appendEvents(events).then(resolve, reject) });
          wrote();
        }),
    };
    const sink = createDurableSink(gated);
    const first = new JournalBuilder('first').start();
    const later = new JournalBuilder('later').start();
    sink.append(first.events[0]!);
    let flushed = false;
    const firstWrite = nextWrite();
    const flush = sink.flush().then(() => (flushed = true));
    await firstWrite;
    // The flush's write is in flight; another run appends meanwhile, and its write will be held.
    const laterWrite = nextWrite();
    sink.append(later.events[0]!);
    expect(held).toHaveLength(1);
    held[0]!.release();
    await flush;
    expect(flushed).toBe(true);
    expect(await store.getEvents('first')).toHaveLength(1);
    // The later event is written on its own, not awaited by that flush.
    await laterWrite;
    expect(held).toHaveLength(2);
    expect(held[1]!.events.map((e) => e.runId)).toEqual(['later']);
    expect(sink.pending).toBe(1);
    held[1]!.release();
    await sink.flush();
    expect(sink.pending).toBe(0);
    expect(await store.getEvents('later')).toHaveLength(1);
  });
});
