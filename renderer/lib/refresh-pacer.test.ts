import { describe, expect, it } from 'vitest';
import { GAP_MS, RefreshPacer, SETTLE_MS, type PacerTimers } from './refresh-pacer.js';

/** Timers on a clock the test moves: each due timer fires in order as time passes. */
function manualTimers(): PacerTimers & { advance(ms: number): void } {
  let now = 0;
  let nextId = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    set: (fn, ms) => {
      const id = nextId++;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clear: (handle) => void due.delete(handle as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...due.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = end;
    },
  };
}

describe('RefreshPacer', () => {
  it('refreshes a burst of changes once, shortly after the first', () => {
    const timers = manualTimers();
    const at: number[] = [];
    const pacer = new RefreshPacer(() => at.push(timers.now()), timers);
    timers.advance(10_000);
    for (let i = 0; i < 20; i += 1) {
      pacer.changed();
      timers.advance(2);
    }
    timers.advance(1_000);
    expect(at).toEqual([10_000 + SETTLE_MS]);
  });

  it('counts the screen’s own first read: a change just after it waits out the gap', () => {
    const timers = manualTimers();
    const at: number[] = [];
    const pacer = new RefreshPacer(() => at.push(timers.now()), timers);
    timers.advance(50);
    pacer.changed();
    timers.advance(2_000);
    expect(at).toEqual([GAP_MS]);
  });

  it('keeps refreshing, a gap apart, under changes that never stop (a restarted timer never fired)', () => {
    const timers = manualTimers();
    const at: number[] = [];
    const pacer = new RefreshPacer(() => at.push(timers.now()), timers);
    // An error every 200 ms for 10 s.
    for (let t = 0; t < 10_000; t += 200) {
      pacer.changed();
      timers.advance(200);
    }
    expect(at.length).toBeGreaterThanOrEqual(Math.floor(10_000 / GAP_MS) - 1);
    expect(at[0]).toBe(GAP_MS);
    for (let i = 1; i < at.length; i += 1) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(GAP_MS);
    // No change waits longer than a gap (and the settling) for its refresh.
    for (let i = 1; i < at.length; i += 1) expect(at[i]! - at[i - 1]!).toBeLessThanOrEqual(GAP_MS + 200);
  });

  it('holds a refresh that comes due while the screen is still reading, and makes it once the read lands', () => {
    const timers = manualTimers();
    const at: number[] = [];
    const pacer = new RefreshPacer(() => at.push(timers.now()), timers);
    pacer.setBusy(true);
    pacer.changed();
    timers.advance(3_000);
    expect(at).toEqual([]);
    pacer.setBusy(false);
    timers.advance(1_000);
    expect(at).toEqual([3_000 + SETTLE_MS]);
    // Not busy and nothing held: landing a read asks for nothing.
    pacer.setBusy(true);
    pacer.setBusy(false);
    timers.advance(5_000);
    expect(at).toEqual([3_000 + SETTLE_MS]);
  });

  it('paces from a reload the screen made itself, and does nothing once disposed', () => {
    const timers = manualTimers();
    const at: number[] = [];
    const pacer = new RefreshPacer(() => at.push(timers.now()), timers);
    timers.advance(5_000);
    pacer.refreshed();
    pacer.changed();
    timers.advance(2_000);
    expect(at).toEqual([5_000 + GAP_MS]);
    pacer.changed();
    pacer.dispose();
    timers.advance(5_000);
    expect(at).toEqual([5_000 + GAP_MS]);
  });
});
