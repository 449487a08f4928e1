import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { seededRandom } from '../../testing/seeded-random.js';
import type { LiveEvent } from '../api.js';
import { LiveHub, type LiveSubscription } from './hub.js';

/** Many watchers, slow watchers and frames: what one delivery round costs and what each subscriber sees. */

const events = (n: number, from = 1): HivewatchEvent[] =>
  Array.from({ length: n }, (_, i) => ({ runId: 'run_a', seq: from + i, ts: 0, type: 'stepFinished', step: from + i }) as HivewatchEvent);

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ids = (batches: readonly (readonly LiveEvent[])[]): number[] => batches.flatMap((b) => b.map((e) => e.id));
const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('LiveHub fan-out', () => {
  it('a thousand subscribers each get every event exactly once, in order, as the same frozen batches', async () => {
    const random = seededRandom(38);
    const hub = new LiveHub(10_000, 'abc', { maxBatch: 50 });
    const seen: LiveEvent[][][] = Array.from({ length: 1_000 }, () => []);
    for (const batches of seen) hub.subscribe({ onBatch: (b) => batches.push(b) });
    let published = 0;
    for (let turn = 0; turn < 30; turn += 1) {
      // Several commits in one turn, of uneven sizes (some larger than a batch).
      for (let commits = 1 + Math.floor(random() * 3); commits > 0; commits -= 1) {
        const n = 1 + Math.floor(random() * 80);
        hub.publish(events(n, published + 1));
        published += n;
      }
      await tick();
    }
    for (const batches of seen) expect(ids(batches)).toEqual(oneTo(published));
    const first = seen[0] as LiveEvent[][];
    expect(first.every((b) => Object.isFrozen(b) && b.length <= 50)).toBe(true);
    // Every subscriber got the very same arrays: a shell serializes each batch once, not once per subscriber.
    const distinct = new Set(seen.flat());
    expect(distinct.size).toBe(first.length);
    hub.close();
  });

  it('a paused subscriber does not hold the others back, holds no events of its own, and catches up in bounded chunks', async () => {
    const hub = new LiveHub(100, 'abc', { maxBatch: 10 });
    const fast: LiveEvent[][] = [];
    const slow: LiveEvent[][] = [];
    hub.subscribe({ onBatch: (b) => fast.push(b) });
    const slowSubscription: LiveSubscription = hub.subscribe({ onBatch: (b) => slow.push(b) });
    hub.publish(events(5));
    await tick();
    slowSubscription.pause();
    for (let i = 0; i < 6; i += 1) {
      hub.publish(events(7, 6 + i * 7));
      await tick();
    }
    expect(ids(fast)).toEqual(oneTo(47));
    expect(ids(slow)).toEqual(oneTo(5));
    slowSubscription.resume();
    await tick();
    expect(ids(slow)).toEqual(oneTo(47));
    expect(slow.slice(1).map((b) => b.length)).toEqual([10, 10, 10, 10, 2]);
    hub.close();
  });

  it('a paused subscriber that pauses again mid catch-up gets the rest only when it resumes', async () => {
    const hub = new LiveHub(100, 'abc', { maxBatch: 4 });
    const got: LiveEvent[][] = [];
    const subscription: LiveSubscription = hub.subscribe({
      onBatch: (b) => {
        got.push(b);
        // Like a socket whose buffer fills with every write.
        subscription.pause();
      },
    });
    hub.publish(events(10));
    await tick();
    expect(ids(got)).toEqual([1, 2, 3, 4]);
    subscription.resume();
    await tick();
    expect(ids(got)).toEqual(oneTo(8));
    subscription.resume();
    await tick();
    expect(ids(got)).toEqual(oneTo(10));
    hub.close();
  });

  it('a paused subscriber whose position left the ring is told to reset on resume, then continues live', async () => {
    const hub = new LiveHub(5, 'abc');
    const fast: number[] = [];
    const slow: (number | string)[] = [];
    hub.subscribe({ onBatch: (b) => fast.push(...b.map((e) => e.id)) });
    const subscription = hub.subscribe({ onBatch: (b) => slow.push(...b.map((e) => e.id)), onReset: (head) => slow.push(`reset@${head}`) });
    subscription.pause();
    for (let i = 0; i < 4; i += 1) {
      hub.publish(events(3, 1 + i * 3));
      await tick();
    }
    expect(fast).toEqual(oneTo(12));
    expect(slow).toEqual([]);
    subscription.resume();
    await tick();
    hub.publish(events(2, 13));
    await tick();
    expect(slow).toEqual(['reset@12', 13, 14]);
    hub.close();
  });

  it('commits within a frame after a round reach subscribers together in the next round', async () => {
    const hub = new LiveHub(100, 'abc', { frameMs: 60_000 });
    const got: LiveEvent[][] = [];
    hub.subscribe({ onBatch: (b) => got.push(b) });
    hub.publish(events(2));
    await tick();
    expect(ids(got)).toEqual([1, 2]);
    hub.publish(events(1, 3));
    await tick();
    hub.publish(events(2, 4));
    await tick();
    // Still inside the frame: held, not lost.
    expect(got).toHaveLength(1);
    hub.deliver();
    expect(got.map((b) => b.map((e) => e.id))).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    hub.close();
  });

  it('refuses a batch limit that is not a positive whole number', () => {
    expect(() => new LiveHub(10, 'abc', { maxBatch: 0 })).toThrow('live maxBatch must be a whole number of at least 1, got 0');
  });
});
