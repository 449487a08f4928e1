import { describe, expect, it } from 'vitest';
import { CancelledError } from './errors/hivewatch-error.js';
import { VirtualClock } from './clock.js';

describe('VirtualClock', () => {
  it('jumps to each deadline without waiting and records every sleep', async () => {
    const clock = new VirtualClock(1_000);
    await clock.sleep(30_000);
    expect(clock.now()).toBe(31_000);
    await clock.sleep(60_000);
    expect(clock.now()).toBe(91_000);
    expect(clock.sleeps).toEqual([30_000, 60_000]);
  });

  it('overlapping sleeps end at the later deadline, not at the sum', async () => {
    const clock = new VirtualClock(0);
    await Promise.all([clock.sleep(30_000), clock.sleep(10_000)]);
    expect(clock.now()).toBe(30_000);
  });

  it('an aborted sleep rejects with CancelledError and does not move time', async () => {
    const clock = new VirtualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(5_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
    expect(clock.now()).toBe(0);
  });
});
