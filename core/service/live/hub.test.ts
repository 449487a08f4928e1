import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { LiveEvent } from '../api.js';
import { formatLiveId, LiveHub, parseLiveId } from './hub.js';

const events = (n: number, from = 1): HivewatchEvent[] =>
  Array.from({ length: n }, (_, i) => ({ runId: 'run_a', seq: from + i, ts: 0, type: 'stepFinished', step: from + i }) as HivewatchEvent);

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LiveHub', () => {
  it('numbers events without gaps and delivers at most one batch per subscriber per tick', async () => {
    const hub = new LiveHub(100, 'abc');
    const batches: LiveEvent[][] = [];
    hub.subscribe({ onBatch: (b) => batches.push(b) });
    hub.publish(events(3));
    hub.publish(events(2, 4));
    expect(batches).toEqual([]);
    await tick();
    expect(batches.map((b) => b.map((e) => e.id))).toEqual([[1, 2, 3, 4, 5]]);
    expect(batches[0]?.map((e) => e.event.seq)).toEqual([1, 2, 3, 4, 5]);
    hub.close();
  });

  it('resumes after any id in the ring; resets for older, newer or foreign ids', async () => {
    const hub = new LiveHub(4, 'abc');
    hub.publish(events(10));
    expect([hub.head, hub.oldest]).toEqual([10, 7]);
    const got: number[] = [];
    const ok = hub.subscribe({ afterId: 6, onBatch: (b) => got.push(...b.map((e) => e.id)) });
    expect(ok).toMatchObject({ startId: 6, reset: false });
    await tick();
    expect(got).toEqual([7, 8, 9, 10]);
    expect(hub.subscribe({ afterId: 5, onBatch: () => undefined })).toMatchObject({ startId: 10, reset: true });
    expect(hub.subscribe({ afterId: 11, onBatch: () => undefined })).toMatchObject({ startId: 10, reset: true });
    expect(hub.subscribe({ afterId: 8, instance: 'other', onBatch: () => undefined })).toMatchObject({ startId: 10, reset: true });
    expect(hub.subscribe({ afterId: 0, onBatch: () => undefined })).toMatchObject({ startId: 10, reset: false });
    hub.close();
  });

  it('a subscriber that falls behind the ring during a storm gets a reset, then only new events', async () => {
    const hub = new LiveHub(5, 'abc');
    const seen: (number | string)[] = [];
    hub.subscribe({ onBatch: (b) => seen.push(...b.map((e) => e.id)), onReset: (head) => seen.push(`reset@${head}`) });
    hub.publish(events(12));
    await tick();
    hub.publish(events(2, 13));
    await tick();
    expect(seen).toEqual(['reset@12', 13, 14]);
    hub.close();
  });

  it('formats and parses wire ids', () => {
    expect(formatLiveId('abc123', 42)).toBe('abc123.42');
    expect(parseLiveId('abc123.42')).toEqual({ instance: 'abc123', id: 42 });
    expect(parseLiveId('42')).toEqual({ instance: undefined, id: 42 });
    for (const bad of ['', 'x.y', '-1', 'abc.1.2', 'ABC.1', '1e3']) expect(parseLiveId(bad)).toBeNull();
    expect(parseLiveId(undefined)).toBeNull();
  });
});

describe('LiveHub with journal positions', () => {
  const live = (from: number, n: number): LiveEvent[] => events(n, from).map((event, i) => ({ id: from + i, event }));

  it('starts after the journal head and takes the ids it is given; a jump restarts the ring', async () => {
    const hub = new LiveHub(10, 'db', { startId: 40 });
    expect([hub.head, hub.oldest]).toEqual([40, 41]);
    const got: number[] = [];
    hub.subscribe({ onBatch: (b) => got.push(...b.map((e) => e.id)) });
    hub.publish(events(3), 41);
    hub.publish(events(2, 4), 50);
    await tick();
    expect(got).toEqual([41, 42, 43, 50, 51]);
    expect([hub.head, hub.oldest]).toEqual([51, 50]);
    expect(() => hub.publish(events(1), 51)).toThrow('live id 51 was published already (head 51)');
    // 43 is before the jump: not resumable from memory, and no backfill here.
    expect(hub.subscribe({ afterId: 43, onBatch: () => undefined })).toMatchObject({ reset: true, startId: 51 });
    hub.close();
  });

  it('resumes an id older than the ring from the backfill, within capacity of the head, with no gap', async () => {
    const asked: [number, number][] = [];
    const hub = new LiveHub(10, 'db', {
      startId: 100,
      backfill: (afterId, upToId) => {
        asked.push([afterId, upToId]);
        return Promise.resolve(live(afterId + 1, upToId - afterId));
      },
    });
    hub.publish(events(3), 101);
    const got: number[] = [];
    const sub = hub.subscribe({ afterId: 95, onBatch: (b) => got.push(...b.map((e) => e.id)) });
    expect(sub).toMatchObject({ reset: false, startId: 95 });
    expect(asked).toEqual([[95, 100]]);
    await tick();
    expect(got).toEqual([96, 97, 98, 99, 100, 101, 102, 103]);
    // Further than capacity from the head: reset at once.
    expect(hub.subscribe({ afterId: 90, onBatch: () => undefined })).toMatchObject({ reset: true, startId: 103 });

    // A backfill with a hole, or one that fails, is only known once read: the reset comes through onReset.
    const holey = new LiveHub(10, 'db', { startId: 100, backfill: (afterId) => Promise.resolve(live(afterId + 2, 3)) });
    holey.publish(events(1), 101);
    const resets: number[] = [];
    const delivered: number[] = [];
    expect(holey.subscribe({ afterId: 96, onBatch: (b) => delivered.push(b.length), onReset: (at) => resets.push(at) })).toMatchObject({
      reset: false,
      startId: 96,
    });
    const failing = new LiveHub(10, 'db', { startId: 100, backfill: () => Promise.reject(new Error('server gone')) });
    failing.publish(events(1), 101);
    failing.subscribe({ afterId: 96, onBatch: (b) => delivered.push(b.length), onReset: (at) => resets.push(at) });
    await tick();
    expect(resets).toEqual([101, 101]);
    expect(delivered).toEqual([]);
    failing.close();
    holey.close();
    hub.close();
  });
});
