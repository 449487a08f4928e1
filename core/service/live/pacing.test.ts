import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { LiveEvent } from '../api.js';
import { LiveHub } from './hub.js';

/**
 * Round pacing: a round's cost (a write per subscriber) spaces the rounds, between `frameMs` and
 * `maxFrameMs`. The clock is the test's: each delivered batch "costs" what the subscriber says.
 * Frames are minutes long, so no real timer fires while a test runs; rounds are driven by hand.
 */

const events = (n: number, from = 1): HivewatchEvent[] =>
  Array.from({ length: n }, (_, i) => ({ runId: 'run_a', seq: from + i, ts: 0, type: 'stepFinished', step: from + i }) as HivewatchEvent);

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ids = (batches: readonly (readonly LiveEvent[])[]): number[] => batches.flatMap((b) => b.map((e) => e.id));
const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

const FRAME = 10_000;
const MAX_FRAME = 200_000;

function pacedHub(): { hub: LiveHub; clock: { ms: number } } {
  const clock = { ms: 0 };
  return { hub: new LiveHub(10_000, 'abc', { frameMs: FRAME, maxFrameMs: MAX_FRAME, now: () => clock.ms }), clock };
}

describe('LiveHub round pacing', () => {
  it('stretches the frame while rounds are costly, never past maxFrameMs, and returns to frameMs once they are cheap', async () => {
    const { hub, clock } = pacedHub();
    let writeCostMs = 1_000;
    const subscriptions = Array.from({ length: 10 }, () =>
      hub.subscribe({
        onBatch: () => {
          clock.ms += writeCostMs;
        },
      }),
    );
    expect(hub.frameGapMs).toBe(FRAME);
    // The first round runs on the next turn (no round before it); it costs 10 writes of 1 s.
    hub.publish(events(1));
    await tick();
    const afterOne = hub.frameGapMs;
    expect(afterOne).toBeGreaterThan(FRAME);
    expect(afterOne).toBeLessThanOrEqual(MAX_FRAME);
    writeCostMs = 10_000;
    let published = 1;
    for (let round = 0; round < 6; round += 1) {
      hub.publish(events(1, ++published));
      hub.deliver();
      await tick();
    }
    expect(hub.frameGapMs).toBe(MAX_FRAME);
    // The subscribers leave: rounds send nothing, cost nothing, and the frame comes back down.
    for (const subscription of subscriptions) subscription.unsubscribe();
    for (let round = 0; round < 12; round += 1) {
      hub.publish(events(1, ++published));
      hub.deliver();
      await tick();
    }
    expect(hub.frameGapMs).toBe(FRAME);
    hub.close();
  });

  it('holds the commits of a stretched frame and hands each subscriber them in one batch, in order, none lost', async () => {
    const { hub, clock } = pacedHub();
    const seen: LiveEvent[][][] = Array.from({ length: 50 }, () => []);
    for (const batches of seen)
      hub.subscribe({
        onBatch: (b) => {
          batches.push(b);
          clock.ms += 1_000;
        },
      });
    hub.publish(events(3));
    await tick();
    expect(hub.frameGapMs).toBeGreaterThan(FRAME);
    // Commits keep coming inside the frame: nobody gets a round of its own for them.
    for (let commit = 0; commit < 20; commit += 1) {
      hub.publish(events(2, 4 + commit * 2));
      await tick();
    }
    for (const batches of seen) expect(batches).toHaveLength(1);
    hub.deliver();
    for (const batches of seen) {
      expect(batches).toHaveLength(2);
      expect(ids(batches)).toEqual(oneTo(43));
    }
    // Still one encoding's worth: every subscriber got the very same array for the held commits.
    expect(new Set(seen.map((batches) => batches[1])).size).toBe(1);
    hub.close();
  });

  it('keeps a fixed frame when no maxFrameMs is given, however costly a round', async () => {
    const clock = { ms: 0 };
    const hub = new LiveHub(100, 'abc', { frameMs: 5, now: () => clock.ms });
    hub.subscribe({
      onBatch: () => {
        clock.ms += 1_000_000;
      },
    });
    hub.publish(events(1));
    await tick();
    hub.publish(events(1, 2));
    hub.deliver();
    await tick();
    expect(hub.frameGapMs).toBe(5);
    hub.close();
  });
});
