import { describe, expect, it } from 'vitest';
import { createFrameBatcher, manualScheduler } from './frame-batcher.js';

describe('createFrameBatcher', () => {
  it('flushes everything pushed within a frame once, in order', () => {
    const scheduler = manualScheduler();
    const flushes: number[][] = [];
    const batcher = createFrameBatcher<number>((items) => flushes.push(items), scheduler);
    for (let i = 0; i < 2_000; i++) batcher.push(i);
    batcher.pushAll([2_000, 2_001]);
    expect(scheduler.scheduled).toBe(1);
    expect(flushes).toEqual([]);
    scheduler.frame();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toHaveLength(2_002);
    expect(flushes[0]?.slice(0, 3)).toEqual([0, 1, 2]);
    expect(flushes[0]?.at(-1)).toBe(2_001);
  });

  it('schedules no frame while idle and one per frame with work', () => {
    const scheduler = manualScheduler();
    const flushes: string[][] = [];
    const batcher = createFrameBatcher<string>((items) => flushes.push(items), scheduler);
    scheduler.frame();
    expect(flushes).toEqual([]);
    batcher.push('a');
    scheduler.frame();
    batcher.push('b');
    batcher.push('c');
    scheduler.frame();
    scheduler.frame();
    expect(flushes).toEqual([['a'], ['b', 'c']]);
    expect(scheduler.scheduled).toBe(0);
  });

  it('accepts pushes made during a flush for the next frame', () => {
    const scheduler = manualScheduler();
    const flushes: number[][] = [];
    const batcher = createFrameBatcher<number>((items) => {
      flushes.push(items);
      if (items[0] === 1) batcher.push(2);
    }, scheduler);
    batcher.push(1);
    scheduler.frame();
    expect(flushes).toEqual([[1]]);
    scheduler.frame();
    expect(flushes).toEqual([[1], [2]]);
  });

  it('flushNow empties the queue immediately and cancels the frame', () => {
    const scheduler = manualScheduler();
    const flushes: number[][] = [];
    const batcher = createFrameBatcher<number>((items) => flushes.push(items), scheduler);
    batcher.push(1);
    batcher.flushNow();
    expect(flushes).toEqual([[1]]);
    expect(scheduler.scheduled).toBe(0);
    expect(batcher.pending).toBe(0);
  });

  it('drops everything after dispose', () => {
    const scheduler = manualScheduler();
    const flushes: number[][] = [];
    const batcher = createFrameBatcher<number>((items) => flushes.push(items), scheduler);
    batcher.push(1);
    batcher.dispose();
    batcher.push(2);
    scheduler.frame();
    expect(flushes).toEqual([]);
  });
});
